"""A function-level reset as Linux does it (drivers/pci/pci.c: pci_reset_function with the
flr method, pcie_flr, pci_dev_wait; PCIe r5.0 §6.6.2):

  1. pci_dev_save_and_disable: save the state (Command, the PCI Express Device Control, the
     MSI-X Message Control), then write Command = INTx Disable only;
  2. pci_wait_for_pending_transaction: read Device Status until Transactions Pending is clear
     (now, then after 100, 200, 400 ms; on timeout reset anyway);
  3. set Initiate FLR in Device Control (read-modify-write, pcie_capability_set_word);
  4. msleep(100);
  5. pci_dev_wait: read the dword at Command/Status until it is not all-ones, sleeping 1, 2,
     4... ms between reads, giving up after 60 s;
  6. pci_dev_restore: write back the saved registers.
The driver reaches the function only through `host` (the PCI core's PciHost) and its `sim`.
"""
import errno
import itertools

from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.errors import PollTimeout
from dpusim.units import MS

FLR_WAIT_PS = 100 * MS
PENDING_WAITS_MS = (100, 200, 400)
READY_TIMEOUT_MS = 60000


async def pcie_flr(host, dev):
    """Resets `dev` (a PciDev with the PCIe capability and FLR in Device Capabilities)."""
    sim = host.sim
    rid = dev.rid
    exp = dev.cap(PCI_CAP_ID_EXP)
    if exp is None or not (await host.read(rid, exp + PCI_EXP_DEVCAP)) & PCI_EXP_DEVCAP_FLR:
        raise OSError(errno.ENOTTY, f"{dev.bdf}: no Function Level Reset capability")
    msix = dev.cap(PCI_CAP_ID_MSIX)
    saved_cmd = await host.read(rid, PCI_COMMAND, 2)
    saved_devctl = await host.read(rid, exp + PCI_EXP_DEVCTL, 2)
    saved_msix = await host.read(rid, msix + PCI_MSIX_FLAGS, 2) if msix is not None else None
    await host.write(rid, PCI_COMMAND, PCI_COMMAND_INTX_DISABLE, 2)
    for wait in (0,) + PENDING_WAITS_MS:
        if wait:
            await sim.sleep(wait * MS)
        if not (await host.read(rid, exp + PCI_EXP_DEVSTA, 2)) & PCI_EXP_DEVSTA_TRPND:
            break
    else:
        sim.log(f"{dev.bdf}: timed out waiting for pending transaction; performing function level reset anyway",
                path="host.pci")
    devctl = await host.read(rid, exp + PCI_EXP_DEVCTL, 2)
    await host.write(rid, exp + PCI_EXP_DEVCTL, devctl | PCI_EXP_DEVCTL_BCR_FLR, 2)
    await sim.sleep(FLR_WAIT_PS)
    delays = (MS << i for i in itertools.count())  # 1, 2, 4... ms
    try:
        await sim.poll(lambda: host.read(rid, PCI_COMMAND), lambda v: v != 0xFFFFFFFF, lambda: next(delays),
                       READY_TIMEOUT_MS * MS, f"{dev.bdf}: ready after FLR", counts="waits", give_up="before_wait")
    except PollTimeout as e:
        raise OSError(errno.ENOTTY, f"{dev.bdf}: not ready {e.spent_ps // MS}ms after FLR; giving up") from None
    await host.write(rid, exp + PCI_EXP_DEVCTL, saved_devctl, 2)
    if saved_msix is not None:
        await host.write(rid, msix + PCI_MSIX_FLAGS, saved_msix, 2)
    await host.write(rid, PCI_COMMAND, saved_cmd, 2)
    sim.log(f"{dev.bdf}: function level reset done", path="host.pci")
