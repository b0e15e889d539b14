"""docs/timing.md lists every timing parameter the models declare, with its default: the
profile is the models' own (each declares its parameters), the page is where users read them."""
import os
import re
from fractions import Fraction

import _dpusim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UNITS = {"ps": 1, "ns": 10**3, "µs": 10**6, "us": 10**6, "ms": 10**9, "s": 10**12}


def documented():
    """{name: default cell} of every table row of docs/timing.md."""
    rows = {}
    with open(os.path.join(ROOT, "docs", "timing.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| `([a-z0-9_.]+)` \| ([^|]+) \|", line)
            if m:
                assert m.group(1) not in rows, f"docs/timing.md lists {m.group(1)} twice"
                rows[m.group(1)] = m.group(2).strip()
    return rows


def cell_value(cell, unit):
    """The default a cell states: "50 000 000 000 (50 ms)", "2 µs", "256 frames", "16"."""
    cell = cell.split("(")[0].strip()
    m = re.fullmatch(r"([0-9][0-9 ]*(?:\.[0-9]+)?)\s*([a-zµ]*)", cell)
    assert m, f"unreadable default {cell!r}"
    number = Fraction(m.group(1).replace(" ", ""))
    suffix = m.group(2)
    if unit == "ps" and suffix in UNITS:
        return number * UNITS[suffix]
    return number


def test_every_parameter_is_documented_with_its_default():
    rows = documented()
    params = _dpusim.platform.timing_params()
    missing = [name for name, *_ in params if name not in rows]
    assert not missing, f"docs/timing.md does not list {missing}"
    wrong = [(name, rows[name], default) for name, default, _lo, _hi, unit in params
             if cell_value(rows[name], unit) != default]
    assert not wrong, f"docs/timing.md states other defaults than the models: {wrong}"


def test_every_documented_parameter_exists():
    known = {name for name, *_ in _dpusim.platform.timing_params()}
    # The RTL blocks' parameters exist only in a build with the RTL (docs/cosim.md).
    optional = set() if _dpusim.build_options["DPUSIM_RTL"] else {n for n in documented() if n.startswith("rtl.")}
    stale = sorted(set(documented()) - known - optional)
    assert not stale, f"docs/timing.md lists parameters no model declares: {stale}"


def documented_exploration():
    """{name: exploration cell} of every table row of docs/timing.md."""
    rows = {}
    with open(os.path.join(ROOT, "docs", "timing.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| `([a-z0-9_.]+)` \| [^|]+ \| [^|]+ \| ([^|]+) \|", line)
            if m:
                rows[m.group(1)] = m.group(2).strip()
    return rows


def exploration_cell(cell):
    """("per_use" | "per_run", lo %, hi %, + ps) from "per use, 50–200 %", "per run, +0–20 ms",
    or None from "—"."""
    if cell == "—":
        return None
    m = re.fullmatch(r"per (use|run), (?:(\d+)–(\d+) %)? ?(?:\+0–([0-9]+) ([a-zµ]+))?", cell)
    assert m and (m.group(2) or m.group(4)), f"unreadable exploration range {cell!r}"
    lo, hi = (int(m.group(2)), int(m.group(3))) if m.group(2) else (100, 100)
    add = int(m.group(4)) * UNITS[m.group(5)] if m.group(4) else 0
    return ("per_" + m.group(1), lo, hi, add)


def test_every_exploration_range_is_documented_as_declared():
    rows = documented_exploration()
    ranges = _dpusim.platform.explore_ranges()
    for name, *_ in _dpusim.platform.timing_params():
        assert exploration_cell(rows[name]) == (tuple(ranges[name]) if name in ranges else None), name
