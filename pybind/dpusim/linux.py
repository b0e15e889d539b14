"""A real Linux kernel on the platform: user-mode Linux with its own drivers, in simulated time
(docs/linux.md).

    linux = await sim.boot_linux(devices=["ep0", "ep1"])
    rc, out = await linux.sh("ip -br link")
    await linux.halt()

The Python PCI driver enumerates the switch first (bus numbers, BARs, windows); then the
kernel, built by `./dpusim linux-build` into build/linux/, boots with one virt-pci slot per
endpoint function named in `devices` (a PF "ep<i>", or an enabled VF "ep<i>.vf<j>") and binds
its own drivers to them (virtio_net through virtio_pci, ionic). The bridge on the root complex (models/host/linux_bridge.h) is its
vhost-user device and its time-travel scheduler, so the kernel's time is simulated time and a
run replays from its seed. Its console lines are "console" events of path "linux"; each
command is one "sh" event with its exit status and output.
"""
import hashlib
import os
import shutil
import tempfile

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pci_regs import (PCI_CAP_ID_MSIX, PCI_MSIX_FLAGS, PCI_MSIX_FLAGS_QSIZE, PCI_MSIX_TABLE,
                                     PCI_MSIX_TABLE_BIR)
from dpusim.drivers.virtio_net import VIRTIO_NET_DEVICE_ID, VIRTIO_VENDOR_ID, VirtioNet
from dpusim.drivers.virtio_regs import (VIRTIO_NET_CFG_MAX_VQ_PAIRS, VIRTIO_NET_F_CTRL_VQ, VIRTIO_NET_F_MQ,
                                        VIRTIO_PCI_COMMON_Q_NOFF, VIRTIO_PCI_COMMON_Q_SELECT)
from dpusim.errors import SimError
from dpusim.units import s

# CONFIG_UML_PCI_OVER_VIRTIO_DEVICE_ID in linux/uml.config: virt-pci binds to this virtio ID.
VIRTIO_DEVICE_ID = 1234


class LinuxUnavailable(SimError):
    """The kernel (or the getrandom shim) has not been built: `./dpusim linux-build`."""


def _root():
    return os.environ.get("DPUSIM_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(__file__)))


def build_dir():
    """Where `./dpusim linux-build` puts the kernel: build/linux/."""
    return os.path.join(os.environ.get("DPUSIM_BUILD_DIR") or os.path.join(_root(), "build"), "linux")


def kernel_path():
    """The ARCH=um kernel: $DPUSIM_LINUX_KERNEL (your own build), else build/linux/linux."""
    return os.environ.get("DPUSIM_LINUX_KERNEL") or os.path.join(build_dir(), "linux")


def unavailable_reason():
    """Why a kernel cannot be booted here, or None."""
    kernel = kernel_path()
    if not os.access(kernel, os.X_OK):
        return f"no user-mode Linux kernel at {kernel}: run ./dpusim linux-build"
    shim = os.path.join(build_dir(), "uml_getrandom.so")
    if not os.path.exists(shim):
        return f"no getrandom shim at {shim}: run ./dpusim linux-build"
    return None


def guest_init():
    """The guest's init (linux/guest_init.sh) at a path that does not depend on the checkout:
    a copy named by its content in the host's temporary folder, which the guest reads through
    hostfs. The kernel prints its command line and mixes it into its random pool
    (random_init_early), so an init named by the checkout's path would make two checkouts of one
    commit give two hashes. Written once (atomically) and shared by every run of that content."""
    with open(os.path.join(_root(), "linux", "guest_init.sh"), "rb") as f:
        text = f.read()
    path = os.path.join("/tmp", f"dpusim-guest-init-{hashlib.sha256(text).hexdigest()[:16]}.sh")
    try:
        with open(path, "rb") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    fd, part = tempfile.mkstemp(dir="/tmp", prefix="dpusim-guest-init-")
    with os.fdopen(fd, "wb") as f:
        f.write(text)
    os.chmod(part, 0o755)
    os.replace(part, path)
    return path


async def _held_writes(sim, pci, dev):
    """The registers the kernel's driver busy-waits after writing (docs/linux.md, "Held
    writes"): for virtio-net, the control queue's notify address (virtnet_send_command_reply
    spins with cpu_relax() until the device answers). Found as virtio_pci finds it: the
    notify capability, and queue_notify_off of queue 2 * max_virtqueue_pairs."""
    if (dev.vendor, dev.device) != (VIRTIO_VENDOR_ID, VIRTIO_NET_DEVICE_ID):
        return []
    net = VirtioNet(sim, pci, dev)
    await net.find_caps()
    features = await net.get_features()
    if not features >> VIRTIO_NET_F_CTRL_VQ & 1:
        return []
    pairs = await net.cread(VIRTIO_NET_CFG_MAX_VQ_PAIRS, 2) if features >> VIRTIO_NET_F_MQ & 1 else 1
    await net.w16(VIRTIO_PCI_COMMON_Q_SELECT, 2 * pairs)
    notify_off = await net.r16(VIRTIO_PCI_COMMON_Q_NOFF)
    return [net.notify_base + notify_off * net.notify_mult]


def _find(sim, pci, name):
    """The PciDev of "ep<i>", or of "ep<i>.vf<j>": VF j of that PF, once the Python driver has
    enabled it (sriov.sriov_numvfs)."""
    pf_name, dot, vf = name.partition(".vf")
    dev = pci.find(sim.platform.function_id(pf_name))
    if not dot or dev is None:
        return dev
    vfs = getattr(getattr(dev, "sriov", None), "vfs", None) or []
    if not vf.isdigit() or int(vf) >= len(vfs):
        raise ValueError(f"{name}: {pf_name} has {len(vfs)} VFs enabled (sriov.sriov_numvfs before boot_linux)")
    return vfs[int(vf)]


async def _device_spec(sim, pci, name):
    dev = _find(sim, pci, name)
    if dev is None or dev.is_bridge:
        raise ValueError(f"{name}: not an endpoint function the PCI driver enumerated")
    rid = dev.rid
    spec = {"name": name, "bdf": rid, "msix_bar": -1, "msix_offset": 0, "msix_entries": 0, "msix_cap": 0,
            "bars": [{"index": b.index, "base": b.base, "size": b.size, "is64": b.is64, "prefetch": b.prefetch}
                     for b in dev.bars],
            "held_writes": await _held_writes(sim, pci, dev),
            # A VF reads FFFFh as its IDs; the kernel is shown the PF's Vendor ID and the VF
            # Device ID of the PF's SR-IOV capability, as Linux's iov.c takes them (linux_device.h).
            "ids": dev.vendor | dev.device << 16 if getattr(dev, "physfn", None) else 0}
    msix = dev.cap(PCI_CAP_ID_MSIX)
    if msix is not None:
        flags = await pci.read(rid, msix + PCI_MSIX_FLAGS, 2)
        table = await pci.read(rid, msix + PCI_MSIX_TABLE)
        spec.update(msix_bar=table & PCI_MSIX_TABLE_BIR, msix_offset=table & ~PCI_MSIX_TABLE_BIR,
                    msix_entries=(flags & PCI_MSIX_FLAGS_QSIZE) + 1, msix_cap=msix)
    return spec


class Linux:
    """The running kernel, as a scenario drives it."""

    def __init__(self, sim, run_dir):
        self.sim = sim
        self.run_dir = run_dir
        self._next = 1

    async def sh(self, cmd, timeout_ps=s(60)):
        """Runs `cmd` in the guest's shell; (exit status, output). SimTimeout if it has not
        ended within `timeout_ps` of simulated time."""
        n = self._next
        self._next += 1
        done = self.sim.wait_event("sh", path="linux", id=n)
        self.sim.platform.linux_input(f"{n} {cmd}")
        ev = await self.sim.timeout(done, timeout_ps)
        return ev["rc"], ev["out"]

    async def run(self, cmd, timeout_ps=s(60)):
        """Runs `cmd` in the guest's shell; its output. SimError if it exits with another status
        than 0."""
        rc, out = await self.sh(cmd, timeout_ps)
        if rc != 0:
            raise SimError(f"{cmd!r} exited {rc} in the guest: {out}")
        return out

    async def namespaces(self, ifaces, net="192.0.2"):
        """Moves interface i of `ifaces` into network namespace ns<i> with address net.<i+1>/24,
        and sets it up."""
        for i, iface in enumerate(ifaces):
            await self.run(f"ip netns add ns{i} && ip link set {iface} netns ns{i} && "
                           f"ip -n ns{i} addr add {net}.{i + 1}/24 dev {iface} && ip -n ns{i} link set {iface} up")

    async def halt(self, timeout_ps=s(10)):
        """Removes the guest's PCI functions, then powers it off (sysrq 'o'); the "linux_exit"
        event. The removal first: the power-off path tears virtio_uml's sockets down and then
        resets the virtio functions behind them, whose status reads all ones from then on, and
        virtio's reset polls it forever (docs/linux.md, "Departures")."""
        done = self.sim.wait_event("linux_exit", path="linux")
        self.sim.platform.linux_input("0 for d in /sys/bus/pci/devices/*; do echo 1 > $d/remove; done; "
                                      "echo o > /proc/sysrq-trigger")
        ev = await self.sim.timeout(done, timeout_ps)
        shutil.rmtree(self.run_dir, ignore_errors=True)
        return ev


async def boot_linux(sim, devices, pci=None, mem_mib=128, args=(), timeout_ps=s(120)):
    """Boots the kernel with `devices` (endpoint paths, "ep0"..., or an enabled VF, "ep0.vf0")
    in virt-pci slots 0, 1...; returns a Linux once its init takes commands. `pci`: the
    PciHost of an enumeration already done (else the switch is enumerated here)."""
    reason = unavailable_reason()
    if reason:
        raise LinuxUnavailable(reason)
    if pci is None:
        pci = await pci_host_probe(sim)
    specs = [await _device_spec(sim, pci, name) for name in devices]
    run_dir = os.path.join(build_dir(), f"run-{os.getpid()}")
    ready = sim.wait_event("console", path="linux", line="@@ready")
    sim.platform.linux_start({
        "kernel": kernel_path(), "init": guest_init(), "run_dir": run_dir,
        "preload": os.path.join(build_dir(), "uml_getrandom.so"), "mem_mib": mem_mib,
        "virtio_device_id": VIRTIO_DEVICE_ID, "args": list(args), "devices": specs})
    await sim.timeout(ready, timeout_ps)
    return Linux(sim, run_dir)
