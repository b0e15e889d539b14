// ACG credits (vnet_pci_dev_core.c: the ACG credit queue): in hotplug mode firmware hands the application "credit"
// requests, each a buffer for one upstream Memory Write; the application caches them in a
// fixed-capacity FIFO and spends one per DSP MSI. What the firmware grants is a platform
// parameter, so exhaustion can be scripted:
//
//   "topology": {"family": "vnet", "options": {...},
//                "firmware": {"acg": {"capacity": 16, "initial": 16, "refill": true,
//                                     "grants": [{"at_ps": 2000000000000, "count": 1}]}}}
//
//  - capacity: what doca_devemu_pci_tlp_cap_get_max_acg reports (0: the queue is disabled);
//  - initial: credits firmware posts when the channel starts;
//  - refill: firmware posts a new credit vnet.fw.acg_refill_ps after each one it emitted an
//    MSI for (a flushed credit is not replaced);
//  - grants: extra credits posted at absolute simulated times.
// The defaults (16, 16, refill) keep credits plentiful; 16 is an estimate (docs/timing.md).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::vnet {

// The credit pool's name in the invariant checker's ledger ("credits_negative").
inline constexpr const char* kAcgCreditPool = "vnet.acg";

struct AcgGrant {
  uint64_t at_ps = 0;
  unsigned count = 0;
};

struct AcgSpec {
  unsigned capacity = 16;
  unsigned initial = 16;
  bool refill = true;
  std::vector<AcgGrant> grants;  // in document order
  std::string describe() const;  // "acg capacity=16 initial=16 refill=1 grants=0"
};

// Parses the "firmware" object at JSON path `path`; throws platform::DocError.
AcgSpec parse_firmware_spec(const nlohmann::json& firmware, const std::string& path);

// The application's credit cache: a circular FIFO of `capacity` credits (acg_queue_push/pop).
// Capacity 0 means no queue was allocated.
class AcgQueue {
 public:
  void init(unsigned capacity) { capacity_ = capacity, count_ = 0; }
  bool allocated() const { return capacity_ != 0; }
  bool push() {
    if (!allocated() || count_ >= capacity_) return false;
    ++count_;
    return true;
  }
  bool pop() {
    if (count_ == 0) return false;
    --count_;
    return true;
  }
  unsigned flush() {
    const unsigned n = count_;
    count_ = 0;
    return n;
  }
  unsigned count() const { return count_; }
  unsigned capacity() const { return capacity_; }

 private:
  unsigned capacity_ = 0, count_ = 0;
};

}  // namespace dpusim::vnet
