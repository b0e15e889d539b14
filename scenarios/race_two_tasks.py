"""Two driver tasks write the same config register of endpoint 0 at the same instant.

Issued at one simulated instant, requests enter the fabric in task-spawn order, so the second
task's write lands last. Then the race is placed the other way by fault injection: the first
task's write is delayed on the host link by 1 us, so the first task's value lands last. The run
asserts both outcomes; nothing here depends on a tuned sleep."""
from dpusim.bdf import bdf
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import us

PLATFORM = {"topology": {"endpoints": 1}}
PCI_INTERRUPT_LINE = 0x3C


async def race(sim, ep, first, second):
    a = sim.spawn(sim.host.config_write(ep, PCI_INTERRUPT_LINE, first, 1), "driver_a")
    b = sim.spawn(sim.host.config_write(ep, PCI_INTERRUPT_LINE, second, 1), "driver_b")
    await sim.gather(a, b)
    return await sim.host.config_read8(ep, PCI_INTERRUPT_LINE)


async def scenario(sim):
    await pci_host_probe(sim)
    ep = bdf("02:00.0")
    in_order = await race(sim, ep, 0x11, 0x22)
    assert in_order == 0x22, f"in spawn order the second write lands last, read {in_order:#x}"
    sim.log(f"unperturbed race: register = {in_order:#04x}")
    # Delay driver A's write (the next CfgWr1 to 02:00.0 offset 0x3c on the host link) by 1 us.
    sim.faults.delay(us(1), type="CfgWr1", path="link_host", target=ep, reg=PCI_INTERRUPT_LINE)
    placed = await race(sim, ep, 0x33, 0x44)
    assert placed == 0x33, f"with driver A delayed its write lands last, read {placed:#x}"
    sim.log(f"race placed by fault injection: register = {placed:#04x}")
    print(f"unperturbed: {in_order:#04x}; with driver A delayed 1 us: {placed:#04x}")
    return {"unperturbed": in_order, "placed": placed}
