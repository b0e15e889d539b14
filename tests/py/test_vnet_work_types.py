"""Every work type of the application's workqueue (docs/vnet.md, "Workqueue") queued, started and
finished; the stdin commands behind SPEED_CHANGE and HOTPLUG_EVENT; the slot's power edges
and the delayed destroy; the workqueue's shutdown at the end of the run."""
import struct

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_regs import VIRTIO_PCI_COMMON_STATUS
from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.vnet import vnet
from vnet_util import MS, S, after_app_seconds, app_log, bring_up, cost, first_time, msgs, vnet_platform, wait_mq_started

WORK_TYPES = ["PCI_CFG_WORK_VQ_CONFIG", "PCI_CFG_WORK_CONTROLLER_CLEANUP", "PCI_CFG_WORK_ENGINE_START",
              "PCI_CFG_WORK_INITIALIZE_VQS", "PCI_CFG_WORK_INITIALIZE_IO_CTX", "PCI_CFG_WORK_START_AND_ENABLE",
              "PCI_CFG_WORK_CREATE_STATS_LIST", "PCI_CFG_WORK_DEVICE_RESET", "PCI_CFG_WORK_DELAYED_DESTROY",
              "PCI_CFG_WORK_HOTPLUG_EVENT", "PCI_CFG_WORK_SPEED_CHANGE"]


async def static_life(sim):
    """Bring-up, a speed change, the register reset item, a device reset."""
    _, (net,) = await bring_up(sim)
    await wait_mq_started(sim, 0, 4)
    v = vnet(sim)
    v.command("speed 0 25000")
    await sim.wait_event("log", path="vnet.worker", msg="Speed change: done (100000 -> 25000 Mbps)")
    v.submit_work("PCI_CFG_WORK_DEVICE_RESET", 0)
    await sim.wait_event("work_finished", type="PCI_CFG_WORK_DEVICE_RESET")
    await net.reset()


DSP = "01:00.0"
SLTCTL, SLTSTA, LNKSTA = 0x78, 0x7A, 0x72
HPIE_ABPE_CCIE = 0x0020 | 0x0001 | 0x0010


async def hotplug_life(sim):
    """pciehp's side done by hand: interrupts enabled; plug; power on; unplug; power off."""
    pci = await pci_host_probe(sim)
    dsp = pci.find(DSP)
    v, h = vnet(sim), sim.host
    await h.config_write16(DSP, SLTCTL, 0x0400 | HPIE_ABPE_CCIE)
    mark = h.msi_mark()
    v.command("plug 0")
    await sim.wait_event("log", path="vnet.worker", msg="Async hotplug DSP[0] plug completed")
    plugged = await h.config_read16(DSP, SLTSTA)
    await h.wait_msi(data=dsp.irqs[0], since=mark, timeout_ps=MS)
    await h.config_write16(DSP, SLTSTA, plugged & 0x011F)     # pciehp clears the event bits
    await h.config_write16(DSP, SLTCTL, HPIE_ABPE_CCIE)       # power on
    link = await h.config_read16(DSP, LNKSTA)
    ep_id = await h.config_read32("02:00.0", 0)
    v.command("unplug 0")
    await sim.wait_event("log", path="vnet.worker", msg="Hotplug: DSP[0] unplug (pending host reset)")
    await h.config_write16(DSP, SLTCTL, 0x0400 | HPIE_ABPE_CCIE)  # power off
    await sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
    gone = (await h.config_read("02:00.0", 0)).status
    return plugged, link, ep_id, gone


def test_every_work_type_is_queued_started_and_finished_in_some_run():
    a = run_ok(static_life, vnet_platform())
    b = run_ok(hotplug_life, vnet_platform(hotplug_mode=1))
    for t in WORK_TYPES:
        for stage in ("work_queued", "work_started", "work_finished"):
            assert a.events(stage, type=t) or b.events(stage, type=t), f"{t} never {stage}"


def test_speed_change_bounces_the_link_with_config_interrupts():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        mark = sim.host.msi_mark()
        vnet(sim).command("speed 0 25000")
        await sim.wait_event("log", path="vnet.worker", msg="Speed change: done (100000 -> 25000 Mbps)")
        await sim.sleep(1_000_000)  # the second message reaches the host
        msis = [m.time_ps for m in sim.host.msis[mark:] if m.data == net.vectors[0]]
        return msis, await net.cread(0x0C, 4), await net.cread(0x06, 2), await net.r8(0x15)

    res = run_ok(scenario, vnet_platform(cpus=1))
    msis, speed, status, generation = res.result
    assert (speed, status, generation) == (25000, 1, 3)
    assert len(msis) == 2 and msis[1] - msis[0] == cost("vnet.speed_change.bounce_ps")
    main, worker = msgs(res, thread="vnet.main"), msgs(res, thread="vnet.worker")
    assert "Speed change EP[0] to 25000 Mbps (queuing to worker)" in main
    assert "Speed change to 25000 Mbps queued (async)" in main
    i = worker.index("Config MSI-X created (vector=0) - ready for config change notifications")
    assert worker[i + 1:i + 3] == ["Speed change: 100000 -> 25000 Mbps (link bounce + MSI-X)",
                                   "Speed change: done (100000 -> 25000 Mbps)"]


def test_stdin_grammar_and_its_refusals():
    async def scenario(sim):
        v = vnet(sim)
        for line in ("", "plug 0", "speed 3 100", "speed 0 0", "plug 5", "jump 1", "speed 0 x", "unplug 0 7"):
            v.command(line)

    res = run_ok(scenario, vnet_platform())
    assert msgs(res, level="error") == [
        "Hotplug commands require --hotplug mode", "EP index 3 out of range (max: 0)",
        "Speed value must be greater than 0 Mbps", "EP index 5 out of range (max: 0)",
        # read_cli_command checks the index of any "word number" line before the word.
        "EP index 1 out of range (max: 0)",
        "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>",
        "Hotplug commands require --hotplug mode"]


def test_hotplug_items_plug_power_unplug_and_destroy():
    res = run_ok(hotplug_life, vnet_platform(hotplug_mode=1))
    plugged, link, ep_id, gone = res.result
    assert plugged == 0x0049 | 0x0010  # ABP, PDC, PDS; and Command Completed of the SlotCtl write
    assert link & 0x2000 and ep_id == 0x10411AF4 and gone == "UR"
    worker = msgs(res, thread="vnet.worker", level="info")
    assert worker[worker.index("Creating device for DSP[0]"):][:5] == [
        "Creating device for DSP[0]", "Device created: VHCA ID=0x100",
        "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0", "Hotplug: DSP[0] plug",
        "Async hotplug DSP[0] plug completed"]
    # ABP|PDC|PDS, and CC of the Slot Control write that nobody cleared.
    assert "DSP Slot Status updated: present=1, status=0x0059, link_status=0x1104" in msgs(res, thread="vnet.worker")
    assert first_time(res, "Device created: VHCA ID=0x100") - first_time(res, "Creating device for DSP[0]") == \
        cost("vnet.work.create_device_ps")
    main = msgs(res, thread="vnet.main")
    assert "ACG enabled for MSI interrupts" in main and "ACG queue initialized: capacity=16" in main
    assert "Power ON (bit10: 1->0): DLActive set, link_status=0x3104" in main
    assert "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x1104" in main
    i = main.index("DSP[0] power off (DLActive=0) - triggering endpoint destroy")
    assert main[i + 1] == "Delayed device destroy queued"
    assert "Command Completed MSI sent" in main
    assert worker.index("Initiating unplug for DSP[0] - waiting for host power off") < worker.index(
        "Device unplugged (ABP mode): ABP=1, waiting for Host Power OFF") < worker.index(
        "Executing delayed destroy after host reset")


def test_shutdown_discards_queued_items_and_joins_mq_threads():
    async def scenario(sim):
        await bring_up(sim, open_=False)
        v = vnet(sim)
        v.command("speed 0 200")
        v.command("speed 0 300")   # queued behind the first: discarded at shutdown

    res = run_ok(scenario, vnet_platform())
    log = [(p, m) for _, p, _, m in app_log(res)]
    i = log.index(("vnet.main", "Shutting down PCI config workqueue (pending: 5, processed: 8)"))
    discarded = [e["type"] for e in res.events("work_discarded")]
    # Each VQ_CONFIG after DRIVER_OK queued another (idempotent) START_AND_ENABLE.
    assert discarded == ["PCI_CFG_WORK_START_AND_ENABLE", "PCI_CFG_WORK_START_AND_ENABLE",
                         "PCI_CFG_WORK_CREATE_STATS_LIST", "PCI_CFG_WORK_SPEED_CHANGE", "PCI_CFG_WORK_SPEED_CHANGE"]
    (dropped,) = res.events("work_dropped")
    assert (dropped["type"], dropped["reason"]) == ("PCI_CFG_WORK_CREATE_STATS_LIST", "shutdown")
    tail = [m for p, m in log[i:] if p != "vnet.mq0" and not m.startswith("Cleanup Step") and "IO context" not in m]
    assert tail[:2] == ["Shutting down PCI config workqueue (pending: 5, processed: 8)",
                        "PCI config workqueue worker thread exiting (processed 8, dropped 0)"]
    assert tail[2:4] == ["Joined 1 MQ start thread(s)", "PCI config workqueue shutdown complete (processed: 8, dropped: 1)"]
    assert tail[-3:] == ["Controller cleanup completed successfully", "PCI config workqueue destroyed", "Flushed 0 ACG credits"]
    assert "Cleanup Step 6: Destroying offload engine..." in [m for _, m in log[i:]]


def test_shutdown_waits_30_s_for_a_pending_unplug():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        v, h = vnet(sim), sim.host
        await h.config_write16(DSP, SLTCTL, 0x0400 | HPIE_ABPE_CCIE)
        v.command("plug 0")
        await sim.wait_event("log", path="vnet.worker", msg="Async hotplug DSP[0] plug completed")
        await h.config_write16(DSP, SLTCTL, HPIE_ABPE_CCIE)  # power on
        v.command("unplug 0")
        await sim.wait_event("log", path="vnet.worker", msg="Hotplug: DSP[0] unplug (pending host reset)")
        # The host never powers the slot off.

    res = run_ok(scenario, vnet_platform(hotplug_mode=1))
    asked = first_time(res, "Shutdown requested - waiting for pending hot-unplug slots to complete")
    gave_up = first_time(res, "Shutdown wait timed out after 30s - proceeding with cleanup")
    # Whole seconds of the application's clock: 30 of them counted since the request.
    assert gave_up == after_app_seconds(asked, 30) == 30 * S
    # The unplug started in the same second, so its timeout is due at the same iteration: the
    # loop checks it before the shutdown, so the forced removal (its destroy queued) comes
    # first; then the loop is left and nothing retries during the teardown.
    after = [m for t, p, _, m in app_log(res) if t >= gave_up and p == "vnet.main"]
    assert after[:6] == ["DSP[0] unplug timeout (30s) - forcing device removal from DPU",
                         "Forced VirtIO RESET on pf_index=0 (device_status=0)", "Delayed device destroy queued",
                         "DSP[0] forced unplug: delayed_destroy submitted",
                         "Shutdown wait timed out after 30s - proceeding with cleanup",
                         "Shutting down PCI config workqueue (pending: 1, processed: 2)"]
    assert sum("unplug timeout" in m or "forced unplug" in m or "Failed to alloc" in m for m in after) == 2
    assert len(app_log(res)) < 200
