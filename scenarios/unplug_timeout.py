"""The host ignores an unplug: the application's safety net forces the removal on its 30th second.

A Linux pciehp host with one slot, told to ignore attention-button presses while the slot is on
(a host whose pciehp thread is stuck, or a driver that never lets go). `plug 0` and the probe go
as usual; `unplug 0` sets the attention button and sends the MSI, and nothing answers. The
application's main loop checks every pending unplug against UNPLUG_TIMEOUT_SEC on its whole-
second clock: at the first iteration once 30 whole seconds have passed since `Initiating unplug`
(29.37 s later here, at 30.000 s of the application's clock) it forces device_status to 0, drops
DLActive and Presence Detect State, sets Presence Detect Changed without an MSI, and destroys
the endpoint on its worker. The host's driver is left bound to a function that now answers
config reads with Unsupported Request (all-ones): the stuck host the application's comment
describes. Nothing runs during the 30 s, so the run takes well under a second of wall time."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import pciehp_probe_all
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 1, "max-queue-pairs": 4}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (slot,) = await pciehp_probe_all(sim, pci, ignore_unplug=True)
    bound = slot.wait_bound()
    plug = await sim.command("plug 0")
    assert plug.ok, plug.lines
    net = await sim.timeout(bound, s(2))

    initiating = sim.wait_event("log", path="vnet.worker", msg="Initiating unplug for DSP[0] - waiting for host power off")
    forced = sim.wait_event("log", path="vnet.main", msg="DSP[0] unplug timeout (30s) - forcing device removal from DPU")
    destroyed = sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
    unplug = await sim.command("unplug 0")
    assert unplug.ok, unplug.lines
    t0 = (await initiating)["time_ps"]
    t1 = (await sim.timeout(forced, s(31)))["time_ps"]
    t2 = (await sim.timeout(destroyed, s(1)))["time_ps"]
    after = await sim.host.config_read(net.bdf, 0)
    status = await sim.host.config_read16(slot.port.rid, slot.exp + 0x1A)
    print(f"plug 0 -> {plug.outcome}, {net.bdf} probed; unplug 0 -> {unplug.outcome}, ignored by the host")
    print(f"Initiating unplug at {t0 / 1e9:.3f} ms, forced removal at {t1 / 1e9:.3f} ms "
          f"(+{(t1 - t0) / 1e12:.6f} s), endpoint destroyed at {t2 / 1e9:.3f} ms")
    print(f"host: {net.bdf} vendor/device read -> {after.status} {after.value:#010x}; "
          f"Slot Status {status:#06x}; pciehp still thinks the slot is {['OFF', 'BLINKINGON', 'BLINKINGOFF', 'POWERON', 'POWEROFF', 'ON'][slot.state]}")
    return {"initiating": t0, "forced": t1, "destroyed": t2, "cfg_status": after.status, "slot_status": status}
