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
"""
from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.runtime import Future, SimTimeout

OFF_STATE, BLINKINGON_STATE, BLINKINGOFF_STATE, POWERON_STATE, POWEROFF_STATE, ON_STATE = range(6)
STATE_NAMES = ["OFF_STATE", "BLINKINGON_STATE", "BLINKINGOFF_STATE", "POWERON_STATE", "POWEROFF_STATE",
               "ON_STATE"]
DISABLE_SLOT = 1 << 16  # pciehp.h: a request beside the Slot Status event bits
SAFE_REMOVAL, SURPRISE_REMOVAL = True, False
IRQ_NONE, IRQ_HANDLED, IRQ_WAKE_THREAD = 0, 1, 2
EVENT_BITS = PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PFD | PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC
MS = 1_000_000_000


def _flag(x, y):
    return "+" if x & y else "-"


class Controller:
    """struct controller: one hot-plug port and its slot."""

    def __init__(self, sim, pci, port, ignore_unplug=False, ack_plug=True, clear_delay_ps=0, poll_ps=None,
                 bind=None):
        self.sim, self.pci, self.port, self.h = sim, pci, port, sim.host
        self.exp = port.cap(PCI_CAP_ID_EXP)
        self.ignore_unplug, self.ack_plug, self.clear_delay_ps = ignore_unplug, ack_plug, clear_delay_ps
        self.bind = bind or _bind_virtio_net
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

    async def msleep(self, ps, why):
        self.event("msleep", ms=ps / MS, why=why)
        await self.sim.sleep(ps)

    def cost(self, name):
        return self.sim.cost(f"host.pciehp.{name}")

    # ---- config helpers (pcie_capability_*) ---------------------------------------------
    async def read16(self, reg):
        return (await self.h.config_read(self.port.rid, self.exp + reg, 2)).value

    async def read32(self, reg):
        return (await self.h.config_read(self.port.rid, self.exp + reg, 4)).value

    async def write16(self, reg, value):
        await self.h.config_write(self.port.rid, self.exp + reg, value, 2)

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
        self.slot_name = self._make_slot_name(str((c & PCI_EXP_SLTCAP_PSN) >> 19))
        # pcie_init_notification: pciehp_request_irq, then pcie_enable_notification.
        self.irq = self.port.irqs[0]
        self.sim.spawn(self._irq_handler(), f"pciehp-irq {self.port.bdf}")
        self.sim.spawn(self._irq_thread(), f"pciehp-ist {self.port.bdf}")
        await self.pcie_enable_notification()
        await self.pciehp_check_presence()
        return self

    def _make_slot_name(self, name):
        """pci_create_slot's make_slot_name: a taken name gets "-1", "-2"..."""
        if not hasattr(self.sim, "_pci_slot_names"):
            self.sim._pci_slot_names = set()
        taken = self.sim._pci_slot_names
        new, dup = name, 1
        while new in taken:
            new, dup = f"{name}-{dup}", dup + 1
        taken.add(new)
        return new

    @property
    def power_ctrl(self):
        return bool(self.slot_cap & PCI_EXP_SLTCAP_PCP)

    @property
    def attn_buttn(self):
        return bool(self.slot_cap & PCI_EXP_SLTCAP_ABP)

    @property
    def no_cmd_cmpl(self):
        return bool(self.slot_cap & PCI_EXP_SLTCAP_NCCS)

    # ---- Slot Control commands (pcie_do_write_cmd, pcie_wait_cmd) -------------------------
    async def pcie_wait_cmd(self):
        if self.no_cmd_cmpl or not self.cmd_busy:
            return
        start = self.sim.now
        # Past the 1 s, one more (zero-length here) chance: the jiffy Linux still waits.
        left = max(self.cmd_started + self.cost("cmd_timeout_ps") - start, 0)
        by_irq = bool(self.slot_ctrl & PCI_EXP_SLTCTL_HPIE and self.slot_ctrl & PCI_EXP_SLTCTL_CCIE)
        if by_irq:
            if self.cmd_busy and left:
                self._cmd_waiter = Future(self.sim, "pciehp cmd_busy")
                try:
                    await self.sim.timeout(self._cmd_waiter, left)
                except SimTimeout:
                    pass
            rc = not self.cmd_busy
        else:
            rc = await self.pcie_poll_cmd(left)
        self.event("cmd_wait", by="interrupt" if by_irq else "poll", completed=rc, waited_ps=self.sim.now - start)
        if not rc:
            self.ctrl_info(f"Timeout on hotplug command {self.slot_ctrl:#06x} "
                           f"(issued {(self.sim.now - self.cmd_started) // MS} msec ago)")

    async def pcie_poll_cmd(self, timeout_ps):
        while True:
            status = await self.read16(PCI_EXP_SLTSTA)
            if status == 0xFFFF:
                self.ctrl_info("pcie_poll_cmd: no response from device")
                return False
            if status & PCI_EXP_SLTSTA_CC:
                await self.write16(PCI_EXP_SLTSTA, PCI_EXP_SLTSTA_CC)
                self.cmd_busy = False
                return True
            await self.sim.sleep(10 * MS)
            timeout_ps -= 10 * MS
            if timeout_ps < 0:
                return False

    async def pcie_do_write_cmd(self, cmd, mask, wait):
        await self.pcie_wait_cmd()
        slot_ctrl = await self.read16(PCI_EXP_SLTCTL)
        if slot_ctrl == 0xFFFF:
            self.ctrl_info("pcie_do_write_cmd: no response from device")
            return
        slot_ctrl = (slot_ctrl & ~mask) | (cmd & mask)
        self.cmd_busy = True
        self.slot_ctrl = slot_ctrl
        self.event("slot_ctl_write", value=slot_ctrl, cmd=cmd, mask=mask, wait=wait)
        await self.write16(PCI_EXP_SLTCTL, slot_ctrl)
        self.cmd_started = self.sim.now
        if wait:
            await self.pcie_wait_cmd()

    async def pcie_write_cmd(self, cmd, mask):
        await self.pcie_do_write_cmd(cmd, mask, True)

    async def pcie_write_cmd_nowait(self, cmd, mask):
        await self.pcie_do_write_cmd(cmd, mask, False)

    async def pcie_enable_notification(self):
        # Link events always; presence detect only without an attention button.
        cmd = PCI_EXP_SLTCTL_DLLSCE | (PCI_EXP_SLTCTL_ABPE if self.attn_buttn else PCI_EXP_SLTCTL_PDCE)
        cmd |= PCI_EXP_SLTCTL_HPIE
        if not self.no_cmd_cmpl:
            cmd |= PCI_EXP_SLTCTL_CCIE
        mask = (PCI_EXP_SLTCTL_PDCE | PCI_EXP_SLTCTL_ABPE | PCI_EXP_SLTCTL_PFDE | PCI_EXP_SLTCTL_HPIE
                | PCI_EXP_SLTCTL_CCIE | PCI_EXP_SLTCTL_DLLSCE)
        await self.pcie_write_cmd_nowait(cmd, mask)
        self.ctrl_dbg(f"pcie_enable_notification: SLOTCTRL {self.exp + PCI_EXP_SLTCTL:x} write cmd {cmd:x}")

    async def pcie_disable_notification(self):
        mask = (PCI_EXP_SLTCTL_PDCE | PCI_EXP_SLTCTL_ABPE | PCI_EXP_SLTCTL_MRLSCE | PCI_EXP_SLTCTL_PFDE
                | PCI_EXP_SLTCTL_HPIE | PCI_EXP_SLTCTL_CCIE | PCI_EXP_SLTCTL_DLLSCE)
        await self.pcie_write_cmd(0, mask)
        self.ctrl_dbg(f"pcie_disable_notification: SLOTCTRL {self.exp + PCI_EXP_SLTCTL:x} write cmd 0")

    async def pciehp_power_on_slot(self):
        status = await self.read16(PCI_EXP_SLTSTA)
        if status & PCI_EXP_SLTSTA_PFD:
            await self.write16(PCI_EXP_SLTSTA, PCI_EXP_SLTSTA_PFD)
        self.power_fault_detected = False
        await self.pcie_write_cmd(PCI_EXP_SLTCTL_PWR_ON, PCI_EXP_SLTCTL_PCC)
        self.ctrl_dbg(f"pciehp_power_on_slot: SLOTCTRL {self.exp + PCI_EXP_SLTCTL:x} write cmd {PCI_EXP_SLTCTL_PWR_ON:x}")
        # pciehp_link_enable: Link Disable cleared.
        lnkctl = await self.read16(PCI_EXP_LNKCTL)
        await self.write16(PCI_EXP_LNKCTL, lnkctl & ~PCI_EXP_LNKCTL_LD)
        return 0

    async def pciehp_power_off_slot(self):
        await self.pcie_write_cmd(PCI_EXP_SLTCTL_PWR_OFF, PCI_EXP_SLTCTL_PCC)
        self.ctrl_dbg(f"pciehp_power_off_slot: SLOTCTRL {self.exp + PCI_EXP_SLTCTL:x} write cmd {PCI_EXP_SLTCTL_PWR_OFF:x}")

    async def pciehp_get_power_status(self):
        slot_ctrl = await self.read16(PCI_EXP_SLTCTL)
        self.ctrl_dbg(f"pciehp_get_power_status: SLOTCTRL {self.exp + PCI_EXP_SLTCTL:x} value read {slot_ctrl:x}")
        return 0 if slot_ctrl & PCI_EXP_SLTCTL_PCC else 1

    async def pciehp_card_present(self):
        status = await self.read16(PCI_EXP_SLTSTA)
        return -1 if status == 0xFFFF else int(bool(status & PCI_EXP_SLTSTA_PDS))

    async def pciehp_check_link_active(self):
        lnk = await self.read16(PCI_EXP_LNKSTA)
        if lnk == 0xFFFF:
            return -1
        self.ctrl_dbg(f"pciehp_check_link_active: lnk_status = {lnk:x}")
        return int(bool(lnk & PCI_EXP_LNKSTA_DLLLA))

    async def pciehp_card_present_or_link_active(self):
        ret = await self.pciehp_card_present()
        return ret if ret else await self.pciehp_check_link_active()

    # ---- interrupts (pciehp_isr, pciehp_ist, pciehp_request) ------------------------------
    async def _irq_handler(self):
        """The port's MSI vector: each message runs the hard handler once, in order."""
        seen = self.h.msi_mark()
        while True:
            m = await self.h.wait_msi(data=self.irq, requester=self.port.rid, since=seen)
            seen = self.h.msis.index(m, seen) + 1
            if await self.pciehp_isr() == IRQ_WAKE_THREAD:
                self.irq_wake_thread()

    async def pciehp_isr(self):
        if not (self.slot_ctrl & PCI_EXP_SLTCTL_HPIE):
            return IRQ_NONE
        events = 0
        while True:  # read_status
            status = await self.read16(PCI_EXP_SLTSTA)
            if status == 0xFFFF:
                self.ctrl_info("pciehp_isr: no response from device")
                return IRQ_NONE
            status &= EVENT_BITS
            if self.power_fault_detected:
                status &= ~PCI_EXP_SLTSTA_PFD
            elif status & PCI_EXP_SLTSTA_PFD:
                self.power_fault_detected = True
            events |= status
            if not events:
                return IRQ_NONE
            if not status:
                break
            if self.clear_delay_ps:
                await self.sim.sleep(self.clear_delay_ps)  # a host that clears late (misbehaviour)
            await self.write16(PCI_EXP_SLTSTA, status)
            # MSI mode: no new message until every event bit is clear, so re-read.
        self.ctrl_dbg(f"pending interrupts {events:#06x} from Slot Status")
        self.event("isr", events=events)
        if events & PCI_EXP_SLTSTA_CC:
            self.cmd_busy = False
            if self._cmd_waiter is not None:
                self._cmd_waiter.set_result(None)
            if events == PCI_EXP_SLTSTA_CC:
                return IRQ_HANDLED
            events &= ~PCI_EXP_SLTSTA_CC
        self.pending_events |= events
        return IRQ_WAKE_THREAD

    def irq_wake_thread(self):
        self._thread_pending = True
        if self._thread_waiter is not None and not self._thread_waiter.done:
            self._thread_waiter.set_result(None)

    def pciehp_request(self, action):
        self.pending_events |= action
        self.irq_wake_thread()

    async def _irq_thread(self):
        while True:
            if not self._thread_pending:
                self._thread_waiter = Future(self.sim, "pciehp irq thread")
                await self._thread_waiter
            self._thread_pending = False
            await self.pciehp_ist()

    async def pciehp_ist(self):
        events, self.pending_events = self.pending_events, 0
        if not events:
            return IRQ_NONE
        if events & PCI_EXP_SLTSTA_ABP:
            await self.pciehp_handle_button_press()
        if events & PCI_EXP_SLTSTA_PFD:
            self.ctrl_err(f"Slot({self.slot_name}): Power fault")
        if events & DISABLE_SLOT:
            await self.pciehp_handle_disable_request()
        elif events & (PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_DLLSC):
            await self.pciehp_handle_presence_or_link_change(events)
        return IRQ_HANDLED

    # ---- the Slot Status poll (not Linux: see the module docstring) -----------------------
    def enable_slot_status_poll(self, period_ps):
        """Reads Slot Status every `period_ps` and runs the interrupt handler when an event bit
        is set: what a host that does not trust the interrupt would do. Linux does not poll
        while the hot-plug interrupt is enabled."""
        self._poll_gen += 1
        gen = self._poll_gen
        self.event("poll", period_ps=period_ps)

        async def poll():
            while gen == self._poll_gen:
                await self.sim.sleep(period_ps)
                if gen == self._poll_gen and await self.pciehp_isr() == IRQ_WAKE_THREAD:
                    self.irq_wake_thread()

        self.sim.spawn(poll(), f"pciehp-poll {self.port.bdf}")

    def disable_slot_status_poll(self):
        self._poll_gen += 1

    # ---- the state machine (pciehp_ctrl.c) ------------------------------------------------
    def _schedule_button_work(self):
        self._button_work += 1
        gen = self._button_work

        async def work():
            await self.sim.sleep(self.cost("button_ps"))
            if gen == self._button_work:
                self.event("button_work", ms=self.cost("button_ps") / MS)
                self.pciehp_queue_pushbutton_work()

        self.event("button_work_scheduled", ms=self.cost("button_ps") / MS)
        self.sim.spawn(work(), f"pciehp-button {self.port.bdf}")

    def _cancel_button_work(self):
        self._button_work += 1
        self.event("button_work_cancelled")

    def pciehp_queue_pushbutton_work(self):
        if self.state == BLINKINGOFF_STATE:
            self.pciehp_request(DISABLE_SLOT)
        elif self.state == BLINKINGON_STATE:
            self.pciehp_request(PCI_EXP_SLTSTA_PDC)

    def _misbehaves(self, what):
        self._dmesg("warning", f"dpusim: host ignores the {what} on Slot({self.slot_name}) (scenario option)")
        self.event("ignored", what=what)

    async def pciehp_handle_button_press(self):
        if self.state == ON_STATE and self.ignore_unplug:
            return self._misbehaves("unplug request")
        if self.state == OFF_STATE and not self.ack_plug:
            return self._misbehaves("plug")
        if self.state in (OFF_STATE, ON_STATE):
            if self.state == ON_STATE:
                self.set_state(BLINKINGOFF_STATE)
                self.ctrl_info(f"Slot({self.slot_name}): Button press: will power off in 5 sec")
            else:
                self.set_state(BLINKINGON_STATE)
                self.ctrl_info(f"Slot({self.slot_name}): Button press: will power on in 5 sec")
            await self.pciehp_set_indicators()  # no indicators on this slot: nothing written
            self._schedule_button_work()
        elif self.state in (BLINKINGOFF_STATE, BLINKINGON_STATE):
            self._cancel_button_work()
            if self.state == BLINKINGOFF_STATE:
                self.set_state(ON_STATE)
                self.ctrl_info(f"Slot({self.slot_name}): Button press: canceling request to power off")
            else:
                self.set_state(OFF_STATE)
                self.ctrl_info(f"Slot({self.slot_name}): Button press: canceling request to power on")
        else:
            self.ctrl_err(f"Slot({self.slot_name}): Button press: ignoring invalid state {self.state:#x}")

    async def pciehp_set_indicators(self):
        """Writes only the indicators Slot Capabilities says exist (Power and Attention
        Indicator Present); the application's slots have neither."""
        if self.slot_cap & (PCI_EXP_SLTCAP_PIP | PCI_EXP_SLTCAP_AIP):
            raise NotImplementedError("indicator control: no modelled slot has indicators")

    async def pciehp_handle_disable_request(self):
        if self.state in (BLINKINGON_STATE, BLINKINGOFF_STATE):
            self._cancel_button_work()
        self.set_state(POWEROFF_STATE)
        self.request_result = await self.pciehp_disable_slot(SAFE_REMOVAL)

    async def pciehp_handle_presence_or_link_change(self, events):
        if self.state in (BLINKINGOFF_STATE, ON_STATE):
            if self.state == BLINKINGOFF_STATE:
                self._cancel_button_work()
            self.set_state(POWEROFF_STATE)
            if events & PCI_EXP_SLTSTA_DLLSC:
                self.ctrl_info(f"Slot({self.slot_name}): Link Down")
            if events & PCI_EXP_SLTSTA_PDC:
                self.ctrl_info(f"Slot({self.slot_name}): Card not present")
            await self.pciehp_disable_slot(SURPRISE_REMOVAL)
        present = await self.pciehp_card_present()
        link_active = await self.pciehp_check_link_active()
        if present <= 0 and link_active <= 0:
            if self.state == BLINKINGON_STATE:
                self.set_state(OFF_STATE)
                self._cancel_button_work()
                self.ctrl_info(f"Slot({self.slot_name}): Card not present")
            return
        if self.state in (BLINKINGON_STATE, OFF_STATE):
            if not self.ack_plug:
                return self._misbehaves("plug")
            if self.state == BLINKINGON_STATE:
                self._cancel_button_work()
            self.set_state(POWERON_STATE)
            if present:
                self.ctrl_info(f"Slot({self.slot_name}): Card present")
            if link_active:
                self.ctrl_info(f"Slot({self.slot_name}): Link Up")
            self.request_result = await self.pciehp_enable_slot()

    async def pciehp_enable_slot(self):
        ret = 0
        if self.power_ctrl and await self.pciehp_get_power_status():
            self.ctrl_info(f"Slot({self.slot_name}): Already enabled")
        else:
            ret = await self.board_added()
        self.set_state(OFF_STATE if ret else ON_STATE)
        self.event("slot_enabled" if not ret else "slot_enable_failed", result=ret)
        return ret

    async def board_added(self):
        if self.power_ctrl:
            ret = await self.pciehp_power_on_slot()
            if ret:
                return ret
        await self.pciehp_set_indicators()
        if await self.pciehp_check_link_status():
            ret = -1
        elif self.power_fault_detected or await self.pciehp_query_power_fault():
            self.ctrl_err(f"Slot({self.slot_name}): Power fault")
            ret = -5  # -EIO
        else:
            ret = await self.pciehp_configure_device()
            if ret and ret != -17:  # -EEXIST
                self.ctrl_err(f"Cannot add device at 0000:{self.port.secondary:02x}:00")
            else:
                return 0
        await self.set_slot_off()
        return ret

    async def set_slot_off(self):
        if self.power_ctrl:
            await self.pciehp_power_off_slot()
            await self.msleep(self.cost("power_off_settle_ps"), "power_off")

    async def pciehp_query_power_fault(self):
        return bool(await self.read16(PCI_EXP_SLTSTA) & PCI_EXP_SLTSTA_PFD)

    async def pcie_wait_for_link(self):
        """pcie_wait_for_link(pdev, true): 20 ms, DLLLA every 1 ms for up to 1 s, 100 ms."""
        if not self.link_active_reporting:
            await self.msleep(self.cost("link_timeout_ps") + self.cost("link_settle_ps"), "no_link_reporting")
            return True
        await self.msleep(self.cost("link_detect_ps"), "link_detect")
        end = self.sim.now + self.cost("link_timeout_ps")
        polls = 0
        while True:
            polls += 1
            if await self.read16(PCI_EXP_LNKSTA) & PCI_EXP_LNKSTA_DLLLA:
                break
            await self.sim.sleep(self.cost("link_poll_ps"))
            if self.sim.now >= end:
                self.event("link_polls", polls=polls, up=False)
                return False
        self.event("link_polls", polls=polls, up=True)
        await self.msleep(self.cost("link_settle_ps"), "link_settle")
        return True

    async def pci_bus_check_dev(self):
        """Vendor ID of 00.0 below the port every 20 ms, for up to 1 s."""
        rid = self.port.secondary << 8
        delay, count = self.cost("dev_timeout_ps"), 0
        while True:
            cpl = await self.h.config_read(rid, PCI_VENDOR_ID, 4)
            count += 1
            v = cpl.value
            if cpl.ok and v not in (0, 0xFFFFFFFF, 0x0000FFFF, 0xFFFF0000) and (v & 0xFFFF) != 0x0001:
                break
            await self.msleep(self.cost("dev_poll_ps"), "dev_poll")
            delay -= self.cost("dev_poll_ps")
            if delay <= 0:
                return False
        if count > 1:
            self.sim.log(f"pci 0000:{self.port.secondary:02x}:00.0 id reading try {count} times with interval "
                         f"{self.cost('dev_poll_ps') // MS} ms to get {v:08x}", level="debug", path="host.pciehp")
        return True

    async def pciehp_check_link_status(self):
        if not await self.pcie_wait_for_link():
            self.ctrl_info(f"Slot({self.slot_name}): No link")
            return -1
        found = await self.pci_bus_check_dev()
        if found:  # ignore link or presence changes up to this point
            self.pending_events &= ~(PCI_EXP_SLTSTA_DLLSC | PCI_EXP_SLTSTA_PDC)
        lnk = await self.read16(PCI_EXP_LNKSTA)
        self.ctrl_dbg(f"pciehp_check_link_status: lnk_status = {lnk:x}")
        if lnk & PCI_EXP_LNKSTA_LT or not lnk & PCI_EXP_LNKSTA_NLW:
            self.ctrl_info(f"Slot({self.slot_name}): Cannot train link: status {lnk:#06x}")
            return -1
        await self.read16(PCI_EXP_LNKSTA2)  # __pcie_update_link_speed
        if not found:
            self.ctrl_info(f"Slot({self.slot_name}): No device found")
            return -1
        return 0

    async def pciehp_configure_device(self):
        """pci_scan_slot into the port's windows, then pci_bus_add_devices: the driver binds."""
        if self.port.children:
            return -17  # -EEXIST: already there
        dev = await self.pci.scan_slot(self.port)
        if dev is None:
            self.ctrl_err("No new device found")
            return -19  # -ENODEV
        self.dev = dev
        self.driver = await self.bind(self.sim, self.pci, dev)
        for fut in self._bound:
            fut.set_result(self.driver)
        self._bound = []
        return 0

    async def pciehp_disable_slot(self, safe_removal):
        ret = 0
        if self.power_ctrl and not await self.pciehp_get_power_status():
            self.ctrl_info(f"Slot({self.slot_name}): Already disabled")
            ret = -22  # -EINVAL
        else:
            await self.remove_board(safe_removal)
        self.set_state(OFF_STATE)
        self.event("slot_disabled", result=ret)
        for fut in self._disabled:
            fut.set_result(ret)
        self._disabled = []
        return ret

    async def remove_board(self, safe_removal):
        await self.pciehp_unconfigure_device(safe_removal)
        if self.power_ctrl:
            await self.pciehp_power_off_slot()
            await self.msleep(self.cost("power_off_settle_ps"), "power_off")
            # Ignore link or presence changes caused by power off.
            self.pending_events &= ~(PCI_EXP_SLTSTA_DLLSC | PCI_EXP_SLTSTA_PDC)

    async def pciehp_unconfigure_device(self, presence):
        self.ctrl_dbg(f"pciehp_unconfigure_device: domain:bus:dev = 0000:{self.port.secondary:02x}:00")
        for dev in reversed(list(self.port.children)):
            if self.driver is not None:  # pci_stop_and_remove_bus_device: the driver's remove()
                await self.driver.remove()
                await self.pci.disable_device(dev)
            self.pci.remove_device(dev)
            if presence:  # no new requests from the function
                cmd = await self.pci.read(dev.rid, PCI_COMMAND, 2)
                cmd = (cmd & ~(PCI_COMMAND_MASTER | PCI_COMMAND_SERR)) | PCI_COMMAND_INTX_DISABLE
                await self.pci.write(dev.rid, PCI_COMMAND, cmd, 2)
        self.driver, self.dev = None, None

    async def pciehp_check_presence(self):
        occupied = await self.pciehp_card_present_or_link_active()
        if ((occupied > 0 and self.state in (OFF_STATE, BLINKINGON_STATE))
                or (not occupied and self.state in (ON_STATE, BLINKINGOFF_STATE))):
            self.pciehp_request(PCI_EXP_SLTSTA_PDC)

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


async def _bind_virtio_net(sim, pci, dev):
    """pci_bus_add_device -> virtio_pci_probe (pci_enable_device, pci_set_master) -> virtnet_probe."""
    from dpusim.drivers.virtio_net import VIRTIO_NET_DEVICE_ID, VIRTIO_VENDOR_ID, VirtioNet

    if (dev.vendor, dev.device) != (VIRTIO_VENDOR_ID, VIRTIO_NET_DEVICE_ID):
        return None
    await pci.enable_device(dev)
    return await VirtioNet(sim, pci, dev).probe()


async def pciehp_probe_all(sim, pci, **options):
    """pciehp_probe on every hot-plug capable downstream port, in BDF order; returns the
    controllers in that order."""
    out = []
    for port in sorted((d for d in pci.devices() if d.is_bridge and d.hotplug), key=lambda d: d.rid):
        out.append(await Controller(sim, pci, port, **options).probe())
    return out


__all__ = ["Controller", "pciehp_probe_all", "STATE_NAMES", "OFF_STATE", "ON_STATE", "BLINKINGON_STATE",
           "BLINKINGOFF_STATE", "POWERON_STATE", "POWEROFF_STATE"]
