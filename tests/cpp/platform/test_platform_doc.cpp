// The platform document (models/platform/platform_doc.h): refused before anything is built,
// with the JSON path of the bad field and the reason. The refusals tests/py/test_platform_doc.py
// covers through Python are not repeated here; these are the size and depth bounds, device
// families, wires, the host object and a document that passes, read back field by field.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "device/family.h"
#include "platform/platform_doc.h"

using namespace dpusim::platform;

namespace {

// The refusal of `doc` as "path: reason", or "accepted".
std::string refusal(const std::string& doc) {
  try {
    parse_platform_doc(doc);
  } catch (const DocError& e) {
    EXPECT_EQ(std::string(e.what()), e.path() + ": " + e.reason());
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(PlatformDoc, OversizedOrTooDeepDocumentsAreRefusedBeforeParsing) {
  const std::string big = "{\"topology\": {\"endpoints\": 1}, \"pad\": \"" + std::string(kMaxDocBytes, ' ') + "\"}";
  EXPECT_EQ(refusal(big), "$: document of " + std::to_string(big.size()) + " bytes exceeds the limit of 1048576");
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  EXPECT_EQ(refusal(deep), "$: nesting depth 65 exceeds the limit of 64");
  EXPECT_EQ(refusal(std::string(64, '[') + std::string(64, ']')), "$: must be a JSON object");
  // Brackets inside strings (escaped quotes included) are not nesting.
  EXPECT_EQ(refusal("{\"x\": \"\\\"" + std::string(100, '[') + "\"}"), "$.x: unknown key (known: explore, fidelity, host, mesh, outputs, seed, timing, topology, wires)");
  EXPECT_EQ(refusal("{\"seed\": 1e999}").rfind("$: not valid JSON: ", 0), 0u);
}

TEST(PlatformDoc, ADeviceFamilyIsNamedAndItsOptionsAreAnObject) {
  EXPECT_EQ(refusal(R"({"topology": {"family": 4}})"), "$.topology.family: must be a string (known: vnet)");
  EXPECT_EQ(refusal(R"({"topology": {"family": "ionic"}})"), "$.topology.family: unknown device family 'ionic' (known: vnet)");
  EXPECT_EQ(refusal(R"({"topology": {"family": "vnet", "endpoints": 2}})"),
            "$.topology.endpoints: unknown key (known: family, firmware, options)");
  EXPECT_EQ(refusal(R"({"topology": {"family": "vnet", "options": [1]}})"), "$.topology.options: must be an object, not array");
  EXPECT_EQ(refusal(R"({"topology": {"family": "vnet", "options": {"num-ep": 40}}})"),
            "$.topology.options.num-ep: Invalid num_ep value: 40. Must be between 1 and MAX_NUM_EP(32)");
  EXPECT_EQ(refusal(R"({"topology": {"slots": [{}]}})"), "$.topology.slots[0].kind: missing (known kinds: ionic, rtl_dma, test)");
  EXPECT_EQ(refusal(R"({"topology": {"slots": [{"kind": 1}]}})"), "$.topology.slots[0].kind: must be a string (known kinds: ionic, rtl_dma, test)");
  EXPECT_EQ(refusal(R"({"topology": 3})"), "$.topology: must be an object, not number");
}

TEST(PlatformDoc, WiresNeedTwoValidEndsAndAnEndpointOnOne) {
  const std::string two = R"({"topology": {"family": "vnet", "options": {"num-ep": 2}}, "wires": )";
  EXPECT_EQ(refusal(two + R"({}})"), R"($.wires: must be an array of {"a": END, "b": END})");
  EXPECT_EQ(refusal(two + R"([3]})"), R"($.wires[0]: must be an object {"a": END, "b": END})");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0"}]})"), "$.wires[0].b: missing");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0", "b": "loopback", "c": 1}]})"), "$.wires[0].c: unknown key (known: a, b)");
  EXPECT_EQ(refusal(two + R"([{"a": "loopback", "b": "python"}]})"), "$.wires[0]: a wire needs an endpoint on at least one end");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0", "b": "ep"}]})"), R"($.wires[0].b: 'ep' is not "ep<i>", "ep<i>.vf<j>", "loopback" or "python")");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0", "b": "ep0001"}]})"), R"($.wires[0].b: 'ep0001' is not "ep<i>", "ep<i>.vf<j>", "loopback" or "python")");
  EXPECT_EQ(refusal(two + R"([{"a": 0, "b": "ep1"}]})"), R"($.wires[0].a: must be a string: "ep<i>", "ep<i>.vf<j>", "loopback" or "python")");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0", "b": "ep1"}, {"a": "ep1", "b": "loopback"}]})"),
            "$.wires[1].a: endpoint 'ep1' is already on another wire");
  // SR-IOV VF ends: only with total-vfs, only below it, each on one wire.
  EXPECT_EQ(refusal(two + R"([{"a": "ep0.vf1", "b": "loopback"}]})"),
            "$.wires[0].a: 'ep0.vf1': endpoint 'ep0' has no VFs (topology.options.total-vfs is not set)");
  const std::string vfs = R"({"topology": {"family": "vnet", "options": {"num-ep": 2, "total-vfs": 2}}, "wires": )";
  EXPECT_EQ(refusal(vfs + R"([{"a": "ep1.vf2", "b": "loopback"}]})"),
            "$.wires[0].a: 'ep1.vf2': endpoint 'ep1' has no VF 2 (topology.options.total-vfs is 2: vf0..vf1)");
  EXPECT_EQ(refusal(vfs + R"([{"a": "ep2.vf0", "b": "loopback"}]})"),
            "$.wires[0].a: endpoint 'ep2' does not exist (the platform has 2)");
  EXPECT_EQ(refusal(vfs + R"([{"a": "ep0.vf", "b": "loopback"}]})"),
            R"($.wires[0].a: 'ep0.vf' is not "ep<i>", "ep<i>.vf<j>", "loopback" or "python")");
  EXPECT_EQ(refusal(vfs + R"([{"a": "ep0.vf1", "b": "loopback"}, {"a": "ep0.vf1", "b": "python"}]})"),
            "$.wires[1].a: endpoint 'ep0.vf1' is already on another wire");
  EXPECT_EQ(refusal(two + R"([{"a": "ep0", "b": "ep1"}]})"), "accepted");
}

TEST(PlatformDoc, TheHostAndOutputsObjectsKnowTheirKeysAndRanges) {
  const std::string one = R"({"topology": {"endpoints": 1}, )";
  EXPECT_EQ(refusal(one + R"("host": {"memory": 4}})"),
            "$.host.memory: unknown key (known: cpus, max_payload_size, max_read_request_size, read_completion_boundary)");
  EXPECT_EQ(refusal(one + R"("host": {"cpus": 0}})"), "$.host.cpus: 0 outside 1..256");
  EXPECT_EQ(refusal(one + R"("host": {"max_read_request_size": 8192}})"), "$.host.max_read_request_size: 8192 outside 128..4096");
  EXPECT_EQ(refusal(one + R"("host": 1})"), "$.host: must be an object, not number");
  EXPECT_EQ(refusal(one + R"("outputs": {"pcaps": true}})"), "$.outputs.pcaps: unknown key (known: log, pcap, vcd)");
  EXPECT_EQ(refusal(one + R"("timing": {"vnet.pe1.bound_ps": 0}})"),
            "$.timing.vnet.pe1.bound_ps: timing parameter 'vnet.pe1.bound_ps' = 0 outside 1..100000000000000 ps");
  EXPECT_EQ(refusal(one + R"("timing": {"switch.traversal_ps": "5"}})"),
            "$.timing.switch.traversal_ps: must be a non-negative integer, not string \"5\"");
}

TEST(PlatformDoc, AGoodDocumentIsReadFieldByField) {
  const PlatformSpec s = parse_platform_doc(R"({
    "seed": 18446744073709551615,
    "host": {"cpus": 8, "max_payload_size": 512, "max_read_request_size": 1024, "read_completion_boundary": 128},
    "topology": {"slots": [{"kind": "test"}, null, {"kind": "test"}]},
    "timing": {"switch.traversal_ps": 150000, "link.host.gen": 3},
    "outputs": {"vcd": false}})");
  EXPECT_EQ(s.seed, UINT64_MAX);
  EXPECT_EQ(s.host.cpus, 8u);
  EXPECT_EQ(s.host.max_payload_size, 512u);
  EXPECT_EQ(s.host.max_read_request_size, 1024u);
  EXPECT_EQ(s.host.read_completion_boundary, 128u);
  ASSERT_EQ(s.slots.size(), 3u);
  EXPECT_EQ(s.slots[0]->kind, "test");
  EXPECT_FALSE(s.slots[1].has_value());
  EXPECT_EQ(s.slots[2]->config->describe(), "test");
  EXPECT_EQ(s.timing, (std::vector<std::pair<std::string, uint64_t>>{{"link.host.gen", 3}, {"switch.traversal_ps", 150000}}));
  EXPECT_FALSE(s.vcd);
  EXPECT_TRUE(s.wires.empty());
  EXPECT_EQ(s.family, nullptr);

  const PlatformSpec v = parse_platform_doc(
      R"({"topology": {"family": "vnet", "options": {"num-ep": 3, "hotplug-mode": 1}, "firmware": {"acg": {"capacity": 2}}},
          "wires": [{"a": "python", "b": "ep2"}]})");
  EXPECT_EQ(v.family_name, "vnet");
  ASSERT_NE(v.family, nullptr);
  EXPECT_EQ(v.family->endpoints(), 3u);
  EXPECT_TRUE(v.family->has_network_port(2));
  EXPECT_EQ(v.family->describe(),
            "vnet num-ep=3 hotplug-mode=1 max-queue-pairs=8 queue-size=1024 mac-addr=52:54:00:12:34:56 mtu=1500 "
            "speed=100000 acg capacity=2 initial=2 refill=1 grants=0");
  ASSERT_EQ(v.wires.size(), 1u);
  EXPECT_EQ(v.wires[0].a, "python");
  EXPECT_EQ(v.wires[0].b, "ep2");
  EXPECT_TRUE(v.slots.empty());
}
