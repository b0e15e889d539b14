#include "vnet/switch/dsp_msi.h"

#include <cinttypes>

#include "tlm/bytes.h"
#include "tlm/pci_regs.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::pci;

namespace {
constexpr const char* kErrBadState = "DOCA_ERROR_BAD_STATE";
constexpr const char* kErrAgain = "DOCA_ERROR_AGAIN";
constexpr uint64_t MSI_RETRY_ABANDON_SEC = 5;
// pci_spec_tlp.h: a Memory Write with data, 3DW or 4DW header.
constexpr uint32_t MEM_WR_FMT_3DW_W_DATA = 0x2, MEM_WR_FMT_4DW_W_DATA = 0x3, MEM_WR_TYPE = 0x0;
}  // namespace

DspMsi::DspMsi(AppEnv& env, AppPorts& ports, const AcgSpec& acg, std::function<void(pcie::Tlp*)> send_up)
    : env_(env), ports_(ports), spec_(acg), send_up_(std::move(send_up)), retries_(unsigned(env.opt.num_ep)) {
  trace_retry.assign(unsigned(env.opt.num_ep), false);
}

void DspMsi::init() {
  // init_acg_queue runs in both modes; only hotplug mode enables ACG, so in static mode the
  // queue exists but firmware never posts a credit into it.
  env_.log.debug(kMainThread, "Max ACG credits: %u", spec_.capacity);
  acg_.init(spec_.capacity);
  if (spec_.capacity == 0) env_.log.warn(kMainThread, "Device reports 0 ACG credits - ACG queue disabled");
  else env_.log.info(kMainThread, "ACG queue initialized: capacity=%u", spec_.capacity);
  trace_credits = 0;
}

void DspMsi::start() {
  if (env_.opt.static_mode()) return;
  // Firmware posts its initial credits when the channel starts, the scripted ones later.
  grant(spec_.initial);
  for (const AcgGrant& g : spec_.grants) {
    const unsigned n = g.count;
    env_.later.at(sc_core::sc_time::from_value(g.at_ps), [this, n] { grant(n); });
  }
}

void DspMsi::grant(unsigned count) {
  // Each credit is an ACG request on PE1's callback: cached, or returned (FLUSH).
  for (unsigned k = 0; k < count; ++k) {
    env_.ctx.checker.credits_granted(kAcgCreditPool, 1);
    if (!acg_.allocated()) {
      env_.ctx.checker.credits_discarded(env_.ctx.now_ps(), kAcgCreditPool, 1);
      env_.log.debug(kMainThread, "ACG queue unavailable (cleanup in progress), discarding credit");
      env_.event("acg_credit").str("op", "flush").u64("count", acg_.count());
    } else if (!acg_.push()) {
      env_.ctx.checker.credits_discarded(env_.ctx.now_ps(), kAcgCreditPool, 1);
      env_.log.debug(kMainThread, "ACG queue full (%u/%u), discarding new credit", acg_.count(), acg_.capacity());
      env_.event("acg_credit").str("op", "flush").u64("count", acg_.count());
    } else {
      env_.log.debug(kMainThread, "ACG credit queued (%u/%u)", acg_.count(), acg_.capacity());
      env_.event("acg_credit").str("op", "queued").u64("count", acg_.count());
    }
  }
  trace_credits = acg_.count();
  for (const Retry& r : retries_)
    if (r.pending) return schedule_retry_pass(env_.loop_iteration_at(env_.ctx.now_ps() + 1));  // the next iteration
}

const char* DspMsi::send(unsigned i, const char* thread) {
  const pcie::ConfigSpace& cfg = ports_.dsps[i]->cfg;
  const uint16_t m = TLP_BRIDGE_MSI_CAP;
  const uint16_t ctl = uint16_t(cfg.get(m + PCI_MSI_FLAGS, 2));
  if (!(ctl & PCI_MSI_FLAGS_ENABLE)) {
    env_.log.debug(thread, "MSI not enabled (Message Control=0x%04X)", ctl);
    return kErrBadState;
  }
  const uint64_t addr = uint64_t(cfg.get(m + PCI_MSI_ADDRESS_HI, 4)) << 32 | cfg.get(m + PCI_MSI_ADDRESS_LO, 4);
  if (addr == 0) {
    env_.log.debug(thread, "MSI address not configured by Host");
    return kErrBadState;
  }
  const uint16_t data = uint16_t(cfg.get(m + PCI_MSI_DATA_64, 2));
  const uint16_t bdf = uint16_t(ports_.dsps[i]->primary() << 8 | i << 3);
  env_.log.debug(thread, "Sending MSI: addr=0x%lX, data=0x%X, requester=0x%04X", static_cast<unsigned long>(addr),
             data, bdf);
  if (!acg_.pop()) {
    env_.log.debug(thread, "No ACG credit available, Host will poll to detect hotplug");
    return kErrAgain;
  }
  env_.ctx.checker.credit_spent(env_.ctx.now_ps(), kAcgCreditPool);
  trace_credits = acg_.count();
  // The credit's buffer holds the header DWs big-endian and the data DW as the CPU stores it,
  // so the debug dump (DOCA_BETOH32 of each DW) shows the data byte-swapped.
  const bool use_64bit = (addr >> 32) != 0;
  std::vector<uint32_t> dw{(use_64bit ? MEM_WR_FMT_4DW_W_DATA : MEM_WR_FMT_3DW_W_DATA) << 29 | MEM_WR_TYPE << 24 | 1,
                           uint32_t(bdf) << 16 | 0xf};
  if (use_64bit) dw.push_back(uint32_t(addr >> 32));
  dw.push_back(uint32_t(addr) & ~3u);
  dw.push_back(__builtin_bswap32(data));
  env_.log.debug(thread, "TX MemWr TLP: BDF=%04x Addr=%016lx Data=%04x [", bdf, static_cast<unsigned long>(addr), data);
  for (size_t k = 0; k < dw.size(); ++k) env_.log.debug(thread, "%08x%s", dw[k], k + 1 < dw.size() ? " " : "");
  env_.log.debug(thread, "] %s", use_64bit ? "64bit" : "32bit");  // the source's trailing "\n" dropped

  // Completing the credit with MMIO_WRITE makes firmware emit the TLP: a DW MemWr from the
  // DSP's own ID, tag 0, the 16-bit data zero-extended.
  tlp::Header h;
  h.type = tlp::Type::MWr;
  h.requester_id = bdf;
  h.address = addr & ~3ull;
  h.length_dw = 1;
  h.first_be = 0xf;
  h.last_be = 0;
  pcie::Tlp* t = env_.ctx.pool.alloc(h, 4);
  bytes::put_le32(pcie::data(*t), uint32_t(data));
  send_up_(t);
  env_.log.debug(thread, "MSI interrupt sent: bus=0x%02X addr=0x%lX data=0x%X (size: %zu)", ports_.dsps[i]->primary(),
             static_cast<unsigned long>(addr), data, size_t(use_64bit ? 20 : 16));
  env_.event("acg_credit").str("op", "used").u64("count", acg_.count()).u64("dsp", i);
  if (spec_.refill)
    env_.later.at(env_.ctx.ps(vnet::timing::fw_acg_refill_ps), [this] { grant(1); });
  return nullptr;
}

void DspMsi::schedule_retry(unsigned i, const char* op) {
  env_.log.debug(kWorkerThread, "DSP[%u] %s: ACG exhausted, scheduling MSI retry", i, op);
  Retry& s = retries_[i];
  s.pending = true;
  s.since_ps = env_.ctx.now_ps();
  trace_retry[i] = true;
  env_.event("msi_retry").u64("dsp", i).str("op", "scheduled");
  schedule_retry_pass(env_.loop_iteration_after_seconds(s.since_ps, MSI_RETRY_ABANDON_SEC));
}

void DspMsi::clear_retry(unsigned i) {
  retries_[i] = Retry{};
  trace_retry[i] = false;
}

void DspMsi::schedule_retry_pass(uint64_t at_ps) {
  if (!retry_passes_.insert(at_ps).second) return;
  env_.later.at(sc_core::sc_time::from_value(at_ps - env_.ctx.now_ps()), [this, at_ps] {
    retry_passes_.erase(at_ps);
    drain_retries();
  });
}

void DspMsi::drain_retries() {
  if (!env_.loop_running) return;  // the application left its main loop
  const uint64_t now = env_.ctx.now_ps();
  for (unsigned i = 0; i < retries_.size(); ++i) {
    Retry& s = retries_[i];
    if (!s.pending) continue;
    const char* err = send(i, kMainThread);
    if (!err) {
      clear_retry(i);
      env_.log.debug(kMainThread, "DSP[%u] MSI retry succeeded", i);
      env_.event("msi_retry").u64("dsp", i).str("op", "succeeded");
      continue;
    }
    if (err == kErrAgain) {
      // Whole seconds of the application's clock, as the source compares them.
      const uint64_t elapsed = AppEnv::app_seconds(now) - AppEnv::app_seconds(s.since_ps);
      if (s.since_ps != 0 && elapsed >= MSI_RETRY_ABANDON_SEC) {
        clear_retry(i);
        env_.log.debug(kMainThread, "DSP[%u] MSI retry abandoned after %" PRIu64 "s - host will poll Slot Status", i,
                       elapsed);
        env_.event("msi_retry").u64("dsp", i).str("op", "abandoned");
      }
      continue;
    }
    clear_retry(i);
    env_.log.debug(kMainThread, "DSP[%u] MSI retry stopped: %s", i, err);
    env_.event("msi_retry").u64("dsp", i).str("op", "stopped");
  }
}

void DspMsi::flush() {
  if (acg_.allocated()) {
    const unsigned flushed = acg_.flush();
    env_.ctx.checker.credits_discarded(env_.ctx.now_ps(), kAcgCreditPool, flushed);
    env_.log.debug(kMainThread, "Flushed %u ACG credits", flushed);
  }
  trace_credits = 0;
}

}  // namespace dpusim::vnet
