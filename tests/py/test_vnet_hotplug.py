"""The application's hot-plug slots without a pciehp driver (docs/vnet.md, "Hot-plug"): the host's side
is done by hand with config writes, so each test shows one rule: the slot bits a plug and an
unplug set, power edges and DLActive, Command Completed, the stdin commands' outcomes and every
rejection, the plug-ack wait, DSP MSIs over ACG credits and their retry and abandonment."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.testing import run_ok
from dpusim.vnet import vnet
from vnet_util import MS, S, US, after_app_seconds, app_log, cost, first_time, frame, loop_iteration_at, msgs, vnet_platform

DSP = "01:00.0"
EXP = 0x60
SLTCTL, SLTSTA, LNKSTA = EXP + 0x18, EXP + 0x1A, EXP + 0x12
ABPE, PDCE, CCIE, HPIE, PCC, DLLSCE = 0x0001, 0x0008, 0x0010, 0x0020, 0x0400, 0x1000
ABP, PDC, CC, PDS, DLLSC = 0x0001, 0x0008, 0x0010, 0x0040, 0x0100
DLLLA = 0x2000


def hp_platform(num_ep=1, acg=None, **kw):
    doc = vnet_platform(num_ep=num_ep, hotplug_mode=1, **kw)
    if acg is not None:
        doc["topology"]["firmware"] = {"acg": acg}
    return doc


async def boot(sim, slot_ctl=PCC | HPIE):
    """Enumeration (portdrv gives each port its MSI), then one Slot Control write by hand."""
    pci = await pci_host_probe(sim)
    await sim.host.config_write16(DSP, SLTCTL, slot_ctl)
    await sim.host.config_write16(DSP, SLTSTA, CC)  # the write's Command Completed
    return pci


def test_plug_sets_abp_pdc_and_pds_and_sends_the_port_msi_over_a_credit():
    async def scenario(sim):
        pci = await boot(sim)
        before = vnet(sim).acg_credits()
        mark = sim.host.msi_mark()
        res = await sim.command("plug 0")
        msi = await sim.host.wait_msi(since=mark, timeout_ps=MS)
        return (res, msi, pci.find(DSP).irqs[0], before, vnet(sim).acg_credits(),
                await sim.host.config_read16(DSP, SLTSTA), await sim.host.config_read16(DSP, LNKSTA))

    res = run_ok(scenario, hp_platform(acg={"capacity": 4, "initial": 3, "refill": False}))
    cmd, msi, irq, before, after, sltsta, lnksta = res.result
    assert cmd.outcome == "OK"
    # The worker sends the MSI: the credit's buffer is dumped as the source does, header DWs,
    # then the data DW byte-swapped.
    assert cmd.lines == ["PLUG on DSP[0] (queuing to worker thread)",
                         "Hotplug event queued: DSP[0] plug (async - main thread stays on PE progress)",
                         "Executing async hotplug: DSP[0] plug", "Creating device for DSP[0]",
                         "Device created: VHCA ID=0x100",
                         "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0",
                         "DSP Slot Status updated: present=1, status=0x0049, link_status=0x1104",
                         "Sending MSI: addr=0xFEE00000, data=0x%X, requester=0x0100" % irq,
                         "TX MemWr TLP: BDF=0100 Addr=00000000fee00000 Data=%04x [" % irq, "40000001 ",
                         "0100000f ", "fee00000 ", "%08x" % (irq << 24), "] 32bit",
                         "MSI interrupt sent: bus=0x01 addr=0xFEE00000 data=0x%X (size: 16)" % irq,
                         "Hotplug: DSP[0] plug", "Async hotplug DSP[0] plug completed"]
    assert {path for path, _, _ in cmd.log[2:]} == {"vnet.worker"}
    assert (msi.requester, msi.address, msi.data) == (DSP, 0xFEE00000, irq)
    assert (before, after) == (3, 2)  # one credit per MSI, none refilled
    assert (sltsta, lnksta) == (ABP | PDC | PDS, 0x1104)  # DLActive waits for the host's Power ON


def test_power_edges_set_and_clear_dllla_and_every_slot_control_write_completes():
    async def scenario(sim):
        await boot(sim)
        h = sim.host
        await sim.command("plug 0")
        await h.config_write16(DSP, SLTSTA, ABP | PDC)
        seen = []
        # Power on, then indicators (stored, no effect), then power off.
        for value in (HPIE, HPIE | 0x0100 | 0x00C0, HPIE | 0x0100 | 0x00C0 | PCC):
            await h.config_write16(DSP, SLTCTL, value)
            seen.append((await h.config_read16(DSP, SLTCTL), await h.config_read16(DSP, SLTSTA),
                         await h.config_read16(DSP, LNKSTA)))
            await h.config_write16(DSP, SLTSTA, CC)
        return seen

    res = run_ok(scenario, hp_platform())
    assert res.result == [(HPIE, CC | PDS, 0x3104), (HPIE | 0x01C0, CC | PDS, 0x3104),
                          (HPIE | 0x01C0 | PCC, CC | PDS, 0x1104)]  # never DLLSC, PDS stays 1
    main = msgs(res, thread="vnet.main")
    assert "Power ON (bit10: 1->0): DLActive set, link_status=0x3104" in main
    assert "Power OFF (bit10: 0->1): DLActive cleared, link_status=0x1104" in main
    assert main.count("Command Completed MSI sent") == 0  # CCIE clear: the bit only
    assert "Command Completed: control=0x01E0, status=0x0050" in main


def test_every_rejection_of_the_commands_with_its_outcome_and_wording():
    async def scenario(sim):
        await boot(sim, slot_ctl=PCC)  # HPIE clear
        out = []
        for line in ("plug 0", "unplug 0", "plug 2", "jump 0", "   ", "unplug 1"):
            out.append(await sim.command(line))
        await sim.host.config_write16(DSP, SLTCTL, PCC | HPIE)
        for line in ("unplug 0", "plug 0", "plug 0", "unplug 0", "unplug 0", "plug 0"):
            out.append(await sim.command(line))
        return [(r.outcome, r.log[2:]) for r in out]

    res = run_ok(scenario, hp_platform(num_ep=2))
    w, m = "vnet.worker", "vnet.main"
    assert res.result[0] == ("AGAIN", (
        (w, "info", "Executing async hotplug: DSP[0] plug"),
        (w, "warning", "DSP[0] plug: HP interrupt not enabled - host pciehp may still be completing power off "
                       "sequence, retry later"),
        (w, "warning", "Async hotplug DSP[0] plug: transient, retry later")))
    assert res.result[1] == ("NOT_SUPPORTED", (
        (w, "info", "Executing async hotplug: DSP[0] unplug"),
        (w, "error", "HP interrupt not enabled for DSP[0], hotplug not supported"),
        (w, "error", "Async hotplug failed: DOCA_ERROR_NOT_SUPPORTED")))
    assert res.result[2:5] == [("REJECTED", ()), ("REJECTED", ()), ("IGNORED", ())]
    # HPIE is checked before presence: an unplug of slot 1 (interrupt off) is NOT_SUPPORTED...
    assert res.result[5][0] == "NOT_SUPPORTED"
    # ... and of slot 0 once its interrupt is on, NOT_FOUND.
    assert res.result[6] == ("NOT_FOUND", (
        (w, "info", "Executing async hotplug: DSP[0] unplug"),
        (w, "error", "DSP[0] has no device, cannot unplug"),
        (w, "error", "Async hotplug failed: DOCA_ERROR_NOT_FOUND")))
    assert res.result[7][0] == "OK"
    assert res.result[8] == ("ALREADY_EXIST", (
        (w, "info", "Executing async hotplug: DSP[0] plug"),
        (w, "warning", "DSP[0] already has device, cannot plug again"),
        (w, "error", "Async hotplug failed: DOCA_ERROR_ALREADY_EXIST")))
    # The host never powered the slot on: the unplug waits its 2000 polls of 1 ms, then goes on.
    assert res.result[9][0] == "OK"
    assert res.result[9][1][:2] == (
        (w, "info", "Executing async hotplug: DSP[0] unplug"),
        (w, "warning", "DSP[0] unplug: host did not ACK plug within 2000ms (DLActive=0); proceeding - "
                       "UNPLUG_TIMEOUT_SEC safety net will force-destroy if host also ignores ABP"))
    ack = "DSP[0] unplug: host did not ACK plug within 2000ms (DLActive=0); proceeding - UNPLUG_TIMEOUT_SEC " \
          "safety net will force-destroy if host also ignores ABP"
    t_ack = first_time(res, ack)
    t_exec = max(t for t, _, _, msg in app_log(res) if msg == "Executing async hotplug: DSP[0] unplug" and t <= t_ack)
    assert t_ack - t_exec == 2000 * MS
    assert res.result[10] == ("IN_PROGRESS", (
        (w, "info", "Executing async hotplug: DSP[0] unplug"),
        (w, "warning", "DSP[0] already pending unplug"),
        (w, "error", "Async hotplug failed: DOCA_ERROR_IN_PROGRESS")))
    assert res.result[11] == ("IN_PROGRESS", (
        (w, "info", "Executing async hotplug: DSP[0] plug"),
        (w, "warning", "DSP[0] plug rejected: unplug still in progress"),
        (w, "error", "Async hotplug failed: DOCA_ERROR_IN_PROGRESS")))
    errors = msgs(res, thread=m, level="error")
    assert errors == ["EP index 2 out of range (max: 1)",
                      "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>"]
    (static,) = run_ok(lambda sim: sim.command("plug 0"), vnet_platform()).events("command")
    assert (static["outcome"], static["lines"][0]["msg"]) == ("REJECTED", "Hotplug commands require --hotplug mode")


def test_plug_ack_wait_counts_the_polls_until_the_host_powers_on():
    async def scenario(sim):
        await boot(sim)
        await sim.command("plug 0")
        unplug = sim.command("unplug 0")
        await sim.wait_event("log", path="vnet.worker", msg="Executing async hotplug: DSP[0] unplug")
        await sim.sleep(300 * MS + 500_000)  # mid-way between two polls
        await sim.host.config_write16(DSP, SLTCTL, HPIE)  # Power ON: DLActive
        return await unplug

    res = run_ok(scenario, hp_platform())
    t_exec = first_time(res, "Executing async hotplug: DSP[0] unplug")
    t_on = first_time(res, "Power ON (bit10: 1->0): DLActive set, link_status=0x3104")
    polls = -(-(t_on - t_exec) // MS)  # the first 1 ms poll at or after the Power ON
    assert 300 < polls < 310
    assert f"DSP[0] unplug: waited {polls}ms for host plug-ack" in res.result.lines
    assert first_time(res, "Initiating unplug for DSP[0] - waiting for host power off") == t_exec + polls * MS


def test_credit_cache_flushes_what_it_cannot_hold_and_refills_after_each_msi():
    async def scenario(sim):
        await boot(sim, slot_ctl=PCC | HPIE | CCIE)  # the write's Command Completed MSI uses a credit
        return vnet(sim).acg_credits()

    res = run_ok(scenario, hp_platform(acg={"capacity": 2, "initial": 3}))
    assert res.result == 2  # spent one, and firmware posted its replacement at once
    main = msgs(res, thread="vnet.main")
    assert [m for m in main if m.startswith("ACG ")] == [
        "ACG enabled for MSI interrupts", "ACG queue initialized: capacity=2", "ACG credit queued (1/2)",
        "ACG credit queued (2/2)", "ACG queue full (2/2), discarding new credit", "ACG credit queued (2/2)"]
    assert "Command Completed MSI sent" in main
    used = res.events("acg_credit", op="used")
    (refill,) = [e for e in res.events("acg_credit", op="queued") if e["time_ps"] > 0]
    assert refill["time_ps"] - used[0]["time_ps"] == cost("vnet.fw.acg_refill_ps")


def test_zero_capacity_disables_the_queue_and_static_mode_never_enables_acg():
    res = run_ok(boot, hp_platform(acg={"capacity": 0, "initial": 1}))
    main = msgs(res, thread="vnet.main")
    assert "Device reports 0 ACG credits - ACG queue disabled" in main
    assert "ACG queue unavailable (cleanup in progress), discarding credit" in main
    static = msgs(run_ok(boot, vnet_platform()), thread="vnet.main")
    assert "ACG enabled for MSI interrupts" not in static and "ACG queue initialized: capacity=16" in static
    assert not [m for m in static if m.startswith("ACG credit")]


def test_a_command_completed_msi_spends_a_credit_and_is_never_retried():
    async def scenario(sim):
        await boot(sim, slot_ctl=PCC | HPIE | CCIE)  # spends the only credit
        await sim.host.config_write16(DSP, SLTCTL, PCC | HPIE | CCIE)
        await sim.sleep(6 * S)
        return vnet(sim).acg_credits()

    res = run_ok(scenario, hp_platform(acg={"initial": 1, "refill": False}))
    assert res.result == 0
    main = msgs(res, thread="vnet.main")
    assert main.count("Command Completed MSI sent") == 1
    assert "Failed to send Command Completed MSI: DOCA_ERROR_AGAIN" in main
    assert not res.events("msi_retry")


def test_a_slot_event_msi_without_credit_is_sent_at_the_main_loops_next_iteration_after_a_credit_arrives():
    grant = 2 * S + 123

    async def scenario(sim):
        await boot(sim)
        mark = sim.host.msi_mark()
        await sim.command("plug 0")
        return await sim.host.wait_msi(since=mark, timeout_ps=3 * S)

    res = run_ok(scenario, hp_platform(acg={"initial": 0, "refill": False, "grants": [{"at_ps": grant, "count": 1}]}))
    assert "DSP[0] plug: ACG exhausted, scheduling MSI retry" in msgs(res, thread="vnet.worker")
    assert "DSP[0] plug: MSI not sent" not in " ".join(msgs(res))
    succeeded = first_time(res, "DSP[0] MSI retry succeeded")
    assert succeeded == loop_iteration_at(grant + 1) == 2 * S + cost("vnet.main_loop_ps")
    assert res.result.time_ps > succeeded


def test_a_slot_event_msi_retry_is_abandoned_on_the_apps_5th_second_and_the_bits_stay_for_a_polling_host():
    async def scenario(sim):
        await boot(sim)
        await sim.command("plug 0")
        await sim.sleep(6 * S)
        return await sim.host.config_read16(DSP, SLTSTA), len(sim.host.msis)

    res = run_ok(scenario, hp_platform(acg={"initial": 0, "refill": False}))
    status, msis = res.result
    assert (status, msis) == (ABP | PDC | PDS, 0)
    scheduled = first_time(res, "DSP[0] plug: ACG exhausted, scheduling MSI retry")
    # now.tv_sec - since.tv_sec >= 5: at 5.000 s of the application's clock, 4.6 s after the failure.
    assert first_time(res, "DSP[0] MSI retry abandoned after 5s - host will poll Slot Status") == \
        after_app_seconds(scheduled, 5) == 5 * S


def test_without_host_msi_setup_the_event_msi_is_not_retried():
    async def scenario(sim):
        await sim.host.config_write32("00:00.0", 0x18, 0x00FF0100)
        await sim.host.config_write32(DSP, 0x18, 0x00020201)
        await sim.host.config_write16(DSP, SLTCTL, PCC | HPIE)  # no MSI enabled on the port
        return await sim.command("plug 0")

    res = run_ok(scenario, hp_platform())
    assert res.result.outcome == "OK"
    assert "MSI not enabled (Message Control=0x0080)" in msgs(res, thread="vnet.worker")
    assert "DSP[0] plug: MSI not sent (DOCA_ERROR_BAD_STATE) - host will poll Slot Status" in res.result.lines
    assert not res.events("msi_retry")


def test_a_credit_goes_only_to_port_msis_never_to_the_endpoints_msix():
    from dpusim.drivers.pciehp import pciehp_probe_all

    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (slot,) = await pciehp_probe_all(sim, pci)
        bound = slot.wait_bound()
        await sim.command("plug 0")
        net = await bound
        await net.open()
        await net.send(frame(net.mac, 1))
        await net.recv(1)  # the receive queue's MSI-X

    res = run_ok(scenario, hp_platform())
    port_msis = [e for e in res.events("msi") if e["requester"] == DSP]
    ep_msis = [e for e in res.events("msi") if e["requester"] == "02:00.0"]
    assert ep_msis and len(res.events("acg_credit", op="used")) == len(port_msis)


def test_the_shutdown_waits_for_a_pending_unplug_until_the_forced_removal_destroys_it():
    async def scenario(sim):
        await boot(sim)
        await sim.command("plug 0")
        await sim.host.config_write16(DSP, SLTCTL, HPIE)  # Power ON
        await sim.command("unplug 0")
        await sim.sleep(10 * S)  # the host never powers off; the run ends 10 s later

    res = run_ok(scenario, hp_platform())
    initiating = first_time(res, "Initiating unplug for DSP[0] - waiting for host power off")
    asked = first_time(res, "Shutdown requested - waiting for pending hot-unplug slots to complete")
    forced = first_time(res, "DSP[0] unplug timeout (30s) - forcing device removal from DPU")
    destroyed = first_time(res, "Device destroyed successfully (delayed)")
    shut = first_time(res, "Shutting down PCI config workqueue (pending: 0, processed: 3)")
    assert asked - initiating >= 10 * S and forced == after_app_seconds(initiating, 30)
    assert shut == destroyed  # the wait ends with the pending unplug, at once
    assert "Shutdown wait timed out after 30s - proceeding with cleanup" not in msgs(res)


def two_ignored_unplugs(timing=None):
    """Slots 0 and 1 plugged and powered on; `unplug 0`, then `unplug 1` 0.37 s later; the host
    never powers either off. Returns each slot's (Initiating unplug, forced removal) times."""
    dsps = (DSP, "01:01.0")

    async def scenario(sim):
        await pci_host_probe(sim)
        for dsp in dsps:
            await sim.host.config_write16(dsp, SLTCTL, PCC | HPIE)
        for i, dsp in enumerate(dsps):
            await sim.command(f"plug {i}")
            await sim.host.config_write16(dsp, SLTCTL, HPIE)  # Power ON
        await sim.command("unplug 0")
        await sim.sleep(370 * MS)
        await sim.command("unplug 1")
        await sim.sleep(32 * S)

    res = run_ok(scenario, hp_platform(num_ep=2, timing=timing))
    return [(first_time(res, f"Initiating unplug for DSP[{i}] - waiting for host power off"),
             first_time(res, f"DSP[{i}] unplug timeout (30s) - forcing device removal from DPU")) for i in (0, 1)]


def test_two_unplugs_at_different_sub_second_phases_are_forced_at_the_same_phase():
    # now.tv_sec - start.tv_sec >= 30, checked on each main-loop iteration: whatever the phase
    # of the unplug within its second, the removal comes on the main loop's first iteration of
    # the 30th second after it.
    for origin in (0, 3 * US):
        timing = {"vnet.main_loop_origin_ps": origin} if origin else None
        (start0, forced0), (start1, forced1) = two_ignored_unplugs(timing)
        assert start0 % S != start1 % S
        assert forced0 == after_app_seconds(start0, 30, timing) and forced1 == after_app_seconds(start1, 30, timing)
        assert forced0 % S == forced1 % S == origin
        assert all(29 * S < forced - start <= 30 * S for start, forced in ((start0, forced0), (start1, forced1)))
