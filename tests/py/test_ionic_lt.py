"""The ionic NIC in lt fidelity (docs/fidelity.md): the document's "fidelity": "lt" and
sim.set_fidelity put its DMA, and with it the Ethernet queues, the P4 pipeline and the RDMA
path, on direct memory access with the TLPs' time annotated. Runs repeat exactly. Where no two
transfers share a link at once the device's timeline is tlp's: what differs is the MSI that in
tlp waits behind the completion write before it. The NIC takes the decisions that depend on what
the host writes by MMIO at its own time, not ahead of the host: a devcmd's done bit becomes
visible at the device's time whatever the quantum, and a doorbell rung while the NIC runs ahead
continues its service pass instead of starting a second one."""
import os

from dpusim.scenario_file import load_scenario
from dpusim.testing import run_ok
from ionic_util import ROOT, bring_up, frame, ionic_platform

NIC_DMA = ("02:00.0", "03:00.0")


def scenario(name, fidelity, **timing):
    fn, doc = load_scenario(os.path.join(ROOT, "scenarios", name))
    doc = dict(doc, fidelity=fidelity, outputs={"vcd": False, "pcap": False})
    if timing:
        doc["timing"] = timing
    return fn, doc


def nic_dma_tlps(res):
    return [t for t in res.events("tlp") if t["requester"] in NIC_DMA and t["type"] in ("MRd", "MWr")]


def test_the_document_puts_both_nics_in_lt_and_runs_repeat_exactly():
    tlp = run_ok(*scenario("ionic_bringup.py", "tlp"))
    a = run_ok(*scenario("ionic_bringup.py", "lt"))
    b = run_ok(*scenario("ionic_bringup.py", "lt"))
    assert a.hash == b.hash != tlp.hash
    assert a.events("platform_start")[0]["fidelity"] == "lt"
    assert [e["path"] for e in a.events("fidelity")] == ["ep0.requester", "ep1.requester"]
    # The same frames, byte for byte (the scenario checks them); the probe 42.4 ns earlier. Ten
    # admin-queue MSIs each leave behind their completion write on the NIC's link as in tlp but
    # do not queue behind it again on the switch's upstream link (0.381 ns each); and the
    # devcmds run inside the doorbell's write, so the port info and LIF status that PORT_INIT
    # and LIF_INIT write by DMA are on the link in tlp when the driver's read of done comes back
    # (a completion does not pass a posted write), while in lt they are direct.
    assert tlp.result == {"probed_ps": 81494722, "frames": {"02:00.0": 6, "03:00.0": 6}}
    assert a.result == {"probed_ps": 81452310, "frames": {"02:00.0": 6, "03:00.0": 6}}
    # The NICs' DMA is direct; config and MMIO from the host stay TLPs.
    assert len(nic_dma_tlps(tlp)) == 431 and nic_dma_tlps(a) == []
    assert {e["path"] for e in a.events("dma")} == {"ep0.requester", "ep1.requester"}
    assert len(a.events("dma")) == 132
    assert any(t["type"] == "MWr" and t["requester"] == "00:00.0" for t in a.events("tlp"))


async def probe_only(sim):
    await bring_up(sim, open_=False)
    return sim.now


def test_devcmd_done_is_seen_at_the_device_time_whatever_the_quantum():
    # With a firmware delay (ionic.devcmd_ps; rocm-ernic's is 0) the driver polls done every
    # 100 us. Run ahead by up to the quantum, the NIC still publishes done at its own time, so
    # even a 1 ms quantum probes in the same simulated time.
    ends = {}
    for fidelity, quantum in (("tlp", None), ("lt", None), ("lt", 100_000_000), ("lt", 1_000_000_000)):
        doc = dict(ionic_platform({}), fidelity=fidelity, timing={"ionic.devcmd_ps": 2_000_000})
        if quantum:
            doc["timing"]["lt.quantum_ps"] = quantum
        res = run_ok(probe_only, doc)
        ends[fidelity, quantum] = (res.result, [(e["cmd"], e["time_ps"]) for e in res.events("devcmd")])
    assert ends["tlp", None][0] == 1448644198
    assert ends["lt", None][0] == ends["lt", 100_000_000][0] == ends["lt", 1_000_000_000][0] == 1448642293
    # Every devcmd completes at the same time in both modes.
    assert ends["lt", 1_000_000_000][1] == ends["tlp", None][1]
    assert ends["tlp", None][1][-1] == ("Q_INIT", 1341857712)


def device_timeline(res):
    kinds = ("tx_frame", "rx_frame", "p4_verdict", "intr")
    events = sorted((e for e in res.events() if e["event"] in kinds and e["path"] == "ep0"), key=lambda e: e["time_ps"])
    return [(e["event"], e.get("cause")) for e in events], [e["time_ps"] for e in events]


def test_a_doorbell_rung_while_the_nic_runs_ahead_continues_its_pass():
    # The guest rings one TX doorbell per frame; in lt the NIC has sent the first frame and
    # found its ring empty before the host's second doorbell reaches it in the kernel's time.
    # It decides at its own time, so the three frames are one pass and one interrupt, as in tlp.
    tlp = run_ok(*scenario("ionic_p4_loopback.py", "tlp"))
    lt = run_ok(*scenario("ionic_p4_loopback.py", "lt"))
    (tlp_kinds, tlp_times), (lt_kinds, lt_times) = device_timeline(tlp), device_timeline(lt)
    assert lt_kinds == tlp_kinds
    assert tlp_kinds[-10:] == [("tx_frame", None), ("p4_verdict", None), ("tx_frame", None), ("rx_frame", None),
                               ("p4_verdict", None), ("tx_frame", None), ("rx_frame", None), ("p4_verdict", None),
                               ("rx_frame", None), ("intr", "coalesced")]
    # The datapath itself takes exactly as long: first frame out to last frame in.
    frames = [i for i, (k, _) in enumerate(tlp_kinds) if k in ("tx_frame", "rx_frame")]
    span = lambda times: times[frames[-1]] - times[frames[0]]  # noqa: E731
    assert span(lt_times) == span(tlp_times) == 2382916
    # Everything before it is 19.3 to 23.1 ns earlier (the bring-up's DMA and MSIs, as above).
    assert sorted(set(t - l for t, l in zip(tlp_times, lt_times)))[::10] == [19301, 23111]


def test_set_fidelity_switches_one_nic_after_bring_up():
    async def traffic(sim):
        _, (a, b) = await bring_up(sim)
        await sim.set_fidelity("lt", device="ep0")
        sent = {a: [], b: []}
        for n, size in enumerate((60, 200, 1514)):
            for src, dst in ((a, b), (b, a)):
                f = frame(dst.mac, src.mac, size, fill=n)
                sent[dst].append(f)
                await src.send(f)
        got = {nic: [f for _, f in await nic.recv(3)] for nic in (a, b)}
        return (got[a] == sent[a], got[b] == sent[b], sim.fidelity("ep0"), sim.fidelity("ep1"),
                sim.platform.direct_accesses("ep0"), sim.platform.direct_accesses("ep1"))

    res = run_ok(traffic, ionic_platform({}, {}, wires=[("ep0", "ep1")]))
    # ep0's direct reads: 3 TX descriptors, 3 frames, 3 RX descriptors; writes: 3 TX completions,
    # 3 received frames, their 3 completions. ep1 stays TLP by TLP.
    assert res.result == (True, True, "lt", "tlp", (9, 9), (0, 0))
    assert [(e["path"], e["mode"]) for e in res.events("fidelity")] == [("ep0.requester", "lt")]


def test_rdma_in_lt_moves_the_same_bytes_in_nearly_the_same_time():
    tlp = run_ok(*scenario("rdma_pingpong.py", "tlp"))
    lt = run_ok(*scenario("rdma_pingpong.py", "lt"))  # the scenario checks every payload
    assert nic_dma_tlps(lt) == [] and lt.events("dma")
    expected = {"SEND 1000 B": (5440291, 5439529), "RDMA_WRITE 6000 B": (5697840, 5697078),
                "RDMA_READ 3000 B": (5469282, 5465346)}
    for way in ("ep0->ep1", "ep1->ep0"):
        for what, (t, l) in expected.items():
            assert (tlp.result[f"{way} {what}"], lt.result[f"{way} {what}"]) == (t, l), (way, what)
    # Within 4 ns: what follows a direct write waits for it to leave the NIC's link, as in tlp.
    fp8 = run_ok(*scenario("fp8_allreduce.py", "lt"))  # every node equals the exact reference
    assert nic_dma_tlps(fp8) == []
