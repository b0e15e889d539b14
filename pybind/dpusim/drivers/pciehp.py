"""A PCIe native hot-plug driver doing what Linux pciehp does (drivers/pci/hotplug/pciehp_core.c,
pciehp_hpc.c, pciehp_ctrl.c, pciehp_pci.c and pcie_wait_for_link in drivers/pci/pci.c, ~v6.12),
step by step, as config traffic and MSIs. One Controller per hot-plug capable port:

  probe: pcie_init (Slot Capabilities, clear the Slot Status events, power off an empty but
  powered slot) -> request the port's MSI (portdrv) -> pcie_enable_notification (one Slot
  Control write, not waited for) -> pciehp_check_presence.
  interrupt: pciehp_isr reads Slot Status, writes the event bits back (W1C), re-reads while any
  is set (MSI mode), wakes the Command Completed waiter, and hands the other events to the IRQ
  thread, pciehp_ist: attention button -> pciehp_handle_button_press (5 s delayed work),
  presence/link change -> pciehp_handle_presence_or_link_change -> board_added: power on (Slot
  Control write, wait for Command Completed), Link Disable cleared, 20 ms, Data Link Layer Link
  Active polled every 1 ms for up to 1 s, 100 ms, vendor ID polled every 20 ms for up to 1 s,
  then the function is scanned into the port's reserved windows and its driver probes.
  removal: the button's 5 s expire -> DISABLE_SLOT -> the driver unbinds, power off (wait for
  Command Completed), 1 s.
Every Slot Control write first waits for the previous command's Command Completed (the
interrupt when HPIE and CCIE are set), for up to 1 s after that command was issued, else logs
Linux's "Timeout on hotplug command".

Delays are the profile's host.pciehp.* parameters (docs/timing.md). Log lines are the kernel's,
as dmesg prints them ("pcieport 0000:01:00.0: pciehp: Slot(0): Card present"), on the path
"host.pciehp"; the steps are events "pciehp" (op: slot_ctl_write, cmd_wait, msleep, state...).

Departures on purpose (docs/fidelity.md): poll_ps, a Slot Status poll while the interrupt is
enabled, which Linux never does; ignore_unplug, ack_plug=False and clear_delay_ps, a host that
misbehaves.

The controller side is pciehp_hpc.py, the state machine pciehp_ctrl.py (mixins of Controller).
"""
from dpusim.drivers import pci_driver
from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.drivers.pciehp_ctrl import CtrlOps
from dpusim.drivers.pciehp_hpc import (BLINKINGOFF_STATE, BLINKINGON_STATE, MS, OFF_STATE, ON_STATE,  # noqa: F401
                                       POWEROFF_STATE, POWERON_STATE, STATE_NAMES, HpcOps)
from dpusim.futures import Future


def _flag(x, y):
    return "+" if x & y else "-"


class Controller(HpcOps, CtrlOps):
    """struct controller: one hot-plug port and its slot."""

    def __init__(self, sim, pci, port, ignore_unplug=False, ack_plug=True, clear_delay_ps=0, poll_ps=None,
                 bind=None):
        self.sim, self.pci, self.port, self.h = sim, pci, port, sim.host
        self.exp = port.cap(PCI_CAP_ID_EXP)
        self.ignore_unplug, self.ack_plug, self.clear_delay_ps = ignore_unplug, ack_plug, clear_delay_ps
        self.poll_ps = poll_ps
        self.bind = bind or pci_bus_add_device
        self.state = OFF_STATE
        self.slot_cap = self.slot_ctrl = 0
        self.cmd_busy = False
        self.cmd_started = 0
        self._cmd_waiter = None
        self.pending_events = 0
        self.power_fault_detected = False
        self.link_active_reporting = False
        self.request_result = 0
        self._thread_pending = False
        self._thread_waiter = None
        self._button_work = 0  # the delayed work's generation: a cancel bumps it
        self._poll_gen = 0
        self.driver = None  # the bound driver of the function in the slot
        self.dev = None
        self._bound = []    # futures waiting for the next driver bind
        self._disabled = []  # ... and for the next disable

    # ---- log ----------------------------------------------------------------------------
    def _dmesg(self, level, msg):
        self.sim.log(f"pcieport 0000:{self.port.bdf}: pciehp: {msg}", level=level, path="host.pciehp")

    def ctrl_info(self, msg):
        self._dmesg("info", msg)

    def ctrl_err(self, msg):
        self._dmesg("error", msg)

    def ctrl_dbg(self, msg):
        self._dmesg("debug", msg)

    def event(self, op, **fields):
        self.sim.log_event("host.pciehp", "pciehp", port=self.port.bdf, op=op, **fields)

    def set_state(self, state):
        if state != self.state:
            self.state = state
            self.event("state", state=STATE_NAMES[state])

    def note_msleep(self, ps, why):
        """Logs an msleep of `ps` (event "pciehp", op "msleep"); returns `ps`."""
        self.event("msleep", ms=ps / MS, why=why)
        return ps

    async def msleep(self, ps, why):
        await self.sim.sleep(self.note_msleep(ps, why))

    def cost(self, name):
        return self.sim.cost(f"host.pciehp.{name}")

    def latency(self, name):
        """One msleep/delayed-work wait of a host.pciehp parameter (drawn when exploring)."""
        return self.sim.latency(f"host.pciehp.{name}")

    # ---- probe (pciehp_probe, pcie_init) -------------------------------------------------
    async def probe(self):
        self.slot_cap = await self.read32(PCI_EXP_SLTCAP)
        # dbg_ctrl
        self.ctrl_dbg(f"Slot Capabilities      : 0x{self.slot_cap:08x}")
        self.ctrl_dbg(f"Slot Status            : 0x{await self.read16(PCI_EXP_SLTSTA):04x}")
        self.ctrl_dbg(f"Slot Control           : 0x{await self.read16(PCI_EXP_SLTCTL):04x}")
        self.set_state(ON_STATE if self.port.children else OFF_STATE)
        slot_cap2 = await self.read32(PCI_EXP_SLTCAP2)
        # pdev->link_active_reporting, which the PCI core reads from Link Capabilities.
        self.link_active_reporting = bool(await self.read32(PCI_EXP_LNKCAP) & PCI_EXP_LNKCAP_DLLLARC)
        await self.write16(PCI_EXP_SLTSTA, PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PFD | PCI_EXP_SLTSTA_MRLSC
                           | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC | PCI_EXP_SLTSTA_PDC)
        c = self.slot_cap
        self.ctrl_info(
            f"Slot #{(c & PCI_EXP_SLTCAP_PSN) >> 19} AttnBtn{_flag(c, PCI_EXP_SLTCAP_ABP)} "
            f"PwrCtrl{_flag(c, PCI_EXP_SLTCAP_PCP)} MRL{_flag(c, PCI_EXP_SLTCAP_MRLSP)} "
            f"AttnInd{_flag(c, PCI_EXP_SLTCAP_AIP)} PwrInd{_flag(c, PCI_EXP_SLTCAP_PIP)} "
            f"HotPlug{_flag(c, PCI_EXP_SLTCAP_HPC)} Surprise{_flag(c, PCI_EXP_SLTCAP_HPS)} "
            f"Interlock{_flag(c, PCI_EXP_SLTCAP_EIP)} NoCompl{_flag(c, PCI_EXP_SLTCAP_NCCS)} "
            f"IbPresDis{_flag(slot_cap2, PCI_EXP_SLTCAP2_IBPD)} LLActRep{_flag(self.link_active_reporting, True)}")
        if self.power_ctrl:
            poweron = await self.pciehp_get_power_status()
            if not await self.pciehp_card_present_or_link_active() and poweron:
                await self.pcie_disable_notification()
                await self.pciehp_power_off_slot()
        self.slot_name = self.pci.make_slot_name(str((c & PCI_EXP_SLTCAP_PSN) >> 19))
        # pcie_init_notification: pciehp_request_irq, then pcie_enable_notification.
        self.irq = self.port.irqs[0]
        self.sim.spawn(self._irq_handler(), f"pciehp-irq {self.port.bdf}")
        self.sim.spawn(self._irq_thread(), f"pciehp-ist {self.port.bdf}")
        await self.pcie_enable_notification()
        if self.poll_ps:
            self.enable_slot_status_poll(self.poll_ps)
        await self.pciehp_check_presence()
        return self

    # ---- for scenarios --------------------------------------------------------------------
    def wait_bound(self):
        """A future of the next driver bound in this slot (the driver object)."""
        fut = Future(self.sim, f"pciehp {self.port.bdf} bound")
        self._bound.append(fut)
        return fut

    def wait_disabled(self):
        """A future done when the slot is next disabled (driver unbound, power off, the 1 s
        after it): pciehp_disable_slot's result."""
        fut = Future(self.sim, f"pciehp {self.port.bdf} disabled")
        self._disabled.append(fut)
        return fut


async def pci_bus_add_device(sim, pci, dev):
    """pci_bus_add_device -> device_attach: the driver whose id table has the hot-added
    function binds (pci_enable_device and pci_set_master first, as virtio_pci_probe and
    ionic_probe do); a function no driver takes stays unbound (dpusim.drivers.pci_driver)."""
    return await pci_driver.bind(sim, pci, dev, enable=True)


async def pciehp_probe_all(sim, pci, **options):
    """pciehp_probe on every hot-plug capable downstream port, in BDF order; returns the
    controllers in that order."""
    out = []
    for port in sorted((d for d in pci.devices() if d.is_bridge and d.hotplug), key=lambda d: d.rid):
        out.append(await Controller(sim, pci, port, **options).probe())
    return out


__all__ = ["Controller", "pciehp_probe_all", "pci_bus_add_device", "STATE_NAMES", "OFF_STATE", "ON_STATE", "BLINKINGON_STATE",
           "BLINKINGOFF_STATE", "POWERON_STATE", "POWEROFF_STATE"]
