"""The layering of the dpusim Python package, read from its source with `ast`:

- the import graph has no cycle, counting imports inside functions (a lazy import hides a cycle
  from the interpreter, not from a reader) and relative imports;
- dpusim.errors imports nothing of the package and dpusim.futures only dpusim.errors, so every
  other module can build on them;
- no module reads or writes a private attribute (`x._name`) of an object it does not define:
  modules talk to each other through public methods and properties.
"""
import ast
import pathlib

import pytest

# Reads source text only: nothing here runs the simulator's C++ code.
pytestmark = pytest.mark.python_only

PKG = pathlib.Path(__file__).resolve().parents[2] / "pybind" / "dpusim"

# Private names a module may reach on objects it did not define, each with its reason.
ALLOWED_PRIVATE = {
    # os._exit is the standard library's documented way for a forked child to leave without
    # running the parent's cleanup (dpusim.run's child process).
    ("run.py", "os._exit"),
}


# ---- the import graph ------------------------------------------------------------------------
def package_modules(root):
    """{module name: path} for every .py file of the package rooted at `root`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve_relative(module, level, importer, is_package):
    """The absolute name `from <level dots><module> import ...` refers to inside `importer`."""
    if level == 0:
        return module
    base = importer.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _deepest_module(name, modules):
    """The deepest module of the package that `import name` executes, or None outside it."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(name, path, modules):
    """[(imported module, line)] for every import statement anywhere in the module (module
    level, in functions, in classes), plus importlib.import_module("...") with a literal name."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _deepest_module(alias.name, modules)
                if target:
                    out.append((target, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(node.module, node.level, name, is_package)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in modules else _deepest_module(base, modules)
                if target:
                    out.append((target, node.lineno))
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            target = _deepest_module(node.args[0].value, modules)
            if target:
                out.append((target, node.lineno))
    return sorted(set(out), key=lambda x: (x[1], x[0]))


def import_graph(root):
    """{module: [(imported module, line)]} of the package at `root`, and its module paths."""
    modules = package_modules(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}, modules


def strongly_connected(graph):
    """Tarjan's strongly connected components, each sorted, in a stable order."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, _ in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(comps)


def cycles(graph):
    """(component, cycle) for each strongly connected component that has a cycle: the cycle (a
    list of modules, first == last) is a shortest one through the component's first module."""
    out = []
    for comp in strongly_connected(graph):
        start = comp[0]
        if len(comp) == 1 and all(w != start for w, _ in graph[start]):
            continue
        members = set(comp)
        prev = {}
        frontier = [start]
        while start not in prev:
            nxt = []
            for v in frontier:
                for w, _ in graph[v]:
                    if w in members and w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = prev[start]
        while v != start:
            path.append(v)
            v = prev[v]
        path.append(start)
        out.append((comp, path[::-1]))
    return out


def describe(comp, cycle, graph, modules, root):
    """"a -> b (a.py:3) -> a (b.py:12)": each step with the import that makes it; when more
    modules are caught in the same tangle, they are named after it."""
    text = cycle[0]
    for a, b in zip(cycle, cycle[1:]):
        line = next(n for w, n in graph[a] if w == b)
        text += f" -> {b} ({modules[a].relative_to(root).as_posix()}:{line})"
    if len(comp) > len(cycle) - 1:
        text += f" [one cycle of the tangle {', '.join(comp)}]"
    return text


def cycle_report(root):
    graph, modules = import_graph(root)
    return [describe(comp, c, graph, modules, root) for comp, c in cycles(graph)]


def test_the_package_import_graph_has_no_cycle():
    graph, modules = import_graph(PKG)
    assert "dpusim.runtime" in graph and "dpusim.drivers.pci" in graph
    report = cycle_report(PKG)
    assert not report, "import cycles:\n" + "\n".join(report)


def test_errors_and_futures_are_the_leaves_everything_builds_on():
    graph, _ = import_graph(PKG)
    assert graph["dpusim.errors"] == []
    assert {w for w, _ in graph["dpusim.futures"]} == {"dpusim.errors"}


def test_the_cycle_finder_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("import os\n\n\ndef f():\n    from .. import a\n    return a\n")
    (pkg / "c.py").write_text("import pkg.sub.b\n\n\nclass C:\n    def g(self):\n        import importlib\n"
                              "        return importlib.import_module('pkg.d')\n")
    (pkg / "d.py").write_text("from pkg import c\n")
    graph, _ = import_graph(pkg)
    assert graph["pkg.a"] == [("pkg.sub.b", 1)]
    assert graph["pkg.sub.b"] == [("pkg.a", 5)]
    assert graph["pkg.c"] == [("pkg.sub.b", 1), ("pkg.d", 7)]
    assert cycle_report(pkg) == ["pkg.a -> pkg.sub.b (a.py:1) -> pkg.a (sub/b.py:5)",
                                 "pkg.c -> pkg.d (c.py:7) -> pkg.c (d.py:1)"]


# ---- private attributes ----------------------------------------------------------------------
def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_own_object(node):
    """self, cls or super(): the object whose class this module defines."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def owned_private_names(tree):
    """The private attribute names a module defines: its classes' private methods and class
    attributes, __slots__ entries, and what it assigns to self._x / cls._x."""
    owned = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    owned.add(item.name)
                targets = item.targets if isinstance(item, ast.Assign) else (
                    [item.target] if isinstance(item, ast.AnnAssign) else [])
                for t in targets:
                    if isinstance(t, ast.Name):
                        owned.add(t.id)
                        if t.id == "__slots__" and isinstance(item.value, (ast.Tuple, ast.List)):
                            owned.update(e.value for e in item.value.elts if isinstance(e, ast.Constant))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_own_object(node.value):
            owned.add(node.attr)
    return {n for n in owned if _is_private(n)}


def private_reads(path, root):
    """["file:line expression"] of every x._name in the module where x is not self/cls and
    `_name` is not a private name this module defines."""
    tree = ast.parse(path.read_text(), str(path))
    owned = owned_private_names(tree)
    rel = path.relative_to(root).as_posix()
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _is_private(node.attr) and not _is_own_object(node.value)
                and node.attr not in owned):
            expr = ast.unparse(node)
            if (rel, expr) not in ALLOWED_PRIVATE:
                out.append((node.lineno, expr))
    return [f"{rel}:{line} {expr}" for line, expr in sorted(out)]


def test_no_module_reaches_into_another_modules_private_attributes():
    found = [hit for path in sorted(PKG.rglob("*.py")) for hit in private_reads(path, PKG)]
    assert not found, "private attributes of other modules' objects:\n" + "\n".join(found)


def test_the_private_attribute_check_flags_foreign_names_only(tmp_path):
    (tmp_path / "m.py").write_text(
        "class A:\n"
        "    __slots__ = ('_slot',)\n"
        "    _table = {}\n"
        "    def __init__(self, sim):\n"
        "        self._sim = sim\n"
        "    def _helper(self):\n"
        "        return A._table, self._sim.now, other._slot\n"
        "    def go(self, fut):\n"
        "        self._sim._call_soon(fut)\n"
        "        fut._exc = None\n"
        "        return super()._helper(), self.__class__, fut._value\n")
    assert private_reads(tmp_path / "m.py", tmp_path) == [
        "m.py:9 self._sim._call_soon", "m.py:10 fut._exc", "m.py:11 fut._value"]
