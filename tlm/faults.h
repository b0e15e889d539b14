// Fault injection on the fabric: drop, duplicate or delay the TLPs matching a rule, so a
// scenario places a race or an error exactly instead of hoping a sleep lands it. Every link
// asks the injector about every TLP it is handed; a rule fires on its `skip`+1-th match and then
// on up to `count` matches in all (0 = unlimited).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tlm/tlp.h"

namespace dpusim::pcie {

struct TlpMatch {
  std::optional<tlp::Type> type;
  std::optional<std::string> path;       // link path, e.g. "link.dsp0"
  std::optional<std::string> direction;  // "up" (toward the host) or "down"
  std::optional<uint16_t> requester_id;
  std::optional<uint8_t> tag;
  std::optional<uint16_t> target_id;     // config requests
  std::optional<uint16_t> completer_id;  // completions
  std::optional<tlp::CplStatus> status;
  std::optional<uint64_t> address_lo, address_hi;  // memory requests: [lo, hi)
  std::optional<uint16_t> register_offset;

  bool matches(const tlp::Header& h, const std::string& link_path, const char* dir) const;
};

enum class FaultAction { None, Drop, Duplicate, Delay };

struct FaultRule {
  uint64_t id = 0;
  FaultAction action = FaultAction::Drop;
  TlpMatch match;
  uint64_t delay_ps = 0;
  uint64_t skip = 0;   // matches to let pass before firing
  uint64_t count = 1;  // firings in all; 0 = unlimited
  uint64_t seen = 0, fired = 0;
};

class FaultInjector {
 public:
  uint64_t add(FaultRule rule);
  void remove(uint64_t id);
  bool empty() const { return rules_.empty(); }
  // The action for this TLP (the first rule that fires), with its delay; records the firing.
  FaultAction apply(const tlp::Header& h, const std::string& link_path, const char* dir,
                    uint64_t* delay_ps, uint64_t* rule_id);

 private:
  std::vector<FaultRule> rules_;
  uint64_t next_id_ = 1;
};

}  // namespace dpusim::pcie
