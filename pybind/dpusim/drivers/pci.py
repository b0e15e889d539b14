"""A Linux-like PCI enumeration driver (drivers/pci/probe.c, setup-bus.c, msi/msi.c).

pci_host_probe() does what Linux's (drivers/pci/probe.c) does at boot, in its order: scan the
root bus, size and assign the resources, add the devices (with probe=True their drivers bind,
matched by dpusim.drivers.pci_driver on their (vendor, device)):
  - depth-first bus numbering: a bridge gets secondary = last bus + 1, subordinate 0xff while
    its bus is scanned, then the last bus found below it (at least one bus below a hot-plug
    port, pci_hotplug_bus_size = 1); only device 0 is scanned below a downstream port
    (only_one_child);
  - BAR sizing with decode disabled (__pci_read_base): Command cleared of MEM/IO, each BAR
    written all-ones, read back, restored;
  - the capability walk (standard list, then extended list for PCIe functions);
  - resource assignment (pbus_size_mem, __assign_resources_sorted): each bridge window sized
    bottom-up from its children, hot-plug ports getting at least pci_hotplug_mmio_size and
    pci_hotplug_mmio_pref_size (2 MiB each) even when empty; windows and BARs then assigned
    top-down, largest alignment first, inside the host's 32-bit aperture (non-prefetchable)
    and 64-bit aperture (prefetchable);
  - with enable=True, pci_enable_device + pci_set_master (bridges on the path too) and, for
    the switch ports, one MSI vector as portdrv allocates it.
  - for a function 0 with the ARI capability below a port advertising ARI Forwarding,
    pci_configure_ari sets the port's ARI Forwarding Enable; for a function with the SR-IOV
    capability, iov.c's sriov_init (drivers/sriov.py), whose VF BARs take per-VF size x
    TotalVFs in the windows;
It returns the tree of PciDev. alloc_irq_vectors() programs MSI-X through the table in the BAR
as msix_capability_init does.
"""
import warnings
from dataclasses import dataclass, field

from dpusim.bdf import bdf, bdf_str
from dpusim.drivers import ionic, pci_driver, virtio_net  # noqa: F401 - the built-in drivers: importing registers them
from dpusim.drivers import sriov as iov
from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here

MIB = 1 << 20
# The host's MMIO apertures (platform defaults, docs/architecture.md).
MMIO32_BASE, MMIO32_END = 0xC0000000, 0xE0000000
MMIO64_BASE, MMIO64_END = 0x40_0000_0000, 0x50_0000_0000
PCI_HOTPLUG_BUS_SIZE = 1
PCI_HOTPLUG_MMIO_SIZE = 2 * MIB
PCI_HOTPLUG_MMIO_PREF_SIZE = 2 * MIB
MSI_ADDRESS = 0xFEE00000
FIRST_IRQ_DATA = 0x30


@dataclass
class Bar:
    index: int
    size: int
    is64: bool
    prefetch: bool
    base: int = 0


@dataclass
class PciDev:
    rid: int
    vendor: int
    device: int
    class_code: int
    header_type: int
    bars: list = field(default_factory=list)
    caps: list = field(default_factory=list)       # (cap id, offset)
    ext_caps: list = field(default_factory=list)   # (ext cap id, offset)
    port_type: int = None                          # PCIe Device/Port Type
    hotplug: bool = False                          # a slot that can take a card
    secondary: int = None
    subordinate: int = None
    mem_window: tuple = None                       # (base, limit) or None when disabled
    pref_window: tuple = None
    children: list = field(default_factory=list)
    parent: "PciDev" = None
    irqs: list = field(default_factory=list)       # MSI/MSI-X message data per vector
    msix_table: int = None                         # host address of the MSI-X table
    ari_enabled: bool = False                      # a bridge whose ARI Forwarding Enable we set
    sriov: object = None                           # a PF's iov.SriovState
    physfn: "PciDev" = None                        # a VF's PF
    driver: object = None                          # the bound driver object (dev->driver: pci_driver.bind)

    @property
    def bdf(self):
        return bdf_str(self.rid)

    @property
    def is_bridge(self):
        return self.header_type == PCI_HEADER_TYPE_BRIDGE

    def cap(self, cap_id):
        return next((off for cid, off in self.caps if cid == cap_id), None)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def as_dict(self):
        d = {"bdf": self.bdf, "vendor": f"{self.vendor:04x}", "device": f"{self.device:04x}",
             "class": f"{self.class_code:06x}",
             "bars": [{"index": b.index, "base": b.base, "size": b.size, "is64": b.is64, "prefetch": b.prefetch}
                      for b in self.bars],
             "caps": [[c, o] for c, o in self.caps], "ext_caps": [[c, o] for c, o in self.ext_caps]}
        if self.is_bridge:
            d.update(secondary=self.secondary, subordinate=self.subordinate,
                     mem_window=self.mem_window, pref_window=self.pref_window,
                     children=[c.as_dict() for c in self.children])
        return d


class PciHost:
    """The Linux PCI core's view of the host: state shared by enumeration and drivers."""

    def __init__(self, sim):
        self.sim = sim
        self.h = sim.host
        self.root = []          # functions on bus 0
        self.next_irq = FIRST_IRQ_DATA
        self.cpus = sim.doc.get("host", {}).get("cpus", 4)
        self.slot_names = set()  # the hot-plug slots' names (drivers/pci/slot.c)

    def devices(self):
        for d in self.root:
            yield from d.walk()

    def find(self, target):
        rid = bdf(target)
        return next((d for d in self.devices() if d.rid == rid), None)

    def make_slot_name(self, name):
        """pci_create_slot's make_slot_name: the slot's name, or with "-1", "-2"... when it
        is taken; the name is then taken."""
        new, dup = name, 1
        while new in self.slot_names:
            new, dup = f"{name}-{dup}", dup + 1
        self.slot_names.add(new)
        return new

    # -- config helpers -----------------------------------------------------------------------
    async def read(self, rid, off, size=4):
        return (await self.h.config_read(rid, off, size)).value

    async def write(self, rid, off, value, size=4):
        await self.h.config_write(rid, off, value, size)

    async def capabilities(self, rid):
        """The standard capability list as (id, offset), walked as pci_find_capability does:
        from PCI_CAPABILITY_LIST & ~3, stopping below 0x40, at ID 0xff or after
        PCI_FIND_CAP_TTL hops."""
        caps = []
        if not (await self.read(rid, PCI_STATUS, 2)) & PCI_STATUS_CAP_LIST:
            return caps
        pos = (await self.read(rid, PCI_CAPABILITY_LIST, 1)) & ~3
        for _ in range(PCI_FIND_CAP_TTL):
            if pos < 0x40:
                break
            ident = await self.read(rid, pos, 2)
            if ident & 0xFF == 0xFF:
                break
            caps.append((ident & 0xFF, pos))
            pos = (ident >> 8) & ~3
        return caps

    # -- enumeration --------------------------------------------------------------------------
    async def scan_function(self, rid, parent):
        dw0 = await self.read(rid, PCI_VENDOR_ID)
        vendor = dw0 & 0xFFFF
        if vendor in (0xFFFF, 0x0000) or dw0 in (0xFFFF0000, 0x0000FFFF):
            return None
        class_rev = await self.read(rid, PCI_CLASS_REVISION)
        htype = await self.read(rid, PCI_HEADER_TYPE, 1)
        dev = PciDev(rid, vendor, dw0 >> 16, class_rev >> 8, htype & PCI_HEADER_TYPE_MASK, parent=parent)
        await self.walk_capabilities(dev)
        await self.size_bars(dev, 2 if dev.is_bridge else 6)
        await self.init_capabilities(dev)
        return dev

    async def init_capabilities(self, dev):
        """The ARI and SR-IOV steps of pci_init_capabilities: pci_configure_ari, then
        pci_iov_init. Linux reads the port's Device Capabilities 2 for every function 0 below
        it; here only for a function with the ARI capability (the outcome is the same, ARI
        Forwarding Enable being clear from reset)."""
        ari_cap = iov.find_ext_cap(dev, PCI_EXT_CAP_ID_ARI)
        bridge = dev.parent
        if ari_cap is not None and not dev.rid & 0xFF and bridge is not None:
            exp = bridge.cap(PCI_CAP_ID_EXP)
            if exp is not None and (await self.read(bridge.rid, exp + PCI_EXP_DEVCAP2)) & PCI_EXP_DEVCAP2_ARI:
                ctl2 = await self.read(bridge.rid, exp + PCI_EXP_DEVCTL2, 2)
                await self.write(bridge.rid, exp + PCI_EXP_DEVCTL2, ctl2 | PCI_EXP_DEVCTL2_ARI, 2)
                bridge.ari_enabled = True
        if iov.find_ext_cap(dev, PCI_EXT_CAP_ID_SRIOV) is not None:
            dev.sriov = await iov.sriov_init(self, dev, bridge is not None and bridge.ari_enabled)

    async def walk_capabilities(self, dev):
        rid = dev.rid
        dev.caps = await self.capabilities(rid)
        exp = dev.cap(PCI_CAP_ID_EXP)
        if exp is None:
            return
        flags = await self.read(rid, exp + PCI_EXP_FLAGS, 2)
        dev.port_type = (flags & PCI_EXP_FLAGS_TYPE) >> 4
        if flags & PCI_EXP_FLAGS_SLOT:
            dev.hotplug = bool((await self.read(rid, exp + PCI_EXP_SLTCAP)) & PCI_EXP_SLTCAP_HPC)
        pos = 0x100
        for _ in range(480):  # (4096 - 256) / 8
            header = await self.read(rid, pos)
            if header in (0, 0xFFFFFFFF):
                break
            dev.ext_caps.append((header & 0xFFFF, pos))
            pos = header >> 20
            if pos < 0x100:
                break

    async def size_bars(self, dev, count):
        """__pci_read_base for each BAR, with memory/I/O decode off around the whole sizing."""
        rid = dev.rid
        cmd = await self.read(rid, PCI_COMMAND, 2)
        if cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY):
            await self.write(rid, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY), 2)
        i = 0
        while i < count:
            off = PCI_BASE_ADDRESS_0 + 4 * i
            orig = await self.read(rid, off)
            await self.write(rid, off, 0xFFFFFFFF)
            mask = await self.read(rid, off)
            await self.write(rid, off, orig)
            if mask in (0, 0xFFFFFFFF) or mask & PCI_BASE_ADDRESS_SPACE_IO:
                i += 1
                continue
            is64 = (mask & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64
            size_mask = mask & PCI_BASE_ADDRESS_MEM_MASK
            if is64:
                orig_hi = await self.read(rid, off + 4)
                await self.write(rid, off + 4, 0xFFFFFFFF)
                mask_hi = await self.read(rid, off + 4)
                await self.write(rid, off + 4, orig_hi)
                size_mask |= mask_hi << 32
                size = (~size_mask & 0xFFFFFFFFFFFFFFFF) + 1
            else:
                size = (~size_mask & 0xFFFFFFFF) + 1
            dev.bars.append(Bar(i, size, is64, bool(mask & PCI_BASE_ADDRESS_MEM_PREFETCH)))
            i += 2 if is64 else 1
        if cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY):
            await self.write(rid, PCI_COMMAND, cmd, 2)

    async def scan_bus(self, bus, parent, last_bus):
        """pci_scan_child_bus: functions first, then bridges depth-first. Returns the last bus
        number used below."""
        only_one_child = parent is not None and parent.port_type == PCI_EXP_TYPE_DOWNSTREAM
        found = []
        for dev_no in range(1 if only_one_child else 32):
            rid = bus << 8 | dev_no << 3
            first = await self.scan_function(rid, parent)
            if first is None:
                continue
            found.append(first)
            htype = await self.read(rid, PCI_HEADER_TYPE, 1)
            if htype & PCI_HEADER_TYPE_MFD:
                for fn in range(1, 8):
                    more = await self.scan_function(rid | fn, parent)
                    if more is not None:
                        found.append(more)
        for dev in found:
            if dev.is_bridge:
                last_bus = await self.scan_bridge(dev, bus, last_bus)
        return found, last_bus

    async def scan_bridge(self, dev, bus, last_bus):
        """pci_scan_bridge (second pass): number the bus below, scan it, close the range."""
        rid = dev.rid
        sec = last_bus + 1
        # Primary, secondary, subordinate = 0xff while the bus below is scanned.
        await self.write(rid, PCI_PRIMARY_BUS, bus | sec << 8 | 0xFF << 16 | (await self.read(rid, PCI_PRIMARY_BUS)) & 0xFF000000)
        children, last = await self.scan_bus(sec, dev, sec)
        if dev.hotplug:
            last = max(last, sec + PCI_HOTPLUG_BUS_SIZE - 1)
        await self.write(rid, PCI_SUBORDINATE_BUS, last, 1)
        dev.secondary, dev.subordinate, dev.children = sec, last, children
        return last

    # -- resources ----------------------------------------------------------------------------
    @staticmethod
    def _window_need(dev, prefetch):
        """(size, align) of a bridge window: its children's needs, hot-plug minimums, 1 MiB."""
        items = PciHost._requests(dev.children, prefetch)
        size = 0
        align = MIB
        for need, al, _ in sorted(items, key=lambda x: -x[1]):
            size = (size + al - 1) // al * al + need
            align = max(align, al)
        if dev.hotplug:
            size = max(size, PCI_HOTPLUG_MMIO_PREF_SIZE if prefetch else PCI_HOTPLUG_MMIO_SIZE)
        size = (size + MIB - 1) // MIB * MIB
        return size, align

    @staticmethod
    def _requests(devs, prefetch):
        out = []
        for d in devs:
            for b in d.bars:
                if (b.prefetch and b.is64) == prefetch:
                    out.append((b.size, b.size, b))
            for b in (d.sriov.bars if d.sriov else []):
                if (b.prefetch and b.is64) == prefetch:
                    out.append((b.total, b.vf_size, b))
            if d.is_bridge:
                size, align = PciHost._window_need(d, prefetch)
                if size:
                    out.append((size, align, (d, prefetch)))
        return out

    @staticmethod
    def _assign(devs, base, end, prefetch):
        """Assigns the BARs and bridge windows of `devs` inside [base, end), largest alignment
        first (stable in discovery order), as __assign_resources_sorted does."""
        cur = base
        for size, align, what in sorted(PciHost._requests(devs, prefetch), key=lambda x: -x[1]):
            start = (cur + align - 1) // align * align
            if start + size > end:
                raise RuntimeError(f"no room for {size:#x} bytes in [{base:#x}, {end:#x})")
            if not isinstance(what, tuple):  # a BAR or a VF BAR
                what.base = start
            else:
                bridge, pref = what
                if pref:
                    bridge.pref_window = (start, start + size - 1)
                else:
                    bridge.mem_window = (start, start + size - 1)
                PciHost._assign(bridge.children, start, start + size, pref)
            cur = start + size

    async def program(self, dev):
        """Writes the assigned BARs and bridge windows (pci_setup_bridge, pci_update_resource)."""
        rid = dev.rid
        for b in dev.bars:
            off = PCI_BASE_ADDRESS_0 + 4 * b.index
            lo = await self.read(rid, off)
            await self.write(rid, off, (b.base & PCI_BASE_ADDRESS_MEM_MASK) | (lo & 0xF))
            if b.is64:
                await self.write(rid, off + 4, b.base >> 32)
        if dev.sriov:
            await iov.update_resources(self, dev)
        if dev.is_bridge:
            if dev.mem_window:
                lo, hi = dev.mem_window
                await self.write(rid, PCI_MEMORY_BASE, (lo >> 16) & 0xFFF0 | ((hi >> 16) & 0xFFF0) << 16)
            else:
                await self.write(rid, PCI_MEMORY_BASE, 0x0000FFF0)
            if dev.pref_window:
                lo, hi = dev.pref_window
                await self.write(rid, PCI_PREF_BASE_UPPER32, lo >> 32)
                await self.write(rid, PCI_PREF_LIMIT_UPPER32, hi >> 32)
                await self.write(rid, PCI_PREF_MEMORY_BASE, (lo >> 16) & 0xFFF0 | ((hi >> 16) & 0xFFF0) << 16)
            else:
                await self.write(rid, PCI_PREF_MEMORY_BASE, 0x0000FFF0)
                await self.write(rid, PCI_PREF_BASE_UPPER32, 0)
                await self.write(rid, PCI_PREF_LIMIT_UPPER32, 0)
        for c in dev.children:
            await self.program(c)

    # -- hot-plug (pci_scan_slot, pci_assign_unassigned_bridge_resources, removal) ------------
    async def scan_slot(self, bridge):
        """pci_scan_slot on the bus below a hot-plug port (function 0 only, as below any
        downstream port), then pci_assign_unassigned_bridge_resources: the new function's BARs
        go into the port's windows, which hold Linux's hot-plug reservations. Returns the new
        PciDev, or None when nothing answers."""
        rid = bridge.secondary << 8
        dev = await self.scan_function(rid, bridge)
        if dev is None:
            return None
        bridge.children.append(dev)
        for window, prefetch in ((bridge.mem_window, False), (bridge.pref_window, True)):
            if window:
                PciHost._assign([dev], window[0], window[1] + 1, prefetch)
        await self.program(dev)
        self.sim.log_event("host.pci", "pci_device", bdf=dev.bdf, vendor=f"{dev.vendor:04x}",
                           device=f"{dev.device:04x}", cls=f"{dev.class_code:06x}",
                           bars=[[b.index, f"{b.base:#x}", b.size] for b in dev.bars])
        return dev

    # -- SR-IOV (iov.c pci_iov_add_virtfn / pci_iov_remove_virtfn) ----------------------------
    async def add_virtfn(self, pf, rid, i):
        """VF i of `pf` at `rid`: VF 0 reads the class, header type and subsystem IDs, the
        others take the PF's; each VF's capabilities are walked (pci_device_add); its BAR is
        the PF's VF BAR + i x the per-VF size."""
        if i == 0:
            pf.sriov.vf_class = (await self.read(rid, PCI_CLASS_REVISION)) >> 8
            await self.read(rid, PCI_HEADER_TYPE, 1)
            await self.read(rid, PCI_SUBSYSTEM_VENDOR_ID, 2)
            await self.read(rid, PCI_SUBSYSTEM_ID, 2)
        vf = PciDev(rid, pf.vendor, pf.sriov.vf_device, pf.sriov.vf_class, PCI_HEADER_TYPE_NORMAL, parent=pf.parent,
                    physfn=pf)
        vf.bars = [Bar(b.index, b.vf_size, b.is64, b.prefetch, b.base + i * b.vf_size) for b in pf.sriov.bars]
        await self.walk_capabilities(vf)
        if pf.parent is not None:
            pf.parent.children.append(vf)
        else:
            self.root.append(vf)
        self.sim.log_event("host.pci", "pci_device", bdf=vf.bdf, vendor=f"{vf.vendor:04x}", device=f"{vf.device:04x}",
                           cls=f"{vf.class_code:06x}", bars=[[b.index, f"{b.base:#x}", b.size] for b in vf.bars],
                           physfn=pf.bdf)
        return vf

    def remove_virtfn(self, vf):
        if vf.parent is None and vf in self.root:
            self.root.remove(vf)
        self.remove_device(vf)

    async def disable_device(self, dev):
        """pci_disable_device (do_pci_disable_device): bus mastering off."""
        cmd = await self.read(dev.rid, PCI_COMMAND, 2)
        if cmd & PCI_COMMAND_MASTER:
            await self.write(dev.rid, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER, 2)

    def remove_device(self, dev):
        """pci_stop_and_remove_bus_device's bookkeeping: the function, unbound, leaves the tree."""
        dev.driver = None
        if dev.parent is not None and dev in dev.parent.children:
            dev.parent.children.remove(dev)
        self.sim.log_event("host.pci", "pci_device_removed", bdf=dev.bdf)

    # -- enabling -----------------------------------------------------------------------------
    async def enable_device(self, dev):
        """pci_enable_device + pci_set_master, the bridges above first."""
        if dev.parent is not None:
            await self.enable_device(dev.parent)
        cmd = await self.read(dev.rid, PCI_COMMAND, 2)
        want = cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER
        if want != cmd:
            await self.write(dev.rid, PCI_COMMAND, want, 2)

    def _irq_message(self, i):
        """An x86 MSI message: the LAPIC of CPU i % cpus, a unique vector number as data."""
        data = self.next_irq
        self.next_irq += 1
        return MSI_ADDRESS | ((i % self.cpus) << 12), data

    async def enable_msi(self, dev):
        """One MSI vector (portdrv on a switch port): address, data, then enable."""
        pos = dev.cap(PCI_CAP_ID_MSI)
        if pos is None:
            return None
        flags = await self.read(dev.rid, pos + PCI_MSI_FLAGS, 2)
        addr, data = self._irq_message(0)
        await self.write(dev.rid, pos + PCI_MSI_ADDRESS_LO, addr & 0xFFFFFFFF)
        if flags & PCI_MSI_FLAGS_64BIT:
            await self.write(dev.rid, pos + PCI_MSI_ADDRESS_HI, addr >> 32)
            await self.write(dev.rid, pos + PCI_MSI_DATA_64, data, 2)
        else:
            await self.write(dev.rid, pos + PCI_MSI_DATA_32, data, 2)
        await self.write(dev.rid, pos + PCI_MSI_FLAGS, (flags & ~0x70) | PCI_MSI_FLAGS_ENABLE, 2)
        dev.irqs = [data]
        return data

    async def alloc_irq_vectors(self, dev, count):
        """msix_capability_init: enable with the function masked, program `count` entries
        through the table in the BAR, mask every entry, unmask the function. Entries stay
        masked until request_irq(). Returns the message data of each vector."""
        pos = dev.cap(PCI_CAP_ID_MSIX)
        if pos is None:
            raise ValueError(f"{dev.bdf} has no MSI-X capability")
        ctrl = await self.read(dev.rid, pos + PCI_MSIX_FLAGS, 2)
        size = (ctrl & PCI_MSIX_FLAGS_QSIZE) + 1
        count = min(count, size)
        await self.write(dev.rid, pos + PCI_MSIX_FLAGS, ctrl | PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL, 2)
        table = await self.read(dev.rid, pos + PCI_MSIX_TABLE)
        bar = next(b for b in dev.bars if b.index == table & PCI_MSIX_TABLE_BIR)
        base = bar.base + (table & ~PCI_MSIX_TABLE_BIR)
        h = self.sim.host
        for i in range(count):
            await h.mem_read32(base + i * PCI_MSIX_ENTRY_SIZE + PCI_MSIX_ENTRY_VECTOR_CTRL)
        irqs = []
        for i in range(count):
            addr, data = self._irq_message(i)
            entry = base + i * PCI_MSIX_ENTRY_SIZE
            await h.mem_write32(entry + PCI_MSIX_ENTRY_LOWER_ADDR, addr & 0xFFFFFFFF)
            await h.mem_write32(entry + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32)
            await h.mem_write32(entry + PCI_MSIX_ENTRY_DATA, data)
            irqs.append(data)
        cmd = await self.read(dev.rid, PCI_COMMAND, 2)
        await self.write(dev.rid, PCI_COMMAND, cmd | PCI_COMMAND_INTX_DISABLE, 2)
        for i in range(size):  # msix_mask_all
            await h.mem_write32(base + i * PCI_MSIX_ENTRY_SIZE + PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT)
        await self.write(dev.rid, pos + PCI_MSIX_FLAGS, (ctrl | PCI_MSIX_FLAGS_ENABLE) & ~PCI_MSIX_FLAGS_MASKALL, 2)
        dev.irqs = irqs
        dev.msix_table = base
        return irqs

    async def request_irq(self, dev, vector):
        """Unmasks one MSI-X vector (what enabling its IRQ does)."""
        await self.sim.host.mem_write32(dev.msix_table + vector * PCI_MSIX_ENTRY_SIZE + PCI_MSIX_ENTRY_VECTOR_CTRL, 0)

    async def mask_irq(self, dev, vector):
        await self.sim.host.mem_write32(dev.msix_table + vector * PCI_MSIX_ENTRY_SIZE + PCI_MSIX_ENTRY_VECTOR_CTRL,
                                        PCI_MSIX_ENTRY_CTRL_MASKBIT)


async def pci_host_probe(sim, enable=True, probe=False):
    """Enumerates the hierarchy from bus 0 as Linux does at boot; returns the PciHost whose
    `root` is the list of functions on bus 0 (each with its subtree). With `probe`, then
    pci_bus_add_devices: each endpoint's driver, matched on its (vendor, device), binds in BDF
    order (pci_driver.probe_all; the driver objects are the PciDevs' `driver`)."""
    host = PciHost(sim)
    sim.log("PCI: probing bus 0", path="host.pci")
    root, last = await host.scan_bus(0, None, 0)
    host.root = root
    PciHost._assign(root, MMIO32_BASE, MMIO32_END, False)
    PciHost._assign(root, MMIO64_BASE, MMIO64_END, True)
    for dev in root:
        await host.program(dev)
    for dev in host.devices():
        sim.log_event("host.pci", "pci_device", bdf=dev.bdf, vendor=f"{dev.vendor:04x}", device=f"{dev.device:04x}",
                      cls=f"{dev.class_code:06x}",
                      bars=[[b.index, f"{b.base:#x}", b.size] for b in dev.bars])
    if enable:
        for dev in host.devices():
            if dev.is_bridge:
                await host.enable_device(dev)
                if dev.port_type == PCI_EXP_TYPE_DOWNSTREAM:
                    await host.enable_msi(dev)
            else:
                await host.enable_device(dev)
    sim.log(f"PCI: enumeration done, {sum(1 for _ in host.devices())} functions, last bus {last:02x}",
            path="host.pci")
    if probe:
        await pci_driver.probe_all(sim, host)
    return host


def __getattr__(name):
    """The old public name `enumerate`, kept working as a deprecated alias of pci_host_probe:
    served on lookup (PEP 562) so that it shadows the builtin neither here nor under a star
    import."""
    if name == "enumerate":
        warnings.warn("dpusim.drivers.pci.enumerate is deprecated: use pci_host_probe", DeprecationWarning,
                      stacklevel=2)
        return pci_host_probe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
