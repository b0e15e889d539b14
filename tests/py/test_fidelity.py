"""Fidelity of endpoint DMA (tlm/dma.h, docs/fidelity.md): the platform's "fidelity" key,
sim.set_fidelity per device at run time, determinism in lt mode, direct accesses instead of
TLPs, TLP-accurate config and MMIO in both modes, and the control queue (whose used ring the
driver watches) still working in lt mode."""
import pytest

from dpusim.drivers import testep as tep
from dpusim.drivers.pci import pci_host_probe
from dpusim.testing import run_ok
from dpusim.units import ms, us
from vnet_util import bring_up, frame, vnet_platform


async def traffic(sim, switch=None):
    _, nets = await bring_up(sim)
    net = nets[0]
    if switch:
        await sim.set_fidelity(switch, device="ep0")
    t0 = sim.now
    for k in range(4):
        await net.send(frame(net.mac, k, 200))
    got = await net.recv(4)
    reads, writes = sim.platform.direct_accesses("ep0")
    return {"fidelity": sim.fidelity("ep0"), "frames": sorted(f for _, f in got), "elapsed": sim.now - t0,
            "direct": (reads, writes)}


def test_the_platform_key_puts_every_endpoint_in_lt_and_runs_repeat_exactly():
    doc = vnet_platform(num_ep=2)
    doc["fidelity"] = "lt"
    a = run_ok(traffic, doc)
    b = run_ok(traffic, doc)
    assert a.hash == b.hash
    assert a.result["fidelity"] == "lt"
    assert a.result["direct"][0] > 0 and a.result["direct"][1] > 0
    assert [e["path"] for e in a.events("fidelity")] == ["ep0.requester", "ep1.requester"]
    assert a.events("platform_start")[0]["fidelity"] == "lt"
    # Config and MMIO from the host stay TLPs; the endpoints' DMA does not.
    tlps = a.events("tlp")
    assert any(t["type"] == "CfgWr1" for t in tlps) and any(t["type"] == "MWr" and t["requester"] == "00:00.0"
                                                             for t in tlps)
    dma_tlps = [t for t in tlps if t["requester"] in ("02:00.0", "03:00.0") and t["type"] in ("MRd", "MWr")]
    assert len(dma_tlps) < len(a.events("dma")) / 10  # the rest are direct accesses


def test_switching_one_device_after_bring_up():
    tlp = run_ok(traffic, vnet_platform())
    lt = run_ok(lambda sim: traffic(sim, "lt"), vnet_platform())
    assert tlp.result["frames"] == lt.result["frames"]
    assert tlp.result["direct"] == (0, 0) and lt.result["direct"][0] > 0
    assert [(e["path"], e["mode"]) for e in lt.events("fidelity")] == [("ep0.requester", "lt")]
    # Bring-up was TLP by TLP in both; the traffic differs only by the contention lt leaves out.
    assert tlp.events("fidelity") == []
    assert abs(lt.result["elapsed"] - tlp.result["elapsed"]) < tlp.result["elapsed"] // 50


def test_the_control_queue_works_in_lt_and_back_to_tlp():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await sim.set_fidelity("lt")  # every endpoint
        assert await net.set_queue_pairs(2)
        await sim.set_fidelity("tlp", device="ep0")
        assert await net.set_queue_pairs(1)
        await net.send(frame(net.mac, 9))
        return len(await net.recv(1, timeout_ps=ms(10)))

    assert run_ok(scenario, vnet_platform()).result == 1


def test_unknown_device_or_mode_is_refused():
    async def scenario(sim):
        with pytest.raises(ValueError, match=r"no endpoint 'ep7' \(endpoints: ep0\)"):
            await sim.set_fidelity("lt", device="ep7")
        with pytest.raises(ValueError, match="fidelity 'fast' is not tlp or lt"):
            await sim.set_fidelity("fast")

    run_ok(scenario, vnet_platform())


def test_test_endpoints_behind_the_generic_switch_get_lt_too():
    """The generic switch forwards direct memory requests up where it would route the DMA: the
    test endpoint's engine reads and writes host memory directly, and its MSI still arrives."""
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dev = pci.find("02:00.0")
        irqs = await pci.alloc_irq_vectors(dev, 2)
        await pci.request_irq(dev, 1)
        await sim.set_fidelity("lt", device="ep0")
        src, dst = sim.host.alloc(8192), sim.host.alloc(8192)
        pattern = bytes((i * 5 + 1) & 0xFF for i in range(3000))
        sim.host.write(src + 1, pattern)
        await tep.start_dma(sim, dev, src + 1, 0, len(pattern), to_host=False, vector=1)
        await sim.host.wait_msi(data=irqs[1], timeout_ps=us(100))
        await tep.start_dma(sim, dev, dst + 7, 0, len(pattern), to_host=True, vector=1)
        await sim.host.wait_msi(data=irqs[1], timeout_ps=us(100))
        return sim.host.read(dst + 7, len(pattern)) == pattern, sim.platform.direct_accesses("ep0")

    res = run_ok(scenario, {"topology": {"endpoints": 1}})
    same, (reads, writes) = res.result
    assert same and reads == 1 and writes == 1
    assert not [e for e in res.events("tlp", requester="02:00.0") if e["type"] in ("MRd", "MWr") and e["path"] == "link_dsp0"
                and e.get("addr", "") != "0xfee01000"]
