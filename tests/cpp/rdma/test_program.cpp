// Programs as the ionic device loads them: the fp8_unit extern allow-listed by name, the
// rdma_metadata rules (tests/data/p4/rdma_reject_cases.json), which programs are RDMA programs,
// and which engines the RDMA path accepts.
#include "dpusim/p4/rdma/fp8_unit.h"
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

TEST(DeviceProgram, TheWorkedExamplesLoadAsRdmaPrograms) {
  for (const char* name : {"fp8_policy.json", "fp8_convert.json"}) {
    SCOPED_TRACE(name);
    auto e = load(name);
    ASSERT_NE(e, nullptr);
    RdmaProgramInfo info;
    LoadError err;
    ASSERT_TRUE(analyze_rdma_program(*e, &info, &err)) << err.message;
    EXPECT_TRUE(info.is_rdma);
    EXPECT_GE(info.opcode, 0);
    EXPECT_EQ(e->metadata().field_width(info.opcode), 8);
    EXPECT_EQ(e->metadata().field_width(info.qp_num), 24);
  }
  // fp8_convert declares only opcode and qp_num: the others are optional.
  RdmaProgramInfo info;
  LoadError err;
  ASSERT_TRUE(analyze_rdma_program(*load("fp8_convert.json"), &info, &err));
  EXPECT_EQ(info.length, -1);
  EXPECT_EQ(info.imm_data, -1);
  EXPECT_EQ(info.rkey, -1);
}

TEST(DeviceProgram, EachRejectCaseIsRefusedWithItsCodeAndMessage) {
  Json cases = read_json("rdma_reject_cases.json")["cases"];
  ASSERT_GE(cases.size(), 12u);
  for (const Json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    LoadError err;
    auto e = load(c["base"], c["patch"], &err);
    ASSERT_EQ(e, nullptr) << "loaded";
    EXPECT_EQ(load_code_name(err.code), c["code"].get<std::string>()) << err.message;
    EXPECT_NE(err.message.find(c["message"].get<std::string>()), std::string::npos) << err.message;
  }
}

TEST(DeviceProgram, WithoutTheDeviceRegistryFp8UnitIsAnExternTheTargetLacks) {
  // bmv2's own target (and the engine alone) has no fp8_unit: refused by name.
  LoadError err;
  auto e = Engine::load(read_json("fp8_policy.json").dump(), LoadOptions{}, &err);
  ASSERT_EQ(e, nullptr);
  EXPECT_EQ(err.code, LoadCode::kUnsupported);
  EXPECT_NE(err.message.find("'extern fp8_unit' is not supported yet"), std::string::npos) << err.message;
}

TEST(DeviceProgram, TheRegistryHoldsExactlyFp8UnitWithItsTwoMethods) {
  const ExternRegistry& r = device_externs();
  ASSERT_EQ(r.types().size(), 1u);
  const ExternType* t = r.find(kFp8UnitType);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->methods.size(), 2u);
  EXPECT_EQ(t->methods[0].name, "apply");
  EXPECT_EQ(t->methods[1].name, "cvt");
  for (const ExternMethod& m : t->methods) {
    EXPECT_EQ(m.min_args, 2);
    EXPECT_EQ(m.max_args, 2);
  }
}

TEST(DeviceProgram, PaddingFieldsAndAnotherTypeNameAreAccepted) {
  // p4c pads a header type to whole bytes with `_padding` fields; the type's name is free.
  auto e = load("fp8_convert.json", Json::array({{{"op", "add"}, {"path", "/header_types/2/fields/-"},
                                                  {"value", {"_padding_0", 8, false}}},
                                                 {{"op", "replace"}, {"path", "/header_types/2/name"}, {"value", "rdma_md"}},
                                                 {{"op", "replace"}, {"path", "/headers/2/header_type"}, {"value", "rdma_md"}}}));
  ASSERT_NE(e, nullptr);
  RdmaProgramInfo info;
  LoadError err;
  ASSERT_TRUE(analyze_rdma_program(*e, &info, &err)) << err.message;
  EXPECT_TRUE(info.is_rdma);
}

TEST(DeviceProgram, AProgramWithoutRdmaMetadataIsAnEthernetProgram) {
  for (const char* name : {"minimal_forward.json", "loopback.json", "features.json"}) {
    SCOPED_TRACE(name);
    auto e = load(name);
    ASSERT_NE(e, nullptr);
    RdmaProgramInfo info;
    LoadError err;
    ASSERT_TRUE(analyze_rdma_program(*e, &info, &err));
    EXPECT_FALSE(info.is_rdma);
  }
}

ExternResult nothing(ExternCall&) { return ExternResult::kContinue; }

TEST(DeviceProgram, ThePathRefusesAnEngineLoadedWithAnotherRegistry) {
  // Another registry's methods would be handed the path's state as their context.
  ExternRegistry other;
  other.add({kFp8UnitType, {{"apply", 2, 2, &nothing}, {"cvt", 2, 2, &nothing}}, nullptr});
  LoadOptions o;
  o.externs = &other;
  LoadError err;
  auto e = Engine::load(read_json("fp8_policy.json").dump(), o, &err);
  ASSERT_NE(e, nullptr) << err.message;
  RdmaPath path;
  EXPECT_FALSE(path.attach(e.get(), &err));
  EXPECT_EQ(err.code, LoadCode::kExternRegistry);
  EXPECT_STREQ(load_code_name(err.code), "extern_registry");
  EXPECT_FALSE(path.has_rdma_program());
  // An engine loaded with no registry at all can hold no extern call: accepted.
  auto plain = Engine::load(read_json("minimal_forward.json").dump(), LoadOptions{}, &err);
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(path.attach(plain.get(), &err));
  EXPECT_FALSE(path.has_rdma_program());
}

TEST(DeviceProgram, TheNewLoadCodesHaveStableNames) {
  EXPECT_STREQ(load_code_name(LoadCode::kRdmaMetadataWidth), "rdma_metadata_width");
  EXPECT_STREQ(load_code_name(LoadCode::kRdmaMetadataField), "rdma_metadata_field");
  EXPECT_STREQ(load_code_name(LoadCode::kRdmaMetadataWire), "rdma_metadata_wire");
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
