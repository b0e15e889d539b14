"""Boot-time PCI enumeration of a switch with four test endpoints, as Linux does it: bus
numbers, BAR sizing and assignment, bridge windows (hot-plug reservations included),
capability walk, enabling, MSI for the switch ports. Prints the tree, lspci-style."""
from dpusim.drivers.pci import pci_host_probe

PLATFORM = {"topology": {"endpoints": 4}}


def describe(dev, depth=0):
    pad = "  " * depth
    line = f"{pad}{dev.bdf} [{dev.vendor:04x}:{dev.device:04x}] class {dev.class_code:06x}"
    if dev.is_bridge:
        line += f" bus {dev.secondary:02x}-{dev.subordinate:02x}"
        if dev.mem_window:
            line += f" mem {dev.mem_window[0]:#x}-{dev.mem_window[1]:#x}"
        if dev.pref_window:
            line += f" pref {dev.pref_window[0]:#x}-{dev.pref_window[1]:#x}"
    lines = [line]
    for b in dev.bars:
        kind = ("64-bit " if b.is64 else "32-bit ") + ("prefetchable" if b.prefetch else "non-prefetchable")
        lines.append(f"{pad}  BAR{b.index}: {b.base:#x} size {b.size:#x} ({kind})")
    caps = ", ".join(f"{cid:#04x}@{off:#x}" for cid, off in dev.caps)
    if caps:
        lines.append(f"{pad}  caps: {caps}")
    for child in dev.children:
        lines.extend(describe(child, depth + 1))
    return lines


async def scenario(sim):
    pci = await pci_host_probe(sim)
    for dev in pci.root:
        print("\n".join(describe(dev)))
    print(f"enumerated {sum(1 for _ in pci.devices())} functions at {sim.now} ps")
    return [d.as_dict() for d in pci.root]
