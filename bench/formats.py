"""Numeric-format benchmark: elements per wall second of the codec's conversions (C++).

    ./dpusim bench formats [--elements N] [--seconds S]

A thin front for build/bench/dpusim-bench-formats, so every benchmark is `bench/NAME.py`."""
import os
import sys

BUILD = os.environ.get("DPUSIM_BUILD_DIR", os.path.join(os.environ["DPUSIM_ROOT"], "build"))

if __name__ == "__main__":
    exe = os.path.join(BUILD, "bench", "dpusim-bench-formats")
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__)
        sys.exit(0)
    os.execv(exe, [exe] + sys.argv[1:])
