"""The Linux-like pciehp driver against the application's slots: the Slot Control writes in
Linux's order, the Command Completed waits, the 20 ms / 1 ms / 100 ms / 20 ms waits of a plug,
the 5 s button and the 1 s after power off of an unplug, the 1 s "Timeout on hotplug command",
and the options that make the host misbehave. Times are derived here from the profile and from
the TLPs of the run, never read back from the driver."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import pciehp_probe_all
from dpusim.testing import run_ok
from vnet_util import MS, cost, first_time, vnet_platform

DSP0, DSP1, EP0 = "01:00.0", "01:01.0", "02:00.0"
S = 1000 * MS
SLOT_CAPS = "AttnBtn- PwrCtrl+ MRL- AttnInd- PwrInd- HotPlug+ Surprise+ Interlock- NoCompl- IbPresDis- LLActRep+"
# pcie_enable_notification on a slot without an attention button: DLLSCE | PDCE | HPIE | CCIE,
# over the reset value (power off).
ENABLED = 0x0400 | 0x1000 | 0x0008 | 0x0020 | 0x0010
POWERED = ENABLED & ~0x0400


def hp_platform(num_ep=1, acg=None):
    doc = vnet_platform(num_ep=num_ep, hotplug_mode=1, max_queue_pairs=2)
    if acg is not None:
        doc["topology"]["firmware"] = {"acg": acg}
    return doc


def dmesg(res, port=DSP0):
    prefix = f"pcieport 0000:{port}: pciehp: "
    return [(e["time_ps"], e["msg"][len(prefix):]) for e in res.events("log", path="host.pciehp")
            if e["msg"].startswith(prefix)]


def steps(res, op, port=DSP0):
    return res.events("pciehp", port=port, op=op)


def tlps(res, target, reg, kind):
    return [e for e in res.events("tlp", path="link_host", dir="down", target=target, reg=reg)
            if e["type"].startswith(kind)]


def completed_at(res, request):
    """When the host received the completion of `request` (a tlp event): its rx time."""
    return next(e["rx_ps"] for e in res.events("tlp", path="link_host", dir="up", tag=request["tag"])
                if e["type"] in ("Cpl", "CplD") and e["time_ps"] > request["time_ps"])


async def probe(sim, **options):
    pci = await pci_host_probe(sim)
    return pci, await pciehp_probe_all(sim, pci, **options)


async def plugged(sim, **options):
    """Boot, pciehp on the one slot, `plug 0`, and the driver bound: the slot's controller."""
    _, (slot,) = await probe(sim, **options)
    bound = slot.wait_bound()
    await sim.command("plug 0")
    await bound
    return slot


def test_probe_clears_stale_events_and_enables_presence_link_and_command_interrupts():
    async def scenario(sim):
        _, slots = await probe(sim)
        await sim.sleep(MS)
        return [(s.slot_name, s.cmd_busy, await sim.host.config_read16(s.port.rid, 0x78),
                 await sim.host.config_read16(s.port.rid, 0x7A)) for s in slots]

    res = run_ok(scenario, hp_platform(num_ep=2))
    # Both slots report Physical Slot Number 0: the second name gets pci_create_slot's "-1".
    assert res.result == [("0", False, ENABLED, 0), ("0-1", False, ENABLED, 0)]
    for port in (DSP0, DSP1):
        assert (res.events("log", msg=f"pcieport 0000:{port}: pciehp: Slot #0 {SLOT_CAPS}"))
        clear, enable = tlps(res, port, "0x78", "CfgWr")[:2]
        assert (clear["fbe"], clear["data"]) == ("0xc", "00001f01")  # Slot Status = 0x011F
        assert (enable["fbe"], enable["data"]) == ("0x3", f"{ENABLED & 0xFF:02x}{ENABLED >> 8:02x}0000")
        (write,) = steps(res, "slot_ctl_write", port)
        assert (write["value"], write["cmd"], write["mask"], write["wait"]) == (ENABLED, 0x1038, 0x103B, False)
        # The write's Command Completed came as the port's MSI and the handler cleared it.
        assert [e["events"] for e in steps(res, "isr", port)] == [0x0010]


def test_plug_powers_on_at_once_then_waits_20_ms_polls_the_link_waits_100_ms_and_reads_the_vendor_id():
    res = run_ok(plugged, hp_platform())
    assert [e["state"] for e in steps(res, "state")] == ["BLINKINGON_STATE", "POWERON_STATE", "ON_STATE"]
    msgs = [m for _, m in dmesg(res) if not m.startswith(("pci", "pending", "Slot C", "Slot S"))]
    assert msgs[1:3] == ["Slot(0): Button press: will power on in 5 sec", "Slot(0): Card present"]
    # The presence change cancels the button's 5 s at once.
    (scheduled,) = steps(res, "button_work_scheduled")
    (cancelled,) = steps(res, "button_work_cancelled")
    assert cancelled["time_ps"] - scheduled["time_ps"] < MS and not steps(res, "button_work")
    writes = steps(res, "slot_ctl_write")
    assert [(w["value"], w["wait"]) for w in writes] == [(ENABLED, False), (POWERED, True)]
    (wait,) = [w for w in steps(res, "cmd_wait") if w["time_ps"] > writes[1]["time_ps"]]
    assert (wait["by"], wait["completed"]) == ("interrupt", True)
    # pciehp_link_enable: Link Control read, Link Disable cleared, written back.
    (lnkctl,) = [w for w in tlps(res, DSP0, "0x70", "CfgWr") if w["time_ps"] > wait["time_ps"]]
    assert (lnkctl["fbe"], lnkctl["data"]) == ("0x3", "00000000")
    # msleep(20), then the Link Status polls: the first one already sees DLLLA.
    (detect,) = [m for m in steps(res, "msleep") if m["why"] == "link_detect"]
    (settle,) = [m for m in steps(res, "msleep") if m["why"] == "link_settle"]
    polls = [r for r in tlps(res, DSP0, "0x70", "CfgRd") if r["time_ps"] > detect["time_ps"]]
    assert polls[0]["time_ps"] == detect["time_ps"] + cost("host.pciehp.link_detect_ps")
    assert steps(res, "link_polls")[0]["polls"] == 1
    assert settle["time_ps"] == completed_at(res, polls[0])
    # msleep(100), then pci_bus_check_dev: the vendor ID answers at once.
    vendor = [r for r in tlps(res, EP0, "0x0", "CfgRd") if r["time_ps"] > settle["time_ps"]][0]
    assert vendor["time_ps"] == settle["time_ps"] + cost("host.pciehp.link_settle_ps")
    assert first_time(res, "Power ON (bit10: 1->0): DLActive set, link_status=0x3104") < polls[0]["time_ps"]
    assert res.events("virtio_net", bdf=EP0, step="probed")


def test_unplug_waits_the_button_5_s_unbinds_powers_off_and_sleeps_1_s():
    async def scenario(sim):
        slot = await plugged(sim)
        disabled = slot.wait_disabled()
        await sim.command("unplug 0")
        await disabled

    res = run_ok(scenario, hp_platform())
    assert [e["state"] for e in steps(res, "state")][3:] == ["BLINKINGOFF_STATE", "POWEROFF_STATE", "OFF_STATE"]
    assert "Slot(0): Button press: will power off in 5 sec" in [m for _, m in dmesg(res)]
    scheduled = steps(res, "button_work_scheduled")[-1]
    (fired,) = steps(res, "button_work")
    assert fired["time_ps"] == scheduled["time_ps"] + cost("host.pciehp.button_ps")
    # The driver's reset and ACKNOWLEDGE, bus mastering off, pciehp's own Command write, then
    # Power OFF waited for, then 1 s.
    reset = [e for e in res.events("virtio_net", step="reset") if e["time_ps"] > fired["time_ps"]]
    command = [w for w in tlps(res, EP0, "0x4", "CfgWr") if w["time_ps"] > fired["time_ps"]]
    assert reset and int(command[-1]["data"][2:4], 16) & 0x04 and not int(command[-1]["data"][:2], 16) & 0x04
    off = steps(res, "slot_ctl_write")[-1]
    assert (off["value"], off["wait"]) == (ENABLED, True) and off["time_ps"] > reset[0]["time_ps"]
    wait = steps(res, "cmd_wait")[-1]
    (settle,) = [m for m in steps(res, "msleep") if m["why"] == "power_off"]
    assert wait["completed"] and settle["time_ps"] == wait["time_ps"]
    assert steps(res, "slot_disabled")[0]["time_ps"] == settle["time_ps"] + cost("host.pciehp.power_off_settle_ps")
    assert first_time(res, "Device destroyed successfully (delayed)") < steps(res, "slot_disabled")[0]["time_ps"]


def test_without_command_completed_interrupts_each_write_times_out_after_1_s():
    async def scenario(sim):
        _, (slot,) = await probe(sim)
        await slot.pciehp_power_on_slot()  # on an empty slot: no credit, no CC interrupt

    res = run_ok(scenario, hp_platform(acg={"initial": 0, "refill": False}))
    enable, power = tlps(res, DSP0, "0x78", "CfgWr")[1:]
    waits = steps(res, "cmd_wait")
    assert [(w["by"], w["completed"]) for w in waits] == [("interrupt", False), ("interrupt", False)]
    for w, write in zip(waits, (enable, power)):
        assert w["time_ps"] == completed_at(res, write) + cost("host.pciehp.cmd_timeout_ps")
    timeouts = [m for _, m in dmesg(res) if m.startswith("Timeout")]
    assert timeouts == [f"Timeout on hotplug command {ENABLED:#06x} (issued 1000 msec ago)",
                        f"Timeout on hotplug command {POWERED:#06x} (issued 1000 msec ago)"]
    assert "Failed to send Command Completed MSI: DOCA_ERROR_AGAIN" in [e["msg"] for e in res.events("log")]


def test_a_replug_during_the_second_after_power_off_loses_its_presence_change_to_the_button_delay():
    async def scenario(sim):
        slot = await plugged(sim)
        destroyed = sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
        await sim.command("unplug 0")
        await destroyed
        bound = slot.wait_bound()
        await sim.command("plug 0")  # pciehp still sleeps its 1 s after Power OFF
        await sim.timeout(bound, 10 * S)

    res = run_ok(scenario, hp_platform())
    # remove_board drops the PDC that arrived meanwhile; only the button is left: 5 s.
    (disabled,) = steps(res, "slot_disabled")
    scheduled = [e for e in steps(res, "button_work_scheduled") if e["time_ps"] >= disabled["time_ps"]]
    (fired,) = [e for e in steps(res, "button_work") if e["time_ps"] > disabled["time_ps"]]
    assert scheduled[0]["time_ps"] == disabled["time_ps"]
    assert fired["time_ps"] == disabled["time_ps"] + cost("host.pciehp.button_ps")
    power_on = steps(res, "slot_ctl_write")[-1]
    assert power_on["value"] == POWERED and power_on["time_ps"] > fired["time_ps"]


def test_a_host_that_never_acknowledges_a_plug_leaves_the_slot_off_and_the_unplug_waits_2_s():
    async def scenario(sim):
        _, (slot,) = await probe(sim, ack_plug=False)
        await sim.command("plug 0")
        return await sim.command("unplug 0")

    res = run_ok(scenario, hp_platform())
    assert res.result.outcome == "OK"
    assert [w["value"] for w in steps(res, "slot_ctl_write")] == [ENABLED]
    assert "dpusim: host ignores the plug on Slot(0) (scenario option)" in [m for _, m in dmesg(res)]
    assert any(m.startswith("DSP[0] unplug: host did not ACK plug within 2000ms") for m in res.result.lines)


def test_a_host_that_clears_slot_status_late_writes_the_bits_back_after_its_delay():
    late = 3 * MS

    async def scenario(sim):
        await plugged(sim, clear_delay_ps=late)

    res = run_ok(scenario, hp_platform())
    # The port's first MSI (the probe's Command Completed): the handler's Slot Status read,
    # then, `late` after its completion, the write-back.
    msi = res.events("msi", requester=DSP0)[0]
    read = next(r for r in tlps(res, DSP0, "0x78", "CfgRd") if r["time_ps"] >= msi["time_ps"])
    w1c = next(w for w in tlps(res, DSP0, "0x78", "CfgWr") if w["fbe"] == "0xc" and w["time_ps"] > read["time_ps"])
    assert w1c["time_ps"] == completed_at(res, read) + late


def test_with_the_slot_status_poll_a_plug_is_seen_without_any_interrupt():
    period = 50 * MS

    async def scenario(sim):
        await plugged(sim, poll_ps=period)

    res = run_ok(scenario, hp_platform(acg={"initial": 0, "refill": False}))
    assert not res.events("msi", requester=DSP0)  # no credit ever: no port MSI at all
    (poll,) = steps(res, "poll")
    plugged_at = first_time(res, "Device plugged (ABP mode): ABP=1, PDC=1, PDS=1, DLActive=0")
    seen = next(e for e in steps(res, "isr") if e["events"] & 0x0009)
    # The first poll one period after it was turned on; the read that finds the plug's bits one
    # period after the previous poll's last read completed.
    reads = [r for r in tlps(res, DSP0, "0x78", "CfgRd") if r["time_ps"] > poll["time_ps"]]
    found = next(i for i, r in enumerate(reads) if r["time_ps"] > plugged_at)
    assert reads[0]["time_ps"] == poll["time_ps"] + period
    assert reads[found]["time_ps"] == completed_at(res, reads[found - 1]) + period < seen["time_ps"]
    assert res.events("virtio_net", bdf=EP0, step="probed")
