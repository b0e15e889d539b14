"""SR-IOV on the host as Linux drivers/pci/iov.c does it.

- sriov_init(host, dev), at enumeration for a function with the SR-IOV capability (called by
  pci.py's scan after pci_configure_ari): a VF Enable left set is cleared (then 1 s), SR-IOV
  Control written with ARI Capable Hierarchy when the bus above has ARI forwarding enabled,
  TotalVFs read, System Page Size set to the smallest supported size >= PAGE_SIZE, the VF BARs
  sized (all-ones, read, restore), VF Device ID read, compute_max_vf_buses (NumVFs = TotalVFs
  down to 1, each time reading First VF Offset and VF Stride, then NumVFs = 0). Resource
  assignment reserves per-VF size x TotalVFs for each VF BAR, aligned to the per-VF size, and
  writes its address (pci_iov_update_resource).
- sriov_numvfs(host, dev, n): `echo N > /sys/bus/pci/devices/.../sriov_numvfs`
  (sriov_numvfs_store): -ERANGE above TotalVFs, nothing when N is the current count, -EBUSY
  when VFs are already enabled; N > 0 runs sriov_enable (InitialVFs read, NumVFs = N, First VF
  Offset and VF Stride read, VF Enable | VF MSE in one write of SR-IOV Control, 100 ms, then
  each VF added: VF 0's class, header type and subsystem IDs read, each VF's capabilities
  walked, its BAR the PF's VF BAR + i x size); 0 runs sriov_disable (VFs removed, VF Enable |
  VF MSE cleared, 1 s, NumVFs = 0, offset and stride re-read).
The driver reaches the device only through `host` (the PCI core's PciHost) and its `sim`.
"""
import errno
from dataclasses import dataclass, field

from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.units import MS

PAGE_SIZE = 4096
VF_ENABLE_WAIT_PS = 100 * MS    # sriov_enable: msleep(100) after VF Enable
VF_DISABLE_WAIT_PS = 1000 * MS  # sriov_disable / sriov_init: ssleep(1) after clearing VF Enable


@dataclass
class IovBar:
    """A VF BAR: per-VF size, the space reserved for TotalVFs, its assigned base."""
    index: int
    vf_size: int
    is64: bool
    prefetch: bool
    total: int
    base: int = 0


@dataclass
class SriovState:
    """struct pci_sriov."""
    pos: int
    total_vfs: int = 0
    initial_vfs: int = 0
    offset: int = 0
    stride: int = 0
    vf_device: int = 0
    vf_class: int = 0                        # read from VF 0 (pci_read_vf_config_common)
    pgsz: int = 0
    ctrl: int = 0
    num_vfs: int = 0
    bars: list = field(default_factory=list)
    vfs: list = field(default_factory=list)   # the VF PciDevs while enabled


def find_ext_cap(dev, cap_id):
    return next((off for cid, off in dev.ext_caps if cid == cap_id), None)


async def sriov_init(host, dev, ari_enabled):
    """iov.c sriov_init. Returns the SriovState, or None when TotalVFs is 0."""
    sim = host.sim
    pos = find_ext_cap(dev, PCI_EXT_CAP_ID_SRIOV)
    rid = dev.rid
    ctrl = await host.read(rid, pos + PCI_SRIOV_CTRL, 2)
    if ctrl & PCI_SRIOV_CTRL_VFE:
        await host.write(rid, pos + PCI_SRIOV_CTRL, 0, 2)
        await sim.sleep(VF_DISABLE_WAIT_PS)
    ctrl = PCI_SRIOV_CTRL_ARI if ari_enabled else 0
    await host.write(rid, pos + PCI_SRIOV_CTRL, ctrl, 2)
    total = await host.read(rid, pos + PCI_SRIOV_TOTAL_VF, 2)
    if not total:
        return None
    iov = SriovState(pos, total_vfs=total, ctrl=ctrl)
    pgsz = await host.read(rid, pos + PCI_SRIOV_SUP_PGSIZE)
    pgsz &= ~((PAGE_SIZE >> 12) - 1)
    if not pgsz:
        return None
    iov.pgsz = pgsz & -pgsz  # the lowest supported size
    await host.write(rid, pos + PCI_SRIOV_SYS_PGSIZE, iov.pgsz)
    i = 0
    while i < PCI_SRIOV_NUM_BARS:
        off = pos + PCI_SRIOV_BAR + 4 * i
        orig = await host.read(rid, off)
        await host.write(rid, off, 0xFFFFFFFF)
        mask = await host.read(rid, off)
        await host.write(rid, off, orig)
        if mask in (0, 0xFFFFFFFF) or mask & 1:
            i += 1
            continue
        is64 = (mask & 0x6) == 0x4
        size_mask = mask & ~0xF
        if is64:
            orig_hi = await host.read(rid, off + 4)
            await host.write(rid, off + 4, 0xFFFFFFFF)
            mask_hi = await host.read(rid, off + 4)
            await host.write(rid, off + 4, orig_hi)
            size = (~(size_mask | mask_hi << 32) & 0xFFFFFFFFFFFFFFFF) + 1
        else:
            size = (~size_mask & 0xFFFFFFFF) + 1
        iov.bars.append(IovBar(i, size, is64, bool(mask & 0x8), size * total))
        i += 2 if is64 else 1
    iov.vf_device = await host.read(rid, pos + PCI_SRIOV_VF_DID, 2)
    await host.read(rid, pos + PCI_SRIOV_CAP)
    await host.read(rid, pos + PCI_SRIOV_FUNC_LINK, 1)
    # compute_max_vf_buses
    for nr in range(total, 0, -1):
        await host.write(rid, pos + PCI_SRIOV_NUM_VF, nr, 2)
        offset = await host.read(rid, pos + PCI_SRIOV_VF_OFFSET, 2)
        stride = await host.read(rid, pos + PCI_SRIOV_VF_STRIDE, 2)
        if not offset or (nr > 1 and not stride):
            raise OSError(errno.EIO, f"{dev.bdf}: SR-IOV offset {offset} stride {stride} for {nr} VFs")
    await host.write(rid, pos + PCI_SRIOV_NUM_VF, 0, 2)
    iov.offset = await host.read(rid, pos + PCI_SRIOV_VF_OFFSET, 2)
    iov.stride = await host.read(rid, pos + PCI_SRIOV_VF_STRIDE, 2)
    sim.log(f"{dev.bdf}: SR-IOV TotalVFs={total} offset={iov.offset} stride={iov.stride} "
            f"VF BARs={[(b.index, hex(b.vf_size)) for b in iov.bars]}", path="host.pci")
    return iov


async def update_resources(host, dev):
    """pci_iov_update_resource for each VF BAR."""
    iov = dev.sriov
    for b in iov.bars:
        off = iov.pos + PCI_SRIOV_BAR + 4 * b.index
        lo = await host.read(dev.rid, off)
        await host.write(dev.rid, off, (b.base & 0xFFFFFFF0) | (lo & 0xF))
        if b.is64:
            await host.write(dev.rid, off + 4, b.base >> 32)


def vf_rid(dev, i):
    """pci_iov_virtfn_bus / devfn: PF devfn + offset + stride x i, carrying into the bus."""
    iov = dev.sriov
    devfn_sum = (dev.rid & 0xFF) + iov.offset + iov.stride * i
    return ((dev.rid >> 8) + (devfn_sum >> 8)) << 8 | (devfn_sum & 0xFF)


async def sriov_enable(host, dev, n):
    sim = host.sim
    iov = dev.sriov
    rid = dev.rid
    iov.initial_vfs = await host.read(rid, iov.pos + PCI_SRIOV_INITIAL_VF, 2)
    if n > iov.initial_vfs:
        raise OSError(errno.EINVAL, f"{dev.bdf}: {n} VFs > InitialVFs {iov.initial_vfs}")
    await host.write(rid, iov.pos + PCI_SRIOV_NUM_VF, n, 2)
    iov.offset = await host.read(rid, iov.pos + PCI_SRIOV_VF_OFFSET, 2)
    iov.stride = await host.read(rid, iov.pos + PCI_SRIOV_VF_STRIDE, 2)
    iov.ctrl |= PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE
    await host.write(rid, iov.pos + PCI_SRIOV_CTRL, iov.ctrl, 2)
    await sim.sleep(VF_ENABLE_WAIT_PS)
    iov.vfs = []
    for i in range(n):
        vf = await host.add_virtfn(dev, vf_rid(dev, i), i)
        iov.vfs.append(vf)
    iov.num_vfs = n
    sim.log(f"{dev.bdf}: {n} VFs enabled", path="host.pci")
    return iov.vfs


async def sriov_disable(host, dev):
    sim = host.sim
    iov = dev.sriov
    rid = dev.rid
    for vf in reversed(iov.vfs):
        host.remove_virtfn(vf)
    iov.vfs = []
    iov.ctrl &= ~(PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE)
    await host.write(rid, iov.pos + PCI_SRIOV_CTRL, iov.ctrl, 2)
    await sim.sleep(VF_DISABLE_WAIT_PS)
    await host.write(rid, iov.pos + PCI_SRIOV_NUM_VF, 0, 2)
    iov.offset = await host.read(rid, iov.pos + PCI_SRIOV_VF_OFFSET, 2)
    iov.stride = await host.read(rid, iov.pos + PCI_SRIOV_VF_STRIDE, 2)
    iov.num_vfs = 0
    sim.log(f"{dev.bdf}: VFs disabled", path="host.pci")


async def sriov_numvfs(host, dev, n):
    """`echo n > sriov_numvfs` (sriov_numvfs_store): returns the VF PciDevs now enabled."""
    iov = getattr(dev, "sriov", None)
    if iov is None:
        raise OSError(errno.ENOENT, f"{dev.bdf} has no SR-IOV capability")
    if n < 0 or n > iov.total_vfs:
        raise OSError(errno.ERANGE, f"{dev.bdf}: {n} VFs outside 0..TotalVFs {iov.total_vfs}")
    if n == iov.num_vfs:
        return iov.vfs
    if n and iov.num_vfs:
        raise OSError(errno.EBUSY, f"{dev.bdf}: {iov.num_vfs} VFs already enabled")
    if n == 0:
        await sriov_disable(host, dev)
        return []
    return await sriov_enable(host, dev, n)

