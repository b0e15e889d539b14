"""pcie-bench in simulation: the DMA experiments of pcie-bench (Neugebauer et al., "Understanding
PCIe performance for end host networking", SIGCOMM 2018) run on the test endpoint's bench
engine (models/testep/bench_engine.h) under the timing profile that models pcie-bench's
system, each point printed beside the measurement it reproduces (github.com/pcie-bench/data:
NFP6000, Gen3 x8, MPS 256, MRRS 512, host-warm, 8 KB window, sequential).

    ./dpusim bench pcie [--profile NAME]

Then LAT_RD with the host's cache cold and with the buffers on the other socket, each under a
profile of its own. --profile runs every point of the table under another profile (e.g. doca-gen4x16, the default) to show how
far it is from the measurements. 201 transactions per latency point, 4000 per bandwidth point
(about 10 s). The measured
figures are medians (latency) and totals over the run (bandwidth), as pcie-bench reports them.
docs/timing.md, Calibration, says what was fitted to what."""
import sys

from dpusim.drivers import testep as tep
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run, take_profile_option

# lat_dma_sizes.txt, nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630: Med(ns), Seq, HWarm, 8KB.
LAT_RD = {8: 533, 64: 546, 256: 626, 512: 706, 2048: 1133}
LAT_WRRD = {8: 760, 64: 773, 256: 880, 512: 1013, 2048: 1840}
# bw_dma_sz_sweep.txt, nfp6000-1.2GHz_bdw-Xeon-E5-2630v4-dell-t430-s0-s0-s0: Gb/s, HWarm, 8KB.
BW_RD = {64: 31.9, 128: 43.8, 256: 47.7, 512: 55.0, 2048: 55.6}
BW_WR = {64: 24.3, 128: 42.4, 256: 50.5, 512: 53.0, 2048: 53.0}
TLP_LAYER_GBPS = 57.88  # pcie-model: Gen3 x8, MPS 256, after encoding, ACK/FC DLLPs and SKIP
LAT_PROFILE, BW_PROFILE = "pcie-bench-e5-2620v3-gen3x8", "pcie-bench-e5-2630v4-gen3x8"
# The host's part of a read, cold and remote (each a profile of its own, fitted on one point):
# lat_dma_sweep_rd_rnd_64.txt of the E5-2620 v3, Cold, 8KB window, 64 B: Med(ns); and
# lat_dma_sizes.txt of the E5-2630 v4 with the buffers on the other socket (s0-s1-s1), HWarm.
VARIANTS = [("pcie-bench-e5-2620v3-gen3x8-cold", "cold", {64: 600}),
            ("pcie-bench-e5-2630v4-gen3x8-remote", "remote NUMA", {8: 626, 64: 640, 256: 693})]

PCI_EXP_DEVCTL = 0x08
NFP_DEVCTL = 1 << 5 | 2 << 12  # Max_Payload_Size 256, Max_Read_Request_Size 512, Extended Tags off
NFP_TAGS = 32                  # the NFP6000 reports ExtTag-: 5-bit tags


def experiment(points, lat_count, bw_count):
    """A scenario running `points` [(test, size)] on one test endpoint; returns their results."""
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dev = pci.find("02:00.0")
        exp = dev.cap(0x10)
        await sim.host.config_write(dev.bdf, exp + PCI_EXP_DEVCTL, NFP_DEVCTL, 2)
        # pcie-bench's buffers lie above 4 GiB (sys-dma-addrs.txt): 4DW headers, 24 B on the
        # wire for MRd and MWr. An allocation larger than the low window goes above 4 GiB.
        window = sim.host.alloc((3 << 30) + 8192, 4096)
        assert window >> 32, "the bench window must lie above 4 GiB"
        out = []
        for test, size in points:
            count = lat_count if test.startswith("LAT") else bw_count
            r = await tep.run_bench(sim, dev, test, size, count, window, outstanding=NFP_TAGS)
            out.append((test, size, count, r))
        return out
    return scenario


def run_points(profile, points, lat_count, bw_count):
    doc = {"topology": {"endpoints": 1}, "timing": {"profile": profile},
           "outputs": {"vcd": False, "log": "none"}}
    res = run(experiment(points, lat_count, bw_count), doc)
    res.check()
    return res.result


def gbps(size, count, elapsed_ps):
    return size * count * 8 / elapsed_ps * 1000  # bits per ps -> Gb/s


def line(test, size, model, measured, unit):
    pct = (model - measured) / measured * 100
    fmt = "{:.0f}" if unit == "ns" else "{:.1f}"
    return (f"pcie-bench {test} {size} B: model {fmt.format(model)} {unit}, measured {fmt.format(measured)} {unit} "
            f"({pct:+.1f}%)"), abs(pct)


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    argv = list(argv)
    profile = take_profile_option(argv, "dpusim bench pcie")
    if argv:
        sys.exit(f"dpusim bench pcie: expected [--profile NAME], not {argv}")
    lat_count, bw_count = 201, 4000
    lat_points = [("LAT_RD", s) for s in LAT_RD] + [("LAT_WRRD", s) for s in LAT_WRRD]
    bw_points = [("BW_RD", s) for s in BW_RD] + [("BW_WR", s) for s in BW_WR]
    results = run_points(profile or LAT_PROFILE, lat_points, lat_count, bw_count)
    results += run_points(profile or BW_PROFILE, bw_points, lat_count, bw_count)
    worst = 0.0
    goal = []
    for test, size, count, r in results:
        measured = {"LAT_RD": LAT_RD, "LAT_WRRD": LAT_WRRD, "BW_RD": BW_RD, "BW_WR": BW_WR}[test][size]
        if test.startswith("LAT"):
            text, err = line(test, size, r["lat_med_ns"], measured, "ns")
        else:
            text, err = line(test, size, gbps(size, count, r["elapsed_ps"]), measured, "Gb/s")
        if test != "LAT_WRRD":
            worst = max(worst, err)
        print(text)
    # The TLP layer: 2 KB writes saturate the link; count the bytes each MWr of 256 B takes on
    # the wire (24 B of header, framing and LCRC besides the payload, as pcie-model counts them).
    test, size, count, r = next(x for x in results if x[0] == "BW_WR" and x[1] == 2048)
    tlp_bytes = count * (size // 256) * (256 + 24)
    tlp = tlp_bytes * 8 / r["elapsed_ps"] * 1000
    err = abs(tlp - TLP_LAYER_GBPS) / TLP_LAYER_GBPS * 100
    print(f"pcie-bench TLP-layer bandwidth (BW_WR 2048 B): model {tlp:.2f} Gb/s, pcie-model {TLP_LAYER_GBPS:.2f} Gb/s "
          f"({(tlp - TLP_LAYER_GBPS) / TLP_LAYER_GBPS * 100:+.2f}%)")
    print(f"worst point of the table (LAT_RD, BW_RD, BW_WR): {worst:.1f}% (goal 10%); TLP layer {err:.2f}% (goal 1%)")
    if profile is None:
        for name, label, measured in VARIANTS:
            for test, size, count, r in run_points(name, [("LAT_RD", s) for s in measured], lat_count, bw_count):
                print(line(f"{test} ({label})", size, r["lat_med_ns"], measured[size], "ns")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
