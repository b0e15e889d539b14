"""Each invariant fails the run at the event that broke it, naming its time and path."""
import re

from dpusim.drivers import testep as tep
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run
from dpusim.units import us

PLATFORM = {"topology": {"endpoints": 1}}


def violation(res, kind):
    assert not res.ok, "the run must fail"
    assert f"invariant {kind} violated" in res.failure, res.failure
    m = re.search(r"time_ps=(\d+) path=(\S+):", res.failure)
    (event,) = [e for e in res.events("invariant_violation") if e["kind"] == kind]
    assert (int(m.group(1)), m.group(2)) == (event["time_ps"], event["path"])
    assert event["expected"] is False
    return event


def test_dropped_completion_fails_the_run_by_timeout():
    async def scenario(sim):
        await pci_host_probe(sim)
        sim.faults.drop(type="CplD", path="link_dsp0")
        await sim.host.config_read("02:00.0", 0)
        raise AssertionError("not reached: the violation stops the run")

    res = run(scenario, PLATFORM)
    event = violation(res, "completion_timeout")
    assert event["path"] == "host"
    assert res.error is None


def test_duplicated_completion_fails_the_run_as_unexpected():
    async def scenario(sim):
        await pci_host_probe(sim)
        sim.faults.duplicate(type="CplD", path="link_host")
        await sim.host.config_read("02:00.0", 0)
        await sim.sleep(us(1))

    res = run(scenario, PLATFORM)
    event = violation(res, "unexpected_completion")
    assert event["path"] == "host"
    dup = res.events("tlp", duplicate=True)
    assert len(dup) == 1 and event["time_ps"] == dup[0]["rx_ps"]


def test_type1_config_below_its_target_bus_fails_the_run():
    async def scenario(sim):
        await pci_host_probe(sim)
        await sim.host.send_tlp("CfgRd1", target="00:00.0", reg=0, first_be=0xF)

    res = run(scenario, PLATFORM)
    event = violation(res, "type1_below_target_bus")
    assert event["path"] == "link_host"


def test_dma_outside_host_memory_fails_the_run():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dev = pci.find("02:00.0")
        await tep.start_dma(sim, dev, 0x7000_0000, 0, 64, to_host=True)
        await sim.sleep(us(10))

    res = run(scenario, PLATFORM)
    event = violation(res, "dma_outside_memory")
    assert event["path"] == "host"
    (refused,) = res.events("dma_outside_memory")
    assert refused["addr"] == "0x70000000" and refused["op"] == "write"


def test_a_declared_violation_is_logged_and_does_not_fail():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        sim.expect_violation("dma_outside_memory")
        dev = pci.find("02:00.0")
        await tep.start_dma(sim, dev, 0x7000_0000, 0, 64, to_host=False)
        status = await tep.wait_dma(sim, dev)
        assert status == tep.TEP_DMA_STATUS_ERROR  # the read got UR

    res = run(scenario, PLATFORM)
    assert res.ok, res.describe()
    (event,) = res.events("invariant_violation")
    assert event["expected"] is True
