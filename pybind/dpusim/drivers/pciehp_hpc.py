"""pciehp's controller side (drivers/pci/hotplug/pciehp_hpc.c, pcie_wait_for_link in
drivers/pci/pci.c): Slot Control commands and their Command Completed waits, slot power and
status, the interrupt handler and the IRQ thread, the link and device checks of a power-on.
A mixin of dpusim.drivers.pciehp.Controller, which holds the state it uses."""
from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.errors import PollTimeout, SimTimeout
from dpusim.futures import Future

OFF_STATE, BLINKINGON_STATE, BLINKINGOFF_STATE, POWERON_STATE, POWEROFF_STATE, ON_STATE = range(6)
STATE_NAMES = ["OFF_STATE", "BLINKINGON_STATE", "BLINKINGOFF_STATE", "POWERON_STATE", "POWEROFF_STATE",
               "ON_STATE"]
DISABLE_SLOT = 1 << 16  # pciehp.h: a request beside the Slot Status event bits
SAFE_REMOVAL, SURPRISE_REMOVAL = True, False
IRQ_NONE, IRQ_HANDLED, IRQ_WAKE_THREAD = 0, 1, 2
EVENT_BITS = PCI_EXP_SLTSTA_ABP | PCI_EXP_SLTSTA_PFD | PCI_EXP_SLTSTA_PDC | PCI_EXP_SLTSTA_CC | PCI_EXP_SLTSTA_DLLSC
MS = 1_000_000_000


def _vendor_id_found(cpl):
    """pci_bus_generic_read_dev_vendor_id's test: a successful completion whose dword is not
    all-ones, zero, 0x0000ffff or 0xffff0000, and whose Vendor ID is not 0x0001 (a
    Configuration Request Retry Status)."""
    v = cpl.value
    return cpl.ok and v not in (0, 0xFFFFFFFF, 0x0000FFFF, 0xFFFF0000) and (v & 0xFFFF) != 0x0001


class HpcOps:
    # ---- config helpers (pcie_capability_*) ---------------------------------------------
    async def read16(self, reg):
        return (await self.h.config_read(self.port.rid, self.exp + reg, 2)).value

    async def read32(self, reg):
        return (await self.h.config_read(self.port.rid, self.exp + reg, 4)).value

    async def write16(self, reg, value):
        await self.h.config_write(self.port.rid, self.exp + reg, value, 2)

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
        """Slot Status every 10 ms until Command Completed (or all-ones: no device). Linux's
        loop runs while `timeout -= 10` stays >= 0, so a read at the very limit still happens:
        the poll's limit is one picosecond past it."""
        try:
            polled = await self.sim.poll(lambda: self.read16(PCI_EXP_SLTSTA),
                                         lambda s: s == 0xFFFF or s & PCI_EXP_SLTSTA_CC, 10 * MS, timeout_ps + 1,
                                         f"{self.port.bdf}: Command Completed", counts="waits")
        except PollTimeout:
            return False
        if polled.value == 0xFFFF:
            self.ctrl_info("pcie_poll_cmd: no response from device")
            return False
        await self.write16(PCI_EXP_SLTSTA, PCI_EXP_SLTSTA_CC)
        self.cmd_busy = False
        return True

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

    async def pciehp_query_power_fault(self):
        return bool(await self.read16(PCI_EXP_SLTSTA) & PCI_EXP_SLTSTA_PFD)

    async def pcie_wait_for_link(self):
        """pcie_wait_for_link(pdev, true): 20 ms, DLLLA every 1 ms for up to 1 s, 100 ms."""
        if not self.link_active_reporting:
            await self.msleep(self.cost("link_timeout_ps") + self.latency("link_settle_ps"), "no_link_reporting")
            return True
        await self.msleep(self.latency("link_detect_ps"), "link_detect")
        try:
            polled = await self.sim.poll(lambda: self.read16(PCI_EXP_LNKSTA), lambda s: s & PCI_EXP_LNKSTA_DLLLA,
                                         lambda: self.latency("link_poll_ps"), self.cost("link_timeout_ps"),
                                         f"{self.port.bdf}: Data Link Layer Link Active")
        except PollTimeout as e:
            self.event("link_polls", polls=e.reads, up=False)
            return False
        self.event("link_polls", polls=polled.reads, up=True)
        await self.msleep(self.latency("link_settle_ps"), "link_settle")
        return True

    async def pci_bus_check_dev(self):
        """Vendor ID of 00.0 below the port every 20 ms, for up to 1 s."""
        rid = self.port.secondary << 8
        # Linux subtracts the nominal step (`delay -= step`) whatever msleep actually slept.
        try:
            polled = await self.sim.poll(lambda: self.h.config_read(rid, PCI_VENDOR_ID, 4), _vendor_id_found,
                                         lambda: self.note_msleep(self.latency("dev_poll_ps"), "dev_poll"),
                                         self.cost("dev_timeout_ps"), f"{self.port.secondary:02x}:00.0 vendor ID",
                                         counts="waits", step=lambda: self.cost("dev_poll_ps"))
        except PollTimeout:
            return False
        if polled.reads > 1:
            self.sim.log(f"pci 0000:{self.port.secondary:02x}:00.0 id reading try {polled.reads} times with interval "
                         f"{self.cost('dev_poll_ps') // MS} ms to get {polled.value.value:08x}", level="debug",
                         path="host.pciehp")
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

