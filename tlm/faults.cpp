#include "tlm/faults.h"

#include <algorithm>

namespace dpusim::pcie {

bool TlpMatch::matches(const tlp::Header& h, const std::string& link_path, const char* dir) const {
  if (type && *type != h.type) return false;
  if (path && *path != link_path) return false;
  if (direction && *direction != dir) return false;
  if (requester_id && *requester_id != h.requester_id) return false;
  if (tag && *tag != h.tag) return false;
  if (target_id && (!tlp::is_config(h.type) || *target_id != h.target_id)) return false;
  if (completer_id && (!tlp::is_completion(h.type) || *completer_id != h.completer_id)) return false;
  if (status && (!tlp::is_completion(h.type) || *status != h.status)) return false;
  if (register_offset && (!tlp::is_config(h.type) || *register_offset != h.register_offset))
    return false;
  if (address_lo || address_hi) {
    if (!tlp::is_memory(h.type)) return false;
    if (address_lo && h.address < *address_lo) return false;
    if (address_hi && h.address >= *address_hi) return false;
  }
  return true;
}

uint64_t FaultInjector::add(FaultRule rule) {
  rule.id = next_id_++;
  rules_.push_back(rule);
  return rule.id;
}

void FaultInjector::remove(uint64_t id) {
  rules_.erase(std::remove_if(rules_.begin(), rules_.end(), [&](const FaultRule& r) { return r.id == id; }),
               rules_.end());
}

FaultAction FaultInjector::apply(const tlp::Header& h, const std::string& link_path, const char* dir,
                                 uint64_t* delay_ps, uint64_t* rule_id) {
  for (FaultRule& r : rules_) {
    if (r.count != 0 && r.fired >= r.count) continue;
    if (!r.match.matches(h, link_path, dir)) continue;
    if (r.seen++ < r.skip) continue;
    ++r.fired;
    *delay_ps = r.delay_ps;
    *rule_id = r.id;
    return r.action;
  }
  return FaultAction::None;
}

}  // namespace dpusim::pcie
