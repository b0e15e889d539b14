// DSP MSIs over ACG credits (vnet-app.md §4; vnet_pci_dev_core.c send_msi_via_memory_write_tlp,
// acg_queue_push/pop, drain_msi_retries): the credit cache firmware fills (acg.h), one credit per
// MSI, and the main loop's retry of slot-event MSIs that found none.
//
// The main loop retries every marked DSP once per iteration (after each PE1 progress call); an
// iteration with no credit available only fails again. The model runs the retry pass at the
// iterations whose outcome can differ: one main-loop period (vnet.main_loop_ps) after a credit
// arrives, and when a retry reaches MSI_RETRY_ABANDON_SEC (docs/fidelity.md).
#include <cinttypes>

#include "tlm/pci_regs.h"
#include "vnet/bridge_image.h"
#include "vnet/vnet_app.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

namespace {
constexpr const char* kErrBadState = "DOCA_ERROR_BAD_STATE";
constexpr const char* kErrAgain = "DOCA_ERROR_AGAIN";
constexpr uint64_t MSI_RETRY_ABANDON_SEC = 5;
constexpr uint64_t kPsPerSec = 1000000000000ull;
// pci_spec_tlp.h: a Memory Write with data, 3DW or 4DW header.
constexpr uint32_t MEM_WR_FMT_3DW_W_DATA = 0x2, MEM_WR_FMT_4DW_W_DATA = 0x3, MEM_WR_TYPE = 0x0;
}  // namespace

void VnetApp::acg_init() {
  // init_acg_queue runs in both modes; only hotplug mode enables ACG, so in static mode the
  // queue exists but firmware never posts a credit into it.
  log_.debug(kMainThread, "Max ACG credits: %u", acg_spec_.capacity);
  acg_.init(acg_spec_.capacity);
  if (acg_spec_.capacity == 0) log_.warn(kMainThread, "Device reports 0 ACG credits - ACG queue disabled");
  else log_.info(kMainThread, "ACG queue initialized: capacity=%u", acg_spec_.capacity);
  trace_acg_credits_ = 0;
}

void VnetApp::start_of_simulation() {
  if (opt_.static_mode()) return;
  // Firmware posts its initial credits when the channel starts, the scripted ones later.
  acg_grant(acg_spec_.initial);
  for (const AcgGrant& g : acg_spec_.grants) {
    const unsigned n = g.count;
    later_.at(sc_core::sc_time::from_value(g.at_ps), [this, n] { acg_grant(n); });
  }
}

void VnetApp::acg_grant(unsigned count) {
  // Each credit is an ACG request on PE1's callback (§3.1): cached, or returned (FLUSH).
  for (unsigned k = 0; k < count; ++k) {
    if (!acg_.allocated()) {
      log_.debug(kMainThread, "ACG queue unavailable (cleanup in progress), discarding credit");
      ctx_.event(name(), "acg_credit").str("op", "flush").u64("count", acg_.count());
    } else if (!acg_.push()) {
      log_.debug(kMainThread, "ACG queue full (%u/%u), discarding new credit", acg_.count(), acg_.capacity());
      ctx_.event(name(), "acg_credit").str("op", "flush").u64("count", acg_.count());
    } else {
      log_.debug(kMainThread, "ACG credit queued (%u/%u)", acg_.count(), acg_.capacity());
      ctx_.event(name(), "acg_credit").str("op", "queued").u64("count", acg_.count());
    }
  }
  trace_acg_credits_ = acg_.count();
  for (const SlotState& s : slots_)
    if (s.msi_retry_pending) return schedule_retry_pass(ctx_.now_ps() + ctx_.timing.get(vnet::timing::main_loop_ps));
}

const char* VnetApp::send_dsp_msi(unsigned i, const char* thread) {
  const pcie::ConfigSpace& cfg = dsps_[i]->cfg;
  const uint16_t m = TLP_BRIDGE_MSI_CAP;
  const uint16_t ctl = uint16_t(cfg.get(m + PCI_MSI_FLAGS, 2));
  if (!(ctl & PCI_MSI_FLAGS_ENABLE)) {
    log_.debug(thread, "MSI not enabled (Message Control=0x%04X)", ctl);
    return kErrBadState;
  }
  const uint64_t addr = uint64_t(cfg.get(m + PCI_MSI_ADDRESS_HI, 4)) << 32 | cfg.get(m + PCI_MSI_ADDRESS_LO, 4);
  if (addr == 0) {
    log_.debug(thread, "MSI address not configured by Host");
    return kErrBadState;
  }
  const uint16_t data = uint16_t(cfg.get(m + PCI_MSI_DATA_64, 2));
  const uint16_t bdf = uint16_t(dsps_[i]->primary() << 8 | i << 3);
  log_.debug(thread, "Sending MSI: addr=0x%lX, data=0x%X, requester=0x%04X", static_cast<unsigned long>(addr),
             data, bdf);
  if (!acg_.pop()) {
    log_.debug(thread, "No ACG credit available, Host will poll to detect hotplug");
    return kErrAgain;
  }
  trace_acg_credits_ = acg_.count();
  // The credit's buffer holds the header DWs big-endian and the data DW as the CPU stores it,
  // so the debug dump (DOCA_BETOH32 of each DW) shows the data byte-swapped.
  const bool use_64bit = (addr >> 32) != 0;
  std::vector<uint32_t> dw{(use_64bit ? MEM_WR_FMT_4DW_W_DATA : MEM_WR_FMT_3DW_W_DATA) << 29 | MEM_WR_TYPE << 24 | 1,
                           uint32_t(bdf) << 16 | 0xf};
  if (use_64bit) dw.push_back(uint32_t(addr >> 32));
  dw.push_back(uint32_t(addr) & ~3u);
  dw.push_back(__builtin_bswap32(data));
  log_.debug(thread, "TX MemWr TLP: BDF=%04x Addr=%016lx Data=%04x [", bdf, static_cast<unsigned long>(addr), data);
  for (size_t k = 0; k < dw.size(); ++k) log_.debug(thread, "%08x%s", dw[k], k + 1 < dw.size() ? " " : "");
  log_.debug(thread, "] %s", use_64bit ? "64bit" : "32bit");  // the source's trailing "\n" dropped

  // Completing the credit with MMIO_WRITE makes firmware emit the TLP: a DW MemWr from the
  // DSP's own ID, tag 0, the 16-bit data zero-extended.
  tlp::Header h;
  h.type = tlp::Type::MWr;
  h.requester_id = bdf;
  h.address = addr & ~3ull;
  h.length_dw = 1;
  h.first_be = 0xf;
  h.last_be = 0;
  pcie::Tlp* t = ctx_.pool.alloc(h, 4);
  for (unsigned b = 0; b < 4; ++b) pcie::data(*t)[b] = uint8_t(uint32_t(data) >> (8 * b));
  up.send(*t);
  log_.debug(thread, "MSI interrupt sent: bus=0x%02X addr=0x%lX data=0x%X (size: %zu)", dsps_[i]->primary(),
             static_cast<unsigned long>(addr), data, size_t(use_64bit ? 20 : 16));
  ctx_.event(name(), "acg_credit").str("op", "used").u64("count", acg_.count()).u64("dsp", i);
  if (acg_spec_.refill)
    later_.at(ctx_.ps(vnet::timing::fw_acg_refill_ps), [this] { acg_grant(1); });
  return nullptr;
}

void VnetApp::schedule_msi_retry(unsigned i, const char* op) {
  log_.debug(kWorkerThread, "DSP[%u] %s: ACG exhausted, scheduling MSI retry", i, op);
  SlotState& s = slots_[i];
  s.msi_retry_pending = true;
  s.msi_retry_since_ps = ctx_.now_ps();
  trace_msi_retry_[i] = true;
  ctx_.event(name(), "msi_retry").u64("dsp", i).str("op", "scheduled");
  schedule_retry_pass(s.msi_retry_since_ps + MSI_RETRY_ABANDON_SEC * kPsPerSec);
}

void VnetApp::clear_msi_retry(unsigned i) {
  slots_[i].msi_retry_pending = false;
  slots_[i].msi_retry_since_ps = 0;
  trace_msi_retry_[i] = false;
}

void VnetApp::schedule_retry_pass(uint64_t at_ps) {
  if (!retry_passes_.insert(at_ps).second) return;
  later_.at(sc_core::sc_time::from_value(at_ps - ctx_.now_ps()), [this, at_ps] {
    retry_passes_.erase(at_ps);
    drain_msi_retries();
  });
}

void VnetApp::drain_msi_retries() {
  const uint64_t now = ctx_.now_ps();
  for (unsigned i = 0; i < num_ep(); ++i) {
    SlotState& s = slots_[i];
    if (!s.msi_retry_pending) continue;
    const char* err = send_dsp_msi(i, kMainThread);
    if (!err) {
      clear_msi_retry(i);
      log_.debug(kMainThread, "DSP[%u] MSI retry succeeded", i);
      ctx_.event(name(), "msi_retry").u64("dsp", i).str("op", "succeeded");
      continue;
    }
    if (err == kErrAgain) {
      const uint64_t elapsed = now - s.msi_retry_since_ps;
      if (s.msi_retry_since_ps != 0 && elapsed >= MSI_RETRY_ABANDON_SEC * kPsPerSec) {
        clear_msi_retry(i);
        log_.debug(kMainThread, "DSP[%u] MSI retry abandoned after %" PRIu64 "s - host will poll Slot Status", i,
                   elapsed / kPsPerSec);
        ctx_.event(name(), "msi_retry").u64("dsp", i).str("op", "abandoned");
      }
      continue;
    }
    clear_msi_retry(i);
    log_.debug(kMainThread, "DSP[%u] MSI retry stopped: %s", i, err);
    ctx_.event(name(), "msi_retry").u64("dsp", i).str("op", "stopped");
  }
}

}  // namespace dpusim::vnet
