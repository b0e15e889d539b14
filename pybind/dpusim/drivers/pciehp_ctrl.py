"""pciehp's slot state machine (drivers/pci/hotplug/pciehp_ctrl.c, pciehp_pci.c): the
attention button's delayed work, presence and link changes, enabling a slot (board_added) and
disabling it (remove_board), configuring the function below and unbinding its driver. A mixin of
dpusim.drivers.pciehp.Controller."""
from dpusim.drivers.pci_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.drivers.pciehp_hpc import (BLINKINGOFF_STATE, BLINKINGON_STATE, DISABLE_SLOT, MS, OFF_STATE, ON_STATE,
                                       POWEROFF_STATE, POWERON_STATE, SAFE_REMOVAL, SURPRISE_REMOVAL)


class CtrlOps:
    # ---- the state machine (pciehp_ctrl.c) ------------------------------------------------
    def _schedule_button_work(self):
        self._button_work += 1
        gen = self._button_work

        async def work():
            await self.sim.sleep(self.latency("button_ps"))
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
            await self.msleep(self.latency("power_off_settle_ps"), "power_off")

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
            await self.msleep(self.latency("power_off_settle_ps"), "power_off")
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

