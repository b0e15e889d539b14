// The engine's feature policies (engine.h, FeaturePolicy): what every policy requires of a
// program (v1model's blocks and standard_metadata.egress_spec), and what the ernic feature
// set refuses by name (the P4 engine guide of rocm-ernic, "Status" and "Loading a program").
#include "feature_policy.h"

#include <vector>

namespace dpusim::p4 {

const char* feature_policy_name(FeaturePolicy policy) {
  switch (policy) {
    case FeaturePolicy::kErnic: return "ernic";
    case FeaturePolicy::kBmv2: return "bmv2";
  }
  return "unknown";
}

bool feature_policy_from_name(const std::string& name, FeaturePolicy* policy) {
  for (FeaturePolicy p : kFeaturePolicies)
    if (name == feature_policy_name(p)) {
      *policy = p;
      return true;
    }
  return false;
}

namespace {

// The architecture p4c wrote a program for, known by its architecture's metadata types
// (pna_main_input_metadata_t, psa_ingress_input_metadata_t...); empty when none is.
std::string architecture_of(const Program& p) {
  for (const HeaderTypeInfo& t : p.header_types) {
    if (t.name.compare(0, 4, "pna_") == 0) return "PNA";
    if (t.name.compare(0, 4, "psa_") == 0) return "PSA";
  }
  return "";
}

struct FeatureUse {
  LoadCode code;
  const char* feature;
  std::string where;
};

// What the program uses of what the ernic feature set refuses, in the guide's order: "What is
// not built yet: checksums and calculations; negative literals in actions; and counters,
// meters, registers and action profiles. Each is refused by name rather than ignored." A
// signed field is refused there too ("refused as a signed field anyway").
std::vector<FeatureUse> ernic_refusals(const Program& p) {
  std::vector<FeatureUse> uses;
  if (!p.checksums.empty()) uses.push_back({LoadCode::kUnsupported, "checksums", "checksum '" + p.checksums[0].name + "'"});
  // Named calculations come first; the rest are selectors' hashes (an action profile's).
  if (!p.calculation_by_name.empty())
    uses.push_back({LoadCode::kUnsupported, "calculations", "calculation '" + p.calculations[0].name + "'"});
  if (!p.negative_literal_at.empty()) uses.push_back({LoadCode::kUnsupported, "negative literals", p.negative_literal_at});
  if (!p.counters.empty()) uses.push_back({LoadCode::kUnsupported, "counters", "counter '" + p.counters[0].name + "'"});
  if (!p.meters.empty()) uses.push_back({LoadCode::kUnsupported, "meters", "meter '" + p.meters[0].name + "'"});
  if (!p.registers.empty()) uses.push_back({LoadCode::kUnsupported, "registers", "register '" + p.registers[0].name + "'"});
  if (!p.action_profiles.empty())
    uses.push_back({LoadCode::kUnsupported, "action profiles", "action profile '" + p.action_profiles[0].name + "'"});
  for (const FieldInfo& f : p.fields)
    if (f.is_signed) {
      uses.push_back({LoadCode::kSignedField, "signed fields", "field '" + f.name + "'"});
      break;
    }
  return uses;
}

}  // namespace

bool check_v1model(const Program& p, LoadError* error) {
  if (p.not_v1model.empty()) return true;
  const std::string arch = architecture_of(p);
  std::string message = arch.empty() ? "not a v1model program: "
                                     : "a " + arch + " program; the device runs v1model programs (p4c --target bmv2 "
                                                     "--arch v1model): ";
  for (std::size_t i = 0; i < p.not_v1model.size(); ++i) message += (i ? "; " : "") + p.not_v1model[i].second;
  *error = {p.not_v1model.front().first, message};
  return false;
}

bool check_feature_policy(const Program& p, FeaturePolicy policy, LoadError* error) {
  if (policy == FeaturePolicy::kBmv2) return true;
  const std::vector<FeatureUse> uses = ernic_refusals(p);
  if (uses.empty()) return true;
  std::string message = uses[0].where + ": '" + uses[0].feature +
                        "' is not supported yet (the ernic feature set: rocm-ernic's P4 engine refuses it by name";
  for (std::size_t i = 1; i < uses.size(); ++i)
    message += std::string(i == 1 ? "; the program also uses " : ", ") + "'" + uses[i].feature + "'";
  message += "; the bmv2 feature set runs " + std::string(uses.size() == 1 ? "it" : "them") + ")";
  *error = {uses[0].code, message};
  return false;
}

}  // namespace dpusim::p4
