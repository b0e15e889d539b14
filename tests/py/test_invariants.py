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


# ---- the models' and the driver's own rules (docs/explore.md) ----------------------------------
def scenario_file(name):
    import os

    from dpusim.scenario_file import load_scenario
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return load_scenario(os.path.join(root, "scenarios", name))


def test_a_reset_hold_longer_than_its_bound_is_a_liveness_stall():
    """reset_during_mq_start.py holds the status at 0x40 for 45 ms: with a 10 ms bound the run
    fails 10 ms after the hold began."""
    fn, platform = scenario_file("reset_during_mq_start.py")
    doc = dict(platform, timing={"vnet.reset_hold_bound_ps": 10 * 10**9})
    res = run(fn, doc)
    event = violation(res, "liveness_stall")
    (held,) = [e for e in res.events("log") if e["msg"] == "RESET: holding device_status=0x40 until controller "
                                                           "cleanup completes"]
    assert event["path"] == "ep0.reset_hold" and event["time_ps"] == held["time_ps"] + 10 * 10**9
    assert "02:00.0 device_status held at 0x40 until its controller cleanup completes" in event["detail"]


def test_the_mq_start_enabling_a_pair_after_a_reset_is_caught_at_the_enable():
    fn, platform = scenario_file("explore_mq_reset.py")
    res = run(fn, platform, seed=3, explore=["choice.rebind_ms", "vnet.work.vq_start_ps"])
    assert "invariant vq_enabled_after_reset violated" in res.failure
    # The group enable of queue pairs 1..3 (VQ2..VQ7), each enable a violation, the first fails the run.
    events = res.events("invariant_violation", kind="vq_enabled_after_reset")
    assert [e["detail"].split(" ")[0] for e in events] == ["VQ2", "VQ3", "VQ4", "VQ5", "VQ6", "VQ7"]
    first = events[0]
    assert f"time_ps={first['time_ps']} path=ep0:" in res.failure
    (reset,) = res.events("log", msg="VirtIO device reset [finished]", time_ps=res.events("reset_generation",
                                                                                            gen=3)[0]["time_ps"])
    assert reset["time_ps"] < first["time_ps"]
    assert first["detail"].startswith("VQ2 of 02:00.0 enabled after the host reset the device (generation 3)")


def test_a_status_the_driver_never_wrote_is_unreachable():
    """A second agent writes DRIVER|ACKNOWLEDGE behind the driver's back: the driver, which
    wrote DRIVER_OK last, reads a value the status machine cannot hold after its own write."""
    from dpusim.drivers.pci import pci_host_probe
    from dpusim.drivers.virtio_net import VirtioNet, virtio_net_devices
    from dpusim.drivers.virtio_regs import VIRTIO_PCI_COMMON_STATUS

    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (dev,) = virtio_net_devices(pci)
        net = await VirtioNet(sim, pci, dev).probe()
        await sim.host.mem_write8(net.common + VIRTIO_PCI_COMMON_STATUS, 0x03)
        await net.get_status()
        await sim.sleep(1)

    res = run(scenario, {"topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0}}})
    event = violation(res, "status_unreachable")
    assert event["path"] == "host.virtio_net"
    assert event["detail"] == "02:00.0: device_status read 0x03 after the driver wrote 0x0f"
