"""The pcie-bench calibration (docs/timing.md, Profiles and Calibration): named timing profiles
in the platform document, and the test endpoint's pcie-bench engine run under the profile that
models pcie-bench's system, its figures asserted exactly (./dpusim bench pcie prints them
beside the measurements)."""
from dpusim.drivers import testep as tep
from dpusim.drivers.pci import pci_host_probe
from dpusim.testing import run_ok

PROFILE = "pcie-bench-e5-2620v3-gen3x8"


def test_profile_sets_its_values_and_overrides_beside_it_win():
    async def scenario(sim):
        return {n: sim.cost(n) for n in ("link.host.gen", "link.host.width", "link.dllp_share_ppm",
                                         "host.mem_read_ps", "switch.traversal_ps")}

    res = run_ok(scenario, {"topology": {"endpoints": 1},
                            "timing": {"profile": PROFILE, "host.mem_read_ps": 1000}})
    assert res.result == {"link.host.gen": 3, "link.host.width": 8, "link.dllp_share_ppm": 81419,
                          "host.mem_read_ps": 1000, "switch.traversal_ps": 0}
    # The cold-cache and remote-NUMA variants differ in the host's read latency only.
    for name, mem_read_ps in (("pcie-bench-e5-2620v3-gen3x8-cold", 555000), ("pcie-bench-e5-2630v4-gen3x8-remote", 596000)):
        res = run_ok(scenario, {"topology": {"endpoints": 1}, "timing": {"profile": name}})
        assert res.result == {"link.host.gen": 3, "link.host.width": 8, "link.dllp_share_ppm": 81419,
                              "host.mem_read_ps": mem_read_ps, "switch.traversal_ps": 0}
    res = run_ok(scenario, {"topology": {"endpoints": 1}, "timing": {"profile": "doca-gen4x16"}})
    assert res.result == {"link.host.gen": 4, "link.host.width": 16, "link.dllp_share_ppm": 0,
                          "host.mem_read_ps": 100000, "switch.traversal_ps": 100000}


def test_pcie_bench_points_under_the_profile():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dev = pci.find("02:00.0")
        exp = dev.cap(0x10)
        await sim.host.config_write(dev.bdf, exp + 0x08, 1 << 5 | 2 << 12, 2)  # MPS 256, MRRS 512
        window = sim.host.alloc((3 << 30) + 8192, 4096)  # above 4 GiB, as pcie-bench's buffers
        out = {}
        for test, size, count in (("LAT_RD", 64, 5), ("LAT_RD", 2048, 3), ("LAT_WRRD", 8, 3),
                                  ("BW_RD", 256, 64), ("BW_WR", 64, 64)):
            r = await tep.run_bench(sim, dev, test, size, count, window, outstanding=32)
            out[test, size] = r
        # A transfer size the engine cannot do: an error status, nothing issued.
        try:
            await tep.run_bench(sim, dev, "LAT_RD", 4097, 1, window)
            out["bad"] = "accepted"
        except RuntimeError as e:
            out["bad"] = str(e)
        return out

    res = run_ok(scenario, {"topology": {"endpoints": 1}, "timing": {"profile": PROFILE}})
    r = res.result
    got = {k: (v["lat_med_ns"], v["lat_min_ns"], v["lat_max_ns"], v["elapsed_ps"], v["done"])
           for k, v in r.items() if k != "bad"}
    assert got == EXPECTED
    # Two of them from the arithmetic of docs/timing.md, computed here: a LAT_RD of 64 B is the
    # engine's issue (7 + 9 ns), the MRd (24 B on the wire) on both links of the switch, the
    # host's 502 ns and the CplD (84 B) back over both links; a BW_WR of 64 writes of 64 B is
    # 64 issues of 18 + 3.1 ns (the link is faster), then the last MWr (88 B) on the wire.
    assert r["LAT_RD", 64]["elapsed_ps"] == 5 * (16000 + 2 * ser(24) + 502000 + 2 * ser(84))
    assert r["BW_WR", 64]["elapsed_ps"] == 64 * 21100 + ser(88)
    assert "LAT_RD 4097 B" in r["bad"] and "error" in r["bad"]
    errors = res.events("bench_error")
    assert [e["reason"] for e in errors] == ["SIZE 4097 outside 1..4096 bytes"]


def ser(nbytes):
    """ps on a Gen3 x8 link with pcie-bench's DLLP share: bytes x 8 x 130/128 / 64 Gb/s / (1 - share)."""
    n, d = nbytes * 8 * 130 * 10**12, 128 * 8000 * 8 * (10**6 - 81419)
    return -(-n // d)


# (median, min, max latency in ns, elapsed ps, transactions done), as simulated.
EXPECTED = {
    ("LAT_RD", 64): (547, 547, 547, 2739270, 5),
    ("LAT_RD", 2048): (1146, 1146, 1146, 3440817, 3),
    ("LAT_WRRD", 8): (553, 553, 553, 1660422, 3),
    ("BW_RD", 256): (0, 0, 0, 3336924, 64),
    ("BW_WR", 64): (0, 0, 0, 1362563, 64),
}
