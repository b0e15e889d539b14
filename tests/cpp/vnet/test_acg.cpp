// The application's ACG credit cache (acg_queue_push/pop) and the firmware's
// credit parameters of the platform document (acg.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vnet/switch/acg.h"
#include "platform/platform_doc.h"

using namespace dpusim::vnet;
using nlohmann::json;

TEST(AcgQueue, HoldsUpToItsCapacityAndRefusesTheRest) {
  AcgQueue q;
  q.init(2);
  EXPECT_TRUE(q.push());
  EXPECT_TRUE(q.push());
  EXPECT_FALSE(q.push());  // full: the credit is completed with FLUSH
  EXPECT_EQ(q.count(), 2u);
  EXPECT_TRUE(q.pop());
  EXPECT_TRUE(q.pop());
  EXPECT_FALSE(q.pop());  // empty: the MSI gets DOCA_ERROR_AGAIN
}

TEST(AcgQueue, ZeroCapacityMeansNoQueue) {
  AcgQueue q;
  q.init(0);
  EXPECT_FALSE(q.allocated());
  EXPECT_FALSE(q.push());
  EXPECT_EQ(q.flush(), 0u);
}

TEST(AcgQueue, FlushReturnsWhatWasCached) {
  AcgQueue q;
  q.init(16);
  for (int i = 0; i < 5; ++i) q.push();
  EXPECT_EQ(q.flush(), 5u);
  EXPECT_EQ(q.count(), 0u);
}

TEST(AcgSpec, DefaultsAndInitialFollowingTheCapacity) {
  const AcgSpec none = parse_firmware_spec(json::object(), "$.f");
  EXPECT_EQ(none.capacity, 16u);
  EXPECT_EQ(none.initial, 16u);
  EXPECT_TRUE(none.refill);
  const AcgSpec four = parse_firmware_spec(json{{"acg", {{"capacity", 4}}}}, "$.f");
  EXPECT_EQ(four.initial, 4u);
  const AcgSpec g = parse_firmware_spec(
      json{{"acg", {{"initial", 0}, {"refill", false}, {"grants", json::array({json{{"at_ps", 7}, {"count", 2}}})}}}},
      "$.f");
  ASSERT_EQ(g.grants.size(), 1u);
  EXPECT_EQ(g.grants[0].at_ps, 7u);
  EXPECT_EQ(g.grants[0].count, 2u);
  EXPECT_EQ(g.describe(), "acg capacity=16 initial=0 refill=0 grants=1");
}

TEST(AcgSpec, RefusalNamesThePath) {
  try {
    parse_firmware_spec(json{{"acg", {{"grants", json::array({json{{"count", 1}}})}}}}, "$.topology.firmware");
    FAIL() << "accepted a grant without a time";
  } catch (const dpusim::platform::DocError& e) {
    EXPECT_EQ(e.path(), "$.topology.firmware.acg.grants[0]");
  }
}
