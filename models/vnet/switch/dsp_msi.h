// The downstream ports' MSIs over ACG credits (DOCA vnet_pci_dev: send_msi_via_memory_write_tlp,
// the ACG credit queue, drain_msi_retries): firmware hands the application credits (acg.h),
// one is used per MSI, which the application emits as a Memory Write TLP from the DSP's ID; a
// slot event's MSI that found no credit is retried by the main loop, one main-loop period
// after a credit arrives, and abandoned after MSI_RETRY_ABANDON_SEC.
//
// The main loop retries every marked DSP once per iteration (after each PE1 progress call); an
// iteration with no credit available only fails again. The model runs the retry pass at the
// iterations whose outcome can differ: the first main-loop iteration after a credit arrives,
// and the first at which the application's clock has counted MSI_RETRY_ABANDON_SEC whole
// seconds since the first failure (app_state.h, docs/fidelity.md).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <vector>

#include "tlm/tlp_payload.h"
#include "vnet/switch/acg.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class DspMsi {
 public:
  // `send_up` puts a TLP on the DPU's link to the host.
  DspMsi(AppEnv& env, AppPorts& ports, const AcgSpec& acg, std::function<void(pcie::Tlp*)> send_up);
  // The application's init_acg_queue (at startup, in both modes).
  void init();
  // The channel starts: firmware posts its initial credits, and schedules its scripted grants.
  void start();
  // Sends DSP `i`'s MSI from `thread`: nullptr when sent, else the DOCA error's name
  // (DOCA_ERROR_AGAIN: no credit; DOCA_ERROR_BAD_STATE: MSI not set up by the host).
  const char* send(unsigned i, const char* thread);
  // A slot event's MSI found no credit: the main loop retries it.
  void schedule_retry(unsigned i, const char* op);
  void clear_retry(unsigned i);
  unsigned credits() const { return acg_.count(); }
  // At shutdown: the cached credits are returned to firmware.
  void flush();

  uint32_t trace_credits = 0;
  std::deque<bool> trace_retry;  // not vector<bool>: sc_trace keeps a reference to each

 private:
  void grant(unsigned count);
  void schedule_retry_pass(uint64_t at_ps);
  void drain_retries();

  struct Retry {
    bool pending = false;
    uint64_t since_ps = 0;
  };
  AppEnv& env_;
  AppPorts& ports_;
  AcgSpec spec_;
  AcgQueue acg_;
  std::function<void(pcie::Tlp*)> send_up_;
  std::vector<Retry> retries_;
  std::set<uint64_t> retry_passes_;  // times of the main loop's retry passes already scheduled
};

}  // namespace dpusim::vnet
