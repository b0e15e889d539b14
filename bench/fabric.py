"""Fabric benchmark: config-read round trips per wall second from C++ and from Python, with
the event log off and on, and the per-operation cost of the Python runtime.

    ./dpusim bench fabric [N]

The wall clock is read here, around runs, never inside the simulation. Each figure comes from
its own platform process."""
import os
import subprocess
import sys
import time

from dpusim.run import run

BUILD = os.environ.get("DPUSIM_BUILD_DIR", os.path.join(os.environ["DPUSIM_ROOT"], "build"))


def python_round_trips(n, log_on):
    async def scenario(sim):
        sim.platform.set_log_enabled(log_on)
        h = sim.host
        await h.config_write("00:00.0", 0x18, 0x00020100)
        await h.config_write("01:00.0", 0x18, 0x00020201)
        t0 = time.perf_counter()
        for _ in range(n):
            await h.config_read("02:00.0", 0)
        return time.perf_counter() - t0

    res = run(scenario, {"topology": {"endpoints": 1}, "outputs": {"vcd": False}},
              out="/tmp/dpusim-bench-fabric" if log_on else None)
    res.check()
    return res.result


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    if argv and not argv[0].isdigit():
        sys.exit(f"dpusim bench fabric: N must be a positive number of round trips, not {argv[0]!r}")
    n = int(argv[0]) if argv else 2_000_000
    sys.stdout.flush()
    out = subprocess.run([os.path.join(BUILD, "bench", "dpusim-bench-fabric"), str(n)], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    print(out, end="")
    cxx_off = None
    for line in out.splitlines():
        if "log off" in line:
            cxx_off = float(line.split("round trips/s")[0].split()[-1])
    pn = max(n // 20, 1000)
    rates = {}
    for log_on in (False, True):
        seconds = python_round_trips(pn, log_on)
        rates[log_on] = pn / seconds
        print(f"Python  log {'on ' if log_on else 'off'}  {pn:9d} round trips in {seconds:6.3f} s  "
              f"{rates[log_on]:10.0f} round trips/s")
    if cxx_off:
        overhead_us = (1 / rates[False] - 1 / cxx_off) * 1e6
        print(f"Python runtime overhead per awaited operation: {overhead_us:.1f} us "
              f"(Python {1e6 / rates[False]:.2f} us/op vs C++ {1e6 / cxx_off:.3f} us/op, log off)")


if __name__ == "__main__":
    main(sys.argv[1:])
