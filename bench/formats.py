"""Numeric-format benchmark: elements per wall second of the codec's conversions (C++).

    ./dpusim bench formats [--elements N] [--seconds S]

A thin front for build/bench/dpusim-bench-formats, so every benchmark is `bench/NAME.py`."""
import os
import sys

BUILD = os.environ.get("DPUSIM_BUILD_DIR", os.path.join(os.environ["DPUSIM_ROOT"], "build"))


def exec_native(program, doc):
    """Replaces this process with build/bench/PROGRAM and the command line's arguments (--help:
    prints `doc`). The front of every benchmark written in C++."""
    exe = os.path.join(BUILD, "bench", program)
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(doc)
        sys.exit(0)
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    exec_native("dpusim-bench-formats", __doc__)
