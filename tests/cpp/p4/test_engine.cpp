// The engine as a function: the device's port model and v1model's, the end-of-ingress and
// end-of-egress decisions, frame bounds, statistics, the metadata-only run and externs.
// Programs are tests/data/p4/minimal_forward.json with RFC 6902 patches.
#include <nlohmann/json.hpp>

#include "dpusim/p4/limits.h"
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

using Json = nlohmann::json;

Json field(const char* h, const char* f) { return {{"type", "field"}, {"value", {h, f}}}; }
Json hexstr(const char* v) { return {{"type", "hexstr"}, {"value", v}}; }
Json prim(const char* op, Json params) { return {{"op", op}, {"parameters", params}}; }
Json std_meta() { return {{"type", "header"}, {"value", "standard_metadata"}}; }

// minimal_forward.json with ingress.forward's body, ingress.fwd's default action and an
// egress action of the test's choosing.
std::unique_ptr<Engine> program(Json forward_body, int default_action, Json egress_body = nullptr,
                                PortPolicy policy = PortPolicy::kDevice, const ExternRegistry* externs = nullptr,
                                Json extra = Json::array()) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["actions"][1]["primitives"] = forward_body;
  Json& fwd = doc["pipelines"][0]["tables"][0];
  fwd["actions"].push_back("NoAction");
  fwd["action_ids"].push_back(0);
  fwd["next_tables"]["NoAction"] = nullptr;
  fwd["default_entry"]["action_id"] = default_action;
  if (default_action == 1) fwd["default_entry"]["action_data"] = {"0x0"};  // forward's port, unused by the test bodies
  if (!egress_body.is_null()) {
    doc["actions"].push_back({{"name", "egress.stamp"}, {"id", 3}, {"runtime_data", Json::array()}, {"primitives", egress_body}});
    doc["pipelines"][1]["tables"].push_back(
        {{"name", "tbl_stamp"}, {"id", 1}, {"key", Json::array()}, {"match_type", "exact"}, {"type", "simple"},
         {"max_size", 1024}, {"actions", {"egress.stamp"}}, {"action_ids", {3}}, {"base_default_next", nullptr},
         {"next_tables", {{"egress.stamp", nullptr}}},
         {"default_entry", {{"action_id", 3}, {"action_const", true}, {"action_data", Json::array()}, {"action_entry_const", true}}}});
    doc["pipelines"][1]["init_table"] = "tbl_stamp";
  }
  doc = doc.patch(extra);
  LoadOptions o;
  o.policy = policy;
  o.externs = externs;
  LoadError e;
  auto engine = Engine::load(doc.dump(), o, &e);
  EXPECT_NE(engine, nullptr) << load_code_name(e.code) << ": " << e.message;
  return engine;
}

std::vector<std::uint8_t> frame(std::size_t size = 60, int dst_last = 1) {
  std::vector<std::uint8_t> f(size, 0x5a);
  for (int i = 0; i < 6 && static_cast<std::size_t>(i) < size; ++i) f[i] = i == 5 ? static_cast<std::uint8_t>(dst_last) : 0x0a;
  if (size >= 14) f[12] = 0x88, f[13] = 0xb5;
  return f;
}

Verdict run(Engine& e, std::uint32_t port, const std::vector<std::uint8_t>& f) { return e.process(port, f.data(), f.size()); }

const int kNoAction = 0, kForward = 1, kDrop = 2;

TEST(PortModel, AnUnassignedEgressSpecForwardsToTheOtherPort) {
  auto e = program(Json::array(), kNoAction);
  auto f = frame();
  Verdict v = run(*e, P4_PORT_HOST, f);
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_UPLINK);
  EXPECT_EQ(out(v), f);
  v = run(*e, P4_PORT_UPLINK, f);
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_HOST);
}

// Not a v1model program: an Ethernet parser and deparser, no pipelines, no standard metadata
// (the shape of bmv2's own loader fixtures).
constexpr const char* kNoArchitecture = R"({
  "header_types": [{"name": "ethernet_t", "id": 0, "fields": [["dst", 48, false], ["src", 48, false], ["type", 16, false]]}],
  "headers": [{"name": "ethernet", "id": 0, "header_type": "ethernet_t", "metadata": false}],
  "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": [{"name": "start", "id": 0,
    "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "ethernet"}]}], "transition_key": [],
    "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}]}]}],
  "deparsers": [{"name": "deparser", "id": 0, "order": ["ethernet"], "primitives": []}]})";

TEST(PortModel, AProgramWithoutEgressSpecOrPipelinesIsRefusedUnderBothPortPolicies) {
  // No longer run with the missing blocks empty: "a bad program is a startup failure, never a
  // silently inert pipeline" (the P4 engine guide of rocm-ernic).
  for (PortPolicy policy : {PortPolicy::kDevice, PortPolicy::kV1Model}) {
    LoadOptions o;
    o.policy = policy;
    LoadError error;
    EXPECT_EQ(Engine::load(kNoArchitecture, o, &error), nullptr);
    EXPECT_EQ(load_code_name(error.code), std::string("no_egress_spec"));
    EXPECT_EQ(error.message, "not a v1model program: program has no field standard_metadata.egress_spec (nor a field "
                             "alias for it), so it cannot say where a packet goes and is refused at load; program has "
                             "no pipeline named 'ingress' (simple_switch runs that one); program has no pipeline named "
                             "'egress' (simple_switch runs that one)");
    // With standard metadata but no parser: what simple_switch lacks.
    Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
    doc["parsers"][0]["name"] = "ingress_parser";
    EXPECT_EQ(Engine::load(doc.dump(), o, &error), nullptr);
    EXPECT_EQ(load_code_name(error.code), std::string("dangling_ref"));
    EXPECT_EQ(error.message, "not a v1model program: program has no parser named 'parser' (simple_switch runs that one; "
                             "not run: 'ingress_parser')");
  }
}

TEST(PortModel, AnExplicitZeroIsTheHostPort) {
  auto e = program(Json::array({prim("assign", {field("standard_metadata", "egress_spec"), hexstr("0x0000")})}), kForward);
  Verdict v = run(*e, P4_PORT_HOST, frame());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_HOST);
}

TEST(PortModel, APortTheDeviceDoesNotHaveIsADrop) {
  auto e = program(Json::array({prim("assign", {field("standard_metadata", "egress_spec"), hexstr("0x0002")})}), kForward);
  Verdict v = run(*e, P4_PORT_HOST, frame());
  EXPECT_TRUE(v.dropped);
  EXPECT_EQ(v.reason, DropReason::kNoSuchPort);
  EXPECT_EQ(e->stats().dropped, 1u);
  // A frame offered on a port the device does not have is not run at all.
  v = run(*e, 5, frame());
  EXPECT_EQ(v.reason, DropReason::kNoSuchPort);
}

TEST(PortModel, V1modelReadsAnUnassignedEgressSpecAsPortZero) {
  auto e = program(Json::array(), kNoAction, nullptr, PortPolicy::kV1Model);
  Verdict v = run(*e, 7, frame());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, 0u);
  auto e2 = program(Json::array({prim("assign", {field("standard_metadata", "egress_spec"), hexstr("0x00c8")})}), kForward,
                    nullptr, PortPolicy::kV1Model);
  EXPECT_EQ(run(*e2, 7, frame()).port, 200u);
}

// A packet deparsed to nothing (its one header removed, no payload): simple_switch sends an
// empty packet (an empty record in its output capture); the device drops it as too small.
TEST(FrameBounds, APacketDeparsedToNothingIsSentEmptyByV1modelAndDroppedByTheDevice) {
  const Json remove = Json::array({prim("remove_header", {{{"type", "header"}, {"value", "ethernet"}}})});
  auto v1 = program(remove, kForward, nullptr, PortPolicy::kV1Model);
  Verdict v = run(*v1, 0, frame(14));
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, 0u);
  EXPECT_EQ(out(v).size(), 0u);
  EXPECT_EQ(run(*v1, 0, frame(20)).size, 6u);  // the payload after the removed header
  auto device = program(remove, kForward);
  v = run(*device, P4_PORT_HOST, frame(14));
  ASSERT_TRUE(v.dropped);
  EXPECT_EQ(v.reason, DropReason::kTooSmall);
}

TEST(DropDecision, MarkToDropIsUndoneByALaterAssignment) {
  auto e = program(Json::array({prim("mark_to_drop", {std_meta()}),
                                prim("assign", {field("standard_metadata", "egress_spec"), hexstr("0x0001")})}),
                   kForward);
  Verdict v = run(*e, P4_PORT_HOST, frame());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_UPLINK);
  auto dropped = program(Json::array({prim("mark_to_drop", {std_meta()})}), kForward);
  EXPECT_EQ(run(*dropped, P4_PORT_HOST, frame()).reason, DropReason::kIngressDrop);
}

TEST(DropDecision, EgressDecidesAgainAtItsEnd) {
  auto e = program(Json::array(), kNoAction, Json::array({prim("mark_to_drop", {std_meta()})}));
  Verdict v = run(*e, P4_PORT_HOST, frame());
  EXPECT_TRUE(v.dropped);
  EXPECT_EQ(v.reason, DropReason::kEgressDrop);
}

TEST(Egress, SeesTheResolvedPortAndThePacketLength) {
  // egress writes egress_port into ethernet.srcAddr's top and packet_length below it.
  Json stamp = {{"type", "expression"},
                {"value", {{"op", "|"},
                           {"left", {{"type", "expression"}, {"value", {{"op", "<<"}, {"left", field("standard_metadata", "egress_port")}, {"right", hexstr("0x20")}}}}},
                           {"right", field("standard_metadata", "packet_length")}}}};
  auto e = program(Json::array(), kNoAction, Json::array({prim("assign", {field("ethernet", "srcAddr"), stamp})}));
  auto f = frame(77);
  Verdict v = run(*e, P4_PORT_UPLINK, f);
  ASSERT_FALSE(v.dropped);
  auto got = out(v);
  // The unassigned egress_spec resolved to the host port (0); 77 bytes.
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin() + 6, got.begin() + 12), bytes({0, 0, 0, 0, 0, 77}));
  // And to the uplink (1) for a frame from the host.
  got = out(run(*e, P4_PORT_HOST, f));
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin() + 6, got.begin() + 12), bytes({0, 1, 0, 0, 0, 77}));
}

TEST(FrameBounds, RunsOneTo16384BytesAndDropsAndCountsTheRest) {
  auto e = program(Json::array(), kNoAction);
  EXPECT_FALSE(run(*e, P4_PORT_HOST, frame(P4_MAX_FRAME_BYTES)).dropped);
  Verdict v = run(*e, P4_PORT_HOST, frame(P4_MAX_FRAME_BYTES + 1));
  EXPECT_EQ(v.reason, DropReason::kTooBig);
  v = e->process(P4_PORT_HOST, nullptr, 0);
  EXPECT_EQ(v.reason, DropReason::kTooSmall);
  // One byte is too short for the Ethernet header: the parser fails, the frame still runs.
  v = run(*e, P4_PORT_HOST, {0x42});
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(out(v), bytes({0x42}));
  EXPECT_EQ(e->stats().line(),
            "P4 stats: host_in=4 host_out=0 uplink_in=0 uplink_out=2 dropped=2 too_big=1 parse_errors=1 "
            "to_guest=0 to_net=0 to_upstream=0 egress_errors=0 faults=0");
}

TEST(FrameBounds, AFrameThatGrowsPastTheLimitIsDropped) {
  // add_header of a second Ethernet header makes a 16384-byte frame 16398 bytes.
  Json extra = Json::array({
      {{"op", "add"}, {"path", "/headers/-"}, {"value", {{"name", "outer"}, {"id", 3}, {"header_type", "ethernet_t"}, {"metadata", false}}}},
      {{"op", "add"}, {"path", "/deparsers/0/order/0"}, {"value", "outer"}}});
  auto e = program(Json::array({prim("add_header", {{{"type", "header"}, {"value", "outer"}}})}), kForward, nullptr,
                   PortPolicy::kDevice, nullptr, extra);
  Verdict v = run(*e, P4_PORT_HOST, frame(100));
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.size, 114u);
  EXPECT_EQ(out(v)[0], 0);  // the new header is zeroed
  v = run(*e, P4_PORT_HOST, frame(P4_MAX_FRAME_BYTES));
  EXPECT_EQ(v.reason, DropReason::kTooBig);
  EXPECT_EQ(e->stats().too_big, 1u);
}

TEST(Faults, DropAndCount) {
  Json div = {{"type", "expression"}, {"value", {{"op", "/"}, {"left", field("ethernet", "etherType")}, {"right", hexstr("0x0")}}}};
  auto e = program(Json::array({prim("assign", {field("ethernet", "etherType"), div})}), kForward);
  Verdict v = run(*e, P4_PORT_HOST, frame());
  EXPECT_EQ(v.reason, DropReason::kFault);
  EXPECT_STREQ(v.fault, "division by zero");
  EXPECT_EQ(e->stats().faults, 1u);
  EXPECT_EQ(e->stats().dropped, 1u);
}

TEST(Faults, ALoopInAnActionIsBounded) {
  // primitive 0 jumps to itself: the action is cut off and the frame dropped.
  auto e = program(Json::array({prim("_jump", {hexstr("0x0")})}), kForward);
  Verdict v = run(*e, P4_PORT_HOST, frame());
  EXPECT_EQ(v.reason, DropReason::kFault);
}

TEST(MetadataRun, RunsIngressWithoutParserOrDeparser) {
  // The RDMA path's shape: a metadata header, a table keyed on it, no wire at all.
  Json extra = Json::array({
      {{"op", "add"}, {"path", "/header_types/-"}, {"value", {{"name", "rdma_metadata_t"}, {"id", 3}, {"fields", {{"opcode", 8, false}, {"qp_num", 24, false}}}}}},
      {{"op", "add"}, {"path", "/headers/-"}, {"value", {{"name", "rdma_metadata"}, {"id", 3}, {"header_type", "rdma_metadata_t"}, {"metadata", true}}}},
      {{"op", "replace"}, {"path", "/pipelines/0/tables/0/key/0"}, {"value", {{"match_type", "exact"}, {"name", "meta.opcode"}, {"target", {"rdma_metadata", "opcode"}}, {"mask", nullptr}}}}});
  auto e = program(Json::array({prim("assign", {field("rdma_metadata", "qp_num"), hexstr("0x000777")})}), kNoAction, nullptr,
                   PortPolicy::kDevice, nullptr, extra);
  TableUpdate u;
  u.table = "ingress.fwd";
  u.match.push_back({"meta.opcode", "0x0a", std::nullopt, std::nullopt, std::nullopt});
  u.action = "ingress.drop";
  UpdateError err;
  ASSERT_TRUE(e->update(u, &err)) << err.message;
  u.match[0].value = "0x0b";
  u.action = "ingress.forward";
  u.params = {{"port", "1"}};
  ASSERT_TRUE(e->update(u, &err)) << err.message;
  int opcode = e->metadata().field_handle("rdma_metadata.opcode");
  int qp = e->metadata().field_handle("rdma_metadata.qp_num");
  ASSERT_GE(opcode, 0);
  EXPECT_EQ(e->metadata().field_width(qp), 24);
  EXPECT_EQ(e->metadata().run({{opcode, Value::of(0x0a)}}).reason, DropReason::kIngressDrop);
  Verdict v = e->metadata().run({{opcode, Value::of(0x0b)}});
  EXPECT_FALSE(v.dropped);
  EXPECT_EQ(e->metadata().read_field(qp), Value::of(0x777));
  EXPECT_FALSE(e->metadata().run({{opcode, Value::of(0x0c)}}).dropped);  // miss: NoAction
}

struct Calls {
  std::vector<std::uint64_t> seen;
  ExternResult answer = ExternResult::kContinue;
};

ExternResult bump(ExternCall& call) {
  auto* calls = static_cast<Calls*>(call.context);
  calls->seen.push_back(call.args[0].w[0] + call.instance->int_attributes.at("base").w[0]);
  return calls->answer;
}

TEST(Externs, ATypeMustBeRegisteredAndItsMethodsAreCalled) {
  ExternRegistry registry;
  registry.add({"tally", {{"bump", 1, 1, &bump}}, nullptr});
  Json extra = Json::array({{{"op", "add"}, {"path", "/extern_instances/-"},
                             {"value", {{"name", "t0"}, {"id", 0}, {"type", "tally"},
                                        {"attribute_values", {{{"name", "base"}, {"type", "hexstr"}, {"value", "0x64"}}}}}}}});
  Json body = Json::array({prim("_tally_bump", {{{"type", "extern"}, {"value", "t0"}}, field("ethernet", "etherType")}),
                           prim("assign", {field("standard_metadata", "egress_spec"), hexstr("0x0000")})});
  // Without the registry an instance nothing calls loads, and a call is refused by the
  // extern's name.
  Json doc = Json::parse(read_file(data_path("minimal_forward.json"))).patch(extra);
  LoadError err;
  EXPECT_NE(Engine::load(doc.dump(), LoadOptions{}, &err), nullptr) << err.message;
  Json called = doc;
  called["actions"][2]["primitives"] = body;
  EXPECT_EQ(Engine::load(called.dump(), LoadOptions{}, &err), nullptr);
  EXPECT_NE(err.message.find("'extern tally' is not supported yet"), std::string::npos) << err.message;
  auto e = program(body, kForward, nullptr, PortPolicy::kDevice, &registry, extra);
  Calls calls;
  e->metadata().set_extern_context(&calls);
  Verdict v = run(*e, P4_PORT_UPLINK, frame());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_HOST);
  EXPECT_EQ(calls.seen, std::vector<std::uint64_t>({0x88b5 + 100}));
  // A method that stops the pipeline leaves the rest of the action unrun.
  calls.answer = ExternResult::kStopPipeline;
  v = run(*e, P4_PORT_HOST, frame());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, P4_PORT_UPLINK);  // egress_spec was never assigned
  calls.answer = ExternResult::kFault;
  EXPECT_EQ(run(*e, P4_PORT_HOST, frame()).reason, DropReason::kFault);
}

}  // namespace
}  // namespace dpusim::p4::test
