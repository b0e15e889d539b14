"""RTL co-simulation benchmark (C++; docs/cosim.md): fp8 elements per second through the verilated
fp8 unit beside the C++ codec, then DMA copies per second through the verilated DMA endpoint
beside the C++ test endpoint's DMA engine.

    ./dpusim bench cosim [--elements N] [--clock-ps P] [--copy-bytes B] [--seconds S]

--elements and --clock-ps go to the fp8 unit's table (build/bench/dpusim-bench-cosim),
--copy-bytes to the DMA table (build/bench/dpusim-bench-cosim-dma, built where DPUSIM_RTL is on),
--seconds to both."""
import os
import subprocess
import sys

from formats import BUILD  # bench/formats.py, beside this file

FP8_ONLY = ("--elements", "--clock-ps")
DMA_ONLY = ("--copy-bytes",)


def split(args):
    """(fp8 arguments, DMA arguments) of the command line's option/value pairs."""
    fp8, dma = [], []
    for i in range(0, len(args), 2):
        pair = args[i:i + 2]
        if pair[0] not in FP8_ONLY + DMA_ONLY + ("--seconds",):
            sys.exit(f"dpusim bench cosim: unknown argument {pair[0]}\n{__doc__}")
        if len(pair) < 2:
            sys.exit(f"dpusim bench cosim: missing value after {pair[0]}")
        if pair[0] not in DMA_ONLY:
            fp8 += pair
        if pair[0] not in FP8_ONLY:
            dma += pair
    return fp8, dma


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__)
        return 0
    fp8, dma = split(sys.argv[1:])
    rc = subprocess.call([os.path.join(BUILD, "bench", "dpusim-bench-cosim")] + fp8)
    if rc != 0:
        return rc
    print(flush=True)
    exe = os.path.join(BUILD, "bench", "dpusim-bench-cosim-dma")
    if not os.path.exists(exe):
        print("DMA endpoint: not built (DPUSIM_RTL=OFF: the RTL co-simulation is not built)")
        return 0
    return subprocess.call([exe] + dma)


if __name__ == "__main__":
    sys.exit(main())
