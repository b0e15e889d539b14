"""Hot-plug of a virtio-net endpoint of the vnet_pci_dev application (hotplug mode, -H 1) with a
Linux pciehp host: plug, probe, traffic, graceful unplug, re-plug and traffic again.

The host boots with the slot empty: enumeration reserves the port's bus and windows, portdrv
gives the port its MSI and pciehp enables the slot's interrupts (Command Completed, presence,
link). `plug 0` makes the application's worker create the endpoint (375 ms), set Attention
Button, Presence Detect Changed and State, and send the port's MSI over an ACG credit. Linux
handles the button (will power on in 5 s), then the presence change cancels the wait and powers
the slot on at once: Power ON sets DLActive, 20 ms, the link poll, 100 ms, the vendor ID read;
the function is scanned into the reserved window and virtio_net probes it. `unplug 0` sets the
attention button alone: Linux waits its 5 s, the driver resets the device (the application keeps
the engine until Power OFF), pciehp powers the slot off and sleeps 1 s; the application destroys
the endpoint on its worker. A second `plug 0` finds the slot ready again and the old VirtIO image
(status 0, the earlier BAR)."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import pciehp_probe_all
from dpusim.drivers.virtio_net import ethernet_frame
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 1, "max-queue-pairs": 4}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


async def traffic(sim, net, tag):
    await net.open()
    frames = [ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, bytes([tag, k]) * 40) for k in range(4)]
    for f in frames:
        await net.send(f)
    got = await net.recv(len(frames), timeout_ps=s(1))
    assert sorted(f for _, f in got) == sorted(frames), f"{net.bdf}: frames differ after the loopback"
    sim.log_event("host.virtio_net", "virtio_net", bdf=net.bdf, step="traffic_ok", frames=len(frames))
    return len(frames)


async def plug_and_probe(sim, slot):
    bound = slot.wait_bound()
    res = await sim.command("plug 0")
    assert res.ok, f"plug 0: {res.outcome} {res.lines}"
    net = await sim.timeout(bound, s(2))
    return res, net


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (slot,) = await pciehp_probe_all(sim, pci)
    first, net = await plug_and_probe(sim, slot)
    n1 = await traffic(sim, net, 1)
    print(f"plug 0 -> {first.outcome} at {first.time_ps / 1e9:.3f} ms; {net.bdf} probed, {n1} frames looped back")

    disabled = slot.wait_disabled()
    destroyed = sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
    unplug = await sim.command("unplug 0")
    assert unplug.ok, f"unplug 0: {unplug.outcome} {unplug.lines}"
    destroyed = await sim.timeout(destroyed, s(10))
    await sim.timeout(disabled, s(2))  # pciehp's 1 s after power off: the slot is ready again
    print(f"unplug 0 -> {unplug.outcome} at {unplug.time_ps / 1e9:.3f} ms; endpoint destroyed at "
          f"{destroyed['time_ps'] / 1e9:.3f} ms")

    second, net = await plug_and_probe(sim, slot)
    n2 = await traffic(sim, net, 2)
    print(f"plug 0 -> {second.outcome} at {second.time_ps / 1e9:.3f} ms; {net.bdf} probed again, {n2} frames looped back")
    return {"plug": first.time_ps, "unplug": unplug.time_ps, "destroyed": destroyed["time_ps"],
            "replug": second.time_ps, "frames": n1 + n2}
