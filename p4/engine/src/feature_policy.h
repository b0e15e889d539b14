// The engine's feature policies, checked on a loaded program (feature_policy.cpp).
#pragma once

#include <string>

#include "dpusim/p4/engine.h"
#include "program.h"

namespace dpusim::p4 {

// Every policy: a program missing v1model's parser, deparser, ingress or egress pipeline or
// standard_metadata.egress_spec is refused, naming each gap (and PNA or PSA when it is one).
bool check_v1model(const Program& p, LoadError* error);
// The ernic feature set refuses, by name, each feature rocm-ernic's engine does not build.
bool check_feature_policy(const Program& p, FeaturePolicy policy, LoadError* error);

}  // namespace dpusim::p4
