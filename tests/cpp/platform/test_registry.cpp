// The registry of what a platform document can name (models/platform/kinds.cpp): the endpoint
// kinds a slot of the generic switch holds and the device families that replace the switch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "device/endpoint_kind.h"
#include "device/family.h"
#include "platform/platform_doc.h"

using namespace dpusim::platform;
using nlohmann::json;

TEST(Registry, EndpointKindsAndFamiliesAreFoundByNameOnly) {
  // As models/platform/kinds.cpp registers them (the order the document's refusals list).
  ASSERT_EQ(endpoint_kinds().size(), 3u);
  EXPECT_STREQ(endpoint_kinds()[0].name, "ionic");
  EXPECT_STREQ(endpoint_kinds()[1].name, "rtl_dma");  // also in a build without the RTL, which it refuses
  EXPECT_STREQ(endpoint_kinds()[2].name, "test");
  EXPECT_EQ(find_endpoint_kind("ionic"), &endpoint_kinds()[0]);
  EXPECT_EQ(find_endpoint_kind("rtl_dma"), &endpoint_kinds()[1]);
  EXPECT_EQ(find_endpoint_kind("test"), &endpoint_kinds()[2]);
  EXPECT_EQ(find_endpoint_kind("Test"), nullptr);
  EXPECT_EQ(find_endpoint_kind(""), nullptr);
  ASSERT_EQ(device_families().size(), 1u);
  EXPECT_STREQ(device_families()[0].name, "vnet");
  EXPECT_EQ(find_family("vnet"), &device_families()[0]);
  EXPECT_EQ(find_family("vnet "), nullptr);
  for (const EndpointKind& k : endpoint_kinds()) EXPECT_GT(std::string(k.summary).size(), 0u) << k.name;
  for (const DeviceFamily& f : device_families()) EXPECT_GT(std::string(f.summary).size(), 0u) << f.name;
}

TEST(Registry, AKindParsesItsSlotAndAFamilyItsOptionsWithTheirPaths) {
  const EndpointKind& test = *find_endpoint_kind("test");
  auto config = test.parse(json{{"kind", "test"}}, "$.topology.slots[4]", DocContext{});
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->describe(), "test");
  EXPECT_FALSE(config->has_network_port());
  try {
    test.parse(json{{"kind", "test"}, {"bar0", 1}}, "$.topology.slots[4]", DocContext{});
    FAIL() << "accepted an unknown key";
  } catch (const DocError& e) {
    EXPECT_EQ(e.path(), "$.topology.slots[4].bar0");
    EXPECT_EQ(e.reason(), "unknown key (known: kind)");
  }
  const DeviceFamily& vnet = *find_family("vnet");
  auto family = vnet.parse(json{{"num-ep", 2}}, json::object(), "$.topology");
  EXPECT_EQ(family->endpoints(), 2u);
  try {
    vnet.parse(json{{"num-ep", 2}}, json{{"acg", {{"initial", -1}}}}, "$.topology");
    FAIL() << "accepted a negative credit count";
  } catch (const DocError& e) {
    EXPECT_EQ(e.path(), "$.topology.firmware.acg.initial");
  }
}
