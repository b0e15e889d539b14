#include "switch/downstream_port.h"

#include "switch/switch_timing.h"
#include "tlm/pci_regs.h"

namespace dpusim::sw {

using namespace dpusim::pci;

DownstreamPort::DownstreamPort(std::string path, pcie::SimContext& ctx, unsigned index, pcie::Link& link,
                               pcie::TimedQueue& later, SendMsi send_msi)
    : Bridge(std::move(path), ctx), index_(index), link_(link), later_(later), send_msi_(std::move(send_msi)), ctx_(ctx) {}

uint16_t DownstreamPort::slot_control() const { return uint16_t(cfg.get(pcie_cap() + PCI_EXP_SLTCTL, 2)); }
uint16_t DownstreamPort::slot_status() const { return uint16_t(cfg.get(pcie_cap() + PCI_EXP_SLTSTA, 2)); }

void DownstreamPort::init_slot(bool occupied) {
  msi_cap_ = cfg.find_capability(PCI_CAP_ID_MSI);
  const uint16_t cap = pcie_cap();
  present_ = occupied;
  cfg.set(cap + PCI_EXP_SLTCTL, 2, occupied ? 0 : PCI_EXP_SLTCTL_PCC);
  cfg.set(cap + PCI_EXP_SLTSTA, 2, occupied ? PCI_EXP_SLTSTA_PDS : 0);
  link_.set_up(occupied);
  cfg.set(cap + PCI_EXP_LNKSTA, 2, link_status(occupied));
  cfg.seal();
  cfg.on_write(uint16_t(cap + PCI_EXP_SLTCTL), 2, [this](uint16_t, uint32_t before, uint32_t after, uint8_t be) {
    // Slot Control is the low half of the DW; a write with either low byte enabled is a command.
    if (be & 0x3) on_slot_control(before & 0xffff, after & 0xffff);
  });
  cfg.on_write(uint16_t(cap + PCI_EXP_SLTSTA), 2, [this](uint16_t, uint32_t, uint32_t, uint8_t) {
    update_interrupt();  // clearing the events re-arms the edge
    refresh_traces();
  });
  if (msi_cap_)
    cfg.on_write(msi_cap_, 24, [this](uint16_t, uint32_t, uint32_t, uint8_t) { update_interrupt(); });
  refresh_traces();
}

void DownstreamPort::refresh_traces() {
  trace_slot_ctl = slot_control();
  trace_slot_sta = slot_status();
  trace_dllla = cfg.get(pcie_cap() + PCI_EXP_LNKSTA, 2) & PCI_EXP_LNKSTA_DLLLA;
}

void DownstreamPort::set_event(uint16_t bits) {
  cfg.set_bits(pcie_cap() + PCI_EXP_SLTSTA, 2, bits);
  refresh_traces();
  update_interrupt();
}

void DownstreamPort::on_slot_control(uint32_t before, uint32_t after) {
  ctx_.event(path(), "slot_control").hex("before", before).hex("after", after);
  const bool was_off = before & PCI_EXP_SLTCTL_PCC, now_off = after & PCI_EXP_SLTCTL_PCC;
  if (was_off && !now_off) {
    const uint64_t gen = ++power_generation_;
    if (present_) {
      later_.at(ctx_.ps(sw::timing::slot_link_train_ps), [this, gen] {
        if (gen == power_generation_ && present_ && !(slot_control() & PCI_EXP_SLTCTL_PCC)) set_link(true);
      });
    }
  } else if (!was_off && now_off) {
    ++power_generation_;
    set_link(false);
  }
  set_event(PCI_EXP_SLTSTA_CC);
}

void DownstreamPort::set_link(bool up) {
  if (link_.up() == up) return;
  link_.set_up(up);
  cfg.set(pcie_cap() + PCI_EXP_LNKSTA, 2, link_status(up));
  set_event(PCI_EXP_SLTSTA_DLLSC);
}

// Link Status with the link up: Data Link Layer Link Active, the negotiated width and the
// Current Link Speed (PCIe r5.0 §7.5.3.8; the speed is the link's generation, its encoding);
// with it down, none of them.
uint16_t DownstreamPort::link_status(bool up) const {
  const uint16_t kept = uint16_t(cfg.get(pcie_cap() + PCI_EXP_LNKSTA, 2) &
                                 ~(PCI_EXP_LNKSTA_DLLLA | PCI_EXP_LNKSTA_NLW | PCI_EXP_LNKSTA_CLS));
  if (!up) return kept;
  return uint16_t(kept | PCI_EXP_LNKSTA_DLLLA | link_.width() << PCI_EXP_LNKSTA_NLW_SHIFT | link_.gen());
}

void DownstreamPort::update_interrupt() {
  const uint16_t ctl = slot_control(), sta = slot_status();
  uint16_t enabled = 0;
  if (ctl & PCI_EXP_SLTCTL_ABPE) enabled |= PCI_EXP_SLTSTA_ABP;
  if (ctl & PCI_EXP_SLTCTL_PFDE) enabled |= PCI_EXP_SLTSTA_PFD;
  if (ctl & PCI_EXP_SLTCTL_MRLSCE) enabled |= PCI_EXP_SLTSTA_MRLSC;
  if (ctl & PCI_EXP_SLTCTL_PDCE) enabled |= PCI_EXP_SLTSTA_PDC;
  if (ctl & PCI_EXP_SLTCTL_CCIE) enabled |= PCI_EXP_SLTSTA_CC;
  if (ctl & PCI_EXP_SLTCTL_DLLSCE) enabled |= PCI_EXP_SLTSTA_DLLSC;
  const bool level = (ctl & PCI_EXP_SLTCTL_HPIE) && (sta & enabled);
  if (level && !irq_level_) send_msi();
  irq_level_ = level;
}

void DownstreamPort::send_msi() {
  if (!msi_cap_) return;
  const uint16_t flags = uint16_t(cfg.get(msi_cap_ + PCI_MSI_FLAGS, 2));
  if (!(flags & PCI_MSI_FLAGS_ENABLE)) {
    ctx_.event(path(), "msi_suppressed").str("reason", "MSI disabled");
    return;
  }
  if (!bus_master()) {
    ctx_.event(path(), "msi_suppressed").str("reason", "bus master disabled");
    return;
  }
  const uint64_t addr = uint64_t(cfg.get(msi_cap_ + PCI_MSI_ADDRESS_HI, 4)) << 32 | cfg.get(msi_cap_ + PCI_MSI_ADDRESS_LO, 4);
  const uint32_t data = cfg.get(msi_cap_ + PCI_MSI_DATA_64, 2);
  send_msi_(addr, data);
}

}  // namespace dpusim::sw
