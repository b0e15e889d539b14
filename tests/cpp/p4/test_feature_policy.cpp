// The engine's feature policies (engine.h, FeaturePolicy). ernic is what the P4 engine guide
// of rocm-ernic allows: "What is not built yet: checksums and calculations; negative literals
// in actions; and counters, meters, registers and action profiles. Each is refused by name
// rather than ignored." bmv2 is everything the engine builds. Neither runs a program that is
// not v1model: "a program without that field cannot say where a packet goes and is refused at
// load", and "a bad program is a startup failure, never a silently inert pipeline".
#include <functional>

#include <nlohmann/json.hpp>

#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

using Json = nlohmann::json;

LoadError refused_under(const std::string& text, FeaturePolicy features, PortPolicy policy = PortPolicy::kDevice) {
  LoadOptions o;
  o.policy = policy;
  o.features = features;
  LoadError error;
  EXPECT_EQ(Engine::load(text, o, &error), nullptr) << "loaded under " << feature_policy_name(features);
  return error;
}

bool loads_under(const std::string& text, FeaturePolicy features) {
  LoadOptions o;
  o.features = features;
  LoadError error;
  auto engine = Engine::load(text, o, &error);
  EXPECT_NE(engine, nullptr) << "error[" << load_code_name(error.code) << "]: " << error.message;
  return engine != nullptr && engine->features() == features;
}

// minimal_forward.json with one feature added.
std::string minimal_forward_with(const std::function<void(Json&)>& patch) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  patch(doc);
  return doc.dump();
}

std::string ernic_refusal(const std::string& where, const std::string& feature) {
  return where + ": '" + feature +
         "' is not supported yet (the ernic feature set: rocm-ernic's P4 engine refuses it by name; the bmv2 feature "
         "set runs it)";
}

TEST(FeaturePolicy, NamesAreErnicAndBmv2AndNothingElse) {
  FeaturePolicy p = FeaturePolicy::kBmv2;
  EXPECT_TRUE(feature_policy_from_name("ernic", &p));
  EXPECT_EQ(p, FeaturePolicy::kErnic);
  EXPECT_TRUE(feature_policy_from_name("bmv2", &p));
  EXPECT_EQ(p, FeaturePolicy::kBmv2);
  EXPECT_FALSE(feature_policy_from_name("v1model", &p));
  EXPECT_FALSE(feature_policy_from_name("ERNIC", &p));
  EXPECT_STREQ(feature_policy_name(FeaturePolicy::kErnic), "ernic");
  EXPECT_STREQ(feature_policy_name(FeaturePolicy::kBmv2), "bmv2");
  EXPECT_EQ(LoadOptions{}.features, FeaturePolicy::kBmv2);  // the engine's own default: all it builds
}

TEST(FeaturePolicy, TheErnicSetRefusesEachFeatureTheGuideListsByName) {
  struct Case {
    const char* feature;
    std::function<void(Json&)> patch;
    std::string where;
    const char* code;
  };
  const std::vector<Case> cases = {
      {"checksums",
       [](Json& d) { d["checksums"] = Json::parse(R"([{"name": "ck", "id": 0, "target": ["ethernet", "etherType"], "type": "ipv4"}])"); },
       "checksum 'ck'", "unsupported"},
      {"calculations",
       [](Json& d) { d["calculations"] = Json::parse(R"([{"name": "h", "id": 0, "algo": "crc16", "input": []}])"); },
       "calculation 'h'", "unsupported"},
      {"negative literals",
       [](Json& d) {
         d["actions"][1]["primitives"].push_back(Json::parse(
             R"({"op": "assign", "parameters": [{"type": "field", "value": ["ethernet", "etherType"]}, {"type": "hexstr", "value": "-0x1"}]})"));
       },
       "action 'ingress.forward' primitive 1 'assign'", "unsupported"},
      {"counters",
       [](Json& d) { d["counter_arrays"] = Json::parse(R"([{"name": "c", "id": 0, "size": 4, "is_direct": false}])"); },
       "counter 'c'", "unsupported"},
      {"meters",
       [](Json& d) {
         d["meter_arrays"] = Json::parse(
             R"([{"name": "m", "id": 0, "size": 4, "is_direct": false, "rate_count": 2, "type": "packets"}])");
       },
       "meter 'm'", "unsupported"},
      {"registers",
       [](Json& d) { d["register_arrays"] = Json::parse(R"([{"name": "r", "id": 0, "size": 4, "bitwidth": 32}])"); },
       "register 'r'", "unsupported"},
      {"action profiles",
       [](Json& d) { d["pipelines"][0]["action_profiles"] = Json::parse(R"([{"name": "ap", "id": 0, "max_size": 4}])"); },
       "action profile 'ap'", "unsupported"},
      {"signed fields",
       [](Json& d) { d["header_types"][0]["fields"] = Json::parse(R"([["delta", 8, true]])"); },
       "field 'scalars.delta'", "signed_field"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.feature);
    const std::string text = minimal_forward_with(c.patch);
    LoadError e = refused_under(text, FeaturePolicy::kErnic);
    EXPECT_EQ(load_code_name(e.code), std::string(c.code));
    EXPECT_EQ(e.message, ernic_refusal(c.where, c.feature));
    EXPECT_TRUE(loads_under(text, FeaturePolicy::kBmv2));
  }
}

TEST(FeaturePolicy, TheErnicSetRefusesV1modelOpsNamingEveryFeatureItUses) {
  const std::string text = read_file(data_path("v1model_ops.json"));
  LoadError e = refused_under(text, FeaturePolicy::kErnic);
  EXPECT_EQ(load_code_name(e.code), std::string("unsupported"));
  EXPECT_EQ(e.message,
            "checksum 'cksum_verify': 'checksums' is not supported yet (the ernic feature set: rocm-ernic's P4 engine "
            "refuses it by name; the program also uses 'calculations', 'counters', 'meters', 'registers', 'action "
            "profiles'; the bmv2 feature set runs them)");
  EXPECT_TRUE(loads_under(text, FeaturePolicy::kBmv2));
}

TEST(FeaturePolicy, WhatTheGuideBuildsLoadsUnderBoth) {
  for (const char* name : {"minimal_forward.json", "loopback.json", "features.json", "key_mask.json"}) {
    SCOPED_TRACE(name);
    const std::string text = read_file(data_path(name));
    EXPECT_TRUE(loads_under(text, FeaturePolicy::kErnic));
    EXPECT_TRUE(loads_under(text, FeaturePolicy::kBmv2));
  }
}

TEST(FeaturePolicy, NoPolicyRunsADocumentThatIsNotAV1modelProgram) {
  const std::string gaps =
      "program has no field standard_metadata.egress_spec (nor a field alias for it), so it cannot say where a packet "
      "goes and is refused at load; program has no parser named 'parser' (simple_switch runs that one); program has no "
      "deparser named 'deparser' (simple_switch runs that one); program has no pipeline named 'ingress' (simple_switch "
      "runs that one); program has no pipeline named 'egress' (simple_switch runs that one)";
  for (FeaturePolicy f : kFeaturePolicies)
    for (PortPolicy p : {PortPolicy::kDevice, PortPolicy::kV1Model}) {
      SCOPED_TRACE(feature_policy_name(f));
      LoadError e = refused_under(R"({"bad": 1})", f, p);
      EXPECT_EQ(load_code_name(e.code), std::string("no_egress_spec"));
      EXPECT_EQ(e.message, "not a v1model program: " + gaps);
    }
}

TEST(FeaturePolicy, EachMissingBlockIsRefusedByName) {
  struct Case {
    const char* json_key;
    const char* rename_to;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"parsers", "ingress_parser", "program has no parser named 'parser' (simple_switch runs that one; not run: 'ingress_parser')"},
      {"deparsers", "dep", "program has no deparser named 'deparser' (simple_switch runs that one; not run: 'dep')"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json_key);
    const std::string text = minimal_forward_with([&](Json& d) { d[c.json_key][0]["name"] = c.rename_to; });
    for (FeaturePolicy f : kFeaturePolicies) {
      LoadError e = refused_under(text, f);
      EXPECT_EQ(load_code_name(e.code), std::string("dangling_ref"));
      EXPECT_EQ(e.message, "not a v1model program: " + c.message);
    }
  }
  const std::string no_egress = minimal_forward_with([](Json& d) { d["pipelines"].erase(1); });
  LoadError e = refused_under(no_egress, FeaturePolicy::kBmv2);
  EXPECT_EQ(e.message, "not a v1model program: program has no pipeline named 'egress' (simple_switch runs that one)");
}

TEST(FeaturePolicy, APnaProgramSaysItIsOneAndThatTheDeviceRunsV1model) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["header_types"].push_back(Json::parse(R"({"name": "pna_main_input_metadata_t", "id": 9, "fields": [["input_port", 32, false]]})"));
  doc["parsers"][0]["name"] = "main_parser";
  LoadError e = refused_under(doc.dump(), FeaturePolicy::kBmv2);
  EXPECT_EQ(load_code_name(e.code), std::string("dangling_ref"));
  EXPECT_EQ(e.message,
            "a PNA program; the device runs v1model programs (p4c --target bmv2 --arch v1model): program has no parser "
            "named 'parser' (simple_switch runs that one; not run: 'main_parser')");
  doc["header_types"].back()["name"] = "psa_ingress_input_metadata_t";
  e = refused_under(doc.dump(), FeaturePolicy::kErnic);
  EXPECT_EQ(e.message,
            "a PSA program; the device runs v1model programs (p4c --target bmv2 --arch v1model): program has no parser "
            "named 'parser' (simple_switch runs that one; not run: 'main_parser')");
}

}  // namespace
}  // namespace dpusim::p4::test
