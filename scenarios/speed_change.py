"""A link speed change on the application's stdin: `speed 0 25000`.

The application's worker bounces the link so that Linux re-reads the speed (virtio_net reads it
only when the link comes up): config_generation + 1, status LINK_UP cleared, the config MSI-X
vector raised; 50 ms later the new speed, config_generation + 1, LINK_UP set, the config vector
again. The driver's config work sees the carrier go off, then on, and reads the new speed and
duplex on the way up. A second `speed 0 25000` is skipped as unchanged; `speed 1 100` names an
endpoint that does not exist and is refused by the main thread."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import probe_all
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 4}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (net,) = await probe_all(sim, pci)
    await net.open()
    before = await net.cread(0x0C, 4)  # what ethtool showed at probe: the -s option's speed
    net.handle_config_interrupts()
    off = sim.wait_event("virtio_net", bdf=net.bdf, step="carrier_off")
    on = sim.wait_event("virtio_net", bdf=net.bdf, step="carrier_on")
    change = await sim.command("speed 0 25000")
    t_off = (await sim.timeout(off, s(1)))["time_ps"]
    t_on = (await sim.timeout(on, s(1)))["time_ps"]
    again = await sim.command("speed 0 25000")
    wrong = await sim.command("speed 1 100")
    print(f"speed 0 25000 -> {change.outcome} at {change.time_ps / 1e9:.3f} ms: carrier off at {t_off / 1e9:.3f} ms, "
          f"on at {t_on / 1e9:.3f} ms, driver reads {net.speed} Mb/s (was {before})")
    print(f"speed 0 25000 -> {again.outcome}: {again.lines[-1]}")
    print(f"speed 1 100 -> {wrong.outcome}: {wrong.lines[0]}")
    return {"before": before, "speed": net.speed, "duplex": net.duplex, "off": t_off, "on": t_on,
            "outcomes": [change.outcome, again.outcome, wrong.outcome]}
