"""The Python drivers' register vocabularies (dpusim.drivers.pci_regs, dpusim.drivers.virtio_regs,
dpusim.drivers.ionic_regs) and the C++ models' (tlm/pci_regs.h, models/vnet/virtio/virtio_spec.h,
models/ionic/ionic_if.h, and any other C++ file of the
repository defining the same names) are one vocabulary: every name defined on both sides has the
same value on both sides. The C++ files are found by searching the repository, not by path, so
that moving a header keeps it checked.

The C++ side is read with a small parser of integer constant definitions: `constexpr` (one or
more declarators, `= expr` or `{expr}`), `#define NAME expr`, and enumerators of an `enum`,
whose expressions use integer literals, other constants of the same file and C's integer
operators; a constexpr's value wraps to its declared unsigned type as C++ does.
"""
import ast
import os
import pathlib
import re

import pytest

import dpusim.drivers.ionic_regs as ionic_regs
import dpusim.drivers.pci_regs as pci_regs
import dpusim.drivers.virtio_regs as virtio_regs

# Reads source text only: nothing here runs the simulator's C++ code.
pytestmark = pytest.mark.python_only

CXX_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")
WIDTHS = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64, "unsigned": 32, "unsigned int": 32,
          "unsigned long": 64, "unsigned long long": 64, "size_t": 64, "uintptr_t": 64}

CONSTEXPR = re.compile(r"\bconstexpr\s+((?:const\s+)?(?:std::)?[A-Za-z_]\w*(?:\s+(?:int|long|short|char))*)\s+"
                       r"([A-Za-z_]\w*\s*(?:=|\{)[^;]*);")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+)$", re.M)
ENUM = re.compile(r"\benum\s+(?:class\s+|struct\s+)?(?:[A-Za-z_]\w*\s*)?(?::\s*[\w:\s]+?)?\{([^}]*)\}")
LITERAL = re.compile(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?\b")


def strip_comments(text):
    """The text with // and /* */ comments blanked (newlines kept, so line numbers hold)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))

    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)


def evaluate(expr, known):
    """The value of a C integer constant expression, or raise ValueError naming what is not
    understood. `known` holds the constants defined before it."""
    py = LITERAL.sub(lambda m: str(int(m.group(1), 0) if not re.fullmatch(r"0\d+", m.group(1))
                                   else int(m.group(1), 8)), expr.strip())
    py = py.replace("/", "//")
    try:
        tree = ast.parse(py, mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot parse {expr.strip()!r}") from None
    ops = {ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b,
           ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b, ast.Add: lambda a, b: a + b,
           ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Mod: lambda a, b: a % b}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return ~v if isinstance(node.op, ast.Invert) else (-v if isinstance(node.op, ast.USub) else v)
        raise ValueError(f"cannot evaluate {ast.unparse(node)!r} in {expr.strip()!r}")

    return ev(tree)


def _split_top_level(text):
    """Splits on commas outside parentheses and braces."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def cxx_constants(text):
    """[(name, line, value or ValueError)] for the integer constants a C++ file defines, in the
    order they appear."""
    text = strip_comments(text)
    found = []  # (offset, name, expr, type)
    for m in CONSTEXPR.finditer(text):
        ctype = re.sub(r"^(const\s+)?(std::)?", "", m.group(1)).strip()
        pos = m.start(2)
        for decl in _split_top_level(m.group(2)):
            d = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(.*?)|\{(.*)\})\s*", decl, re.S)
            if d:
                found.append((pos + decl.find(d.group(1)), d.group(1), d.group(2) or d.group(3), ctype))
            pos += len(decl) + 1
    for m in DEFINE.finditer(text):
        found.append((m.start(1), m.group(1), m.group(2), None))
    for m in ENUM.finditer(text):
        pos = m.start(1)
        previous = None
        for item in _split_top_level(m.group(1)):
            e = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(.*?))?\s*", item, re.S)
            if e:
                expr = e.group(2) if e.group(2) is not None else (
                    "0" if previous is None else f"({previous}) + 1")
                found.append((pos + item.find(e.group(1)), e.group(1), expr, "enum"))
                previous = e.group(1)
            pos += len(item) + 1
    known, out = {}, []
    for offset, name, expr, ctype in sorted(found):
        line = text.count("\n", 0, offset) + 1
        try:
            value = evaluate(expr, known)
            if ctype in WIDTHS:
                value &= (1 << WIDTHS[ctype]) - 1
            known[name] = value
        except ValueError as e:
            value = e
        out.append((name, line, value))
    return out


def python_vocabulary():
    """{name: (module file, value)} of the drivers' register vocabularies."""
    out = {}
    for module in (pci_regs, virtio_regs, ionic_regs):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, int) and not isinstance(value, bool):
                out[name] = (f"pybind/dpusim/drivers/{module.__name__.rsplit('.', 1)[1]}.py", value)
    return out


def cxx_definitions(root, names):
    """{name: [(file, line, value)]} for every definition of one of `names` in the repository's
    C++ sources (build and output folders skipped)."""
    out = {}
    paths = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("build", "out", "."))]
        paths += [pathlib.Path(folder) / f for f in files if f.endswith(CXX_SUFFIXES)]
    for path in sorted(paths):
        rel = path.relative_to(root)
        text = path.read_text(errors="replace")
        if not any(n in text for n in names):
            continue
        for name, line, value in cxx_constants(text):
            if name in names:
                out.setdefault(name, []).append((rel.as_posix(), line, value))
    return out


def mismatches(py, cxx):
    out = []
    for name in sorted(cxx):
        py_file, py_value = py[name]
        for file, line, value in cxx[name]:
            if isinstance(value, ValueError):
                out.append(f"{name}: {file}:{line} cannot be read ({value}); {py_file} has {py_value:#x}")
            elif value != py_value:
                out.append(f"{name}: {py_file} has {py_value:#x}, {file}:{line} has {value:#x}")
    return out


def test_python_and_cxx_register_names_have_the_same_values(repo_root):
    py = python_vocabulary()
    cxx = cxx_definitions(repo_root, set(py))
    # The parser found the headers' definitions (a broken parser would find nothing to compare).
    files = {f for defs in cxx.values() for f, _, _ in defs}
    assert any(f.endswith("pci_regs.h") for f in files) and any(f.endswith("virtio_spec.h") for f in files)
    assert any(f.endswith("ionic_if.h") for f in files)
    for name in ("PCI_COMMAND", "PCI_BASE_ADDRESS_MEM_MASK", "PCI_EXP_SLTCAP_PSN", "VIRTIO_PCI_COMMON_Q_USEDLO",
                 "VRING_USED_ELEM_SIZE", "VIRTIO_NET_CTRL_MQ_HASH_CONFIG", "IONIC_CMD_P4_RPC", "TXQ_SG_DESC_BYTES",
                 "IONIC_INTR_CRED_RESET_COALESCE"):
        assert name in cxx, f"{name} not found in any C++ file"
    assert len(cxx) >= 150, f"only {len(cxx)} of the {len(py)} Python names were found in C++"
    problems = mismatches(py, cxx)
    assert not problems, "Python and C++ disagree:\n" + "\n".join(problems)


def test_the_cxx_constant_reader():
    text = """// PCI_X = 99 in a comment is no definition
#pragma once
namespace x {
inline constexpr uint16_t A = 0x10;   /* B = 7 */
inline constexpr uint32_t MASK = ~0x0fu, SHIFTED = 1u << 20;
inline constexpr uint8_t WRAP = 0x1ff;
inline constexpr uint16_t ALIAS = A, BRACED{A | 0x2};
constexpr uint64_t bit(unsigned b) { return uint64_t(1) << b; }
inline constexpr unsigned DIV = (SHIFTED / 16) % 7;
#define DEF (A + 0x20)
enum class Kind : uint8_t { K0, K1 = 5, K2 };
inline constexpr int BAD = sizeof(int);
}
"""
    *good, (name, line, err) = cxx_constants(text)
    assert good == [
        ("A", 4, 0x10), ("MASK", 5, 0xFFFFFFF0), ("SHIFTED", 5, 1 << 20), ("WRAP", 6, 0xFF), ("ALIAS", 7, 0x10),
        ("BRACED", 7, 0x12), ("DIV", 9, ((1 << 20) // 16) % 7), ("DEF", 10, 0x30), ("K0", 11, 0),
        ("K1", 11, 5), ("K2", 11, 6)]
    assert (name, line, str(err)) == ("BAD", 12, "cannot evaluate 'sizeof(int)' in 'sizeof(int)'")


def test_a_mismatch_is_named_with_both_values_and_the_cxx_line():
    py = {"PCI_COMMAND": ("pybind/dpusim/drivers/pci_regs.py", 0x04), "PCI_X": ("pybind/dpusim/drivers/pci_regs.py", 1)}
    cxx = {"PCI_COMMAND": [("tlm/pci_regs.h", 12, 0x06)],
           "PCI_X": [("models/a.h", 3, 1), ("models/b.h", 9, ValueError("cannot parse 'f('"))]}
    assert mismatches(py, cxx) == [
        "PCI_COMMAND: pybind/dpusim/drivers/pci_regs.py has 0x4, tlm/pci_regs.h:12 has 0x6",
        "PCI_X: models/b.h:9 cannot be read (cannot parse 'f('); pybind/dpusim/drivers/pci_regs.py has 0x1"]
