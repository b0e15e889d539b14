"""RTL co-simulation benchmark: fp8 elements per second through the verilated fp8 unit beside the
C++ codec (C++; docs/cosim.md).

    ./dpusim bench cosim [--elements N] [--seconds S] [--clock-ps P]

A thin front for build/bench/dpusim-bench-cosim, so every benchmark is `bench/NAME.py`."""
from formats import exec_native  # bench/formats.py, beside this file

if __name__ == "__main__":
    exec_native("dpusim-bench-cosim", __doc__)
