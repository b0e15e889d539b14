// A platform built from a document and driven as the Python runtime drives it
// (models/platform/platform.h): host operations complete through notifications, advance() runs
// until one is posted, finish() closes the log. One platform per process: a second is refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "platform/platform.h"

using namespace dpusim;
using nlohmann::json;

namespace {

// Advances until the completion of `token` is posted; returns it.
pcie::Notification complete(platform::Platform& p, uint64_t token) {
  for (int rounds = 0; rounds < 100; ++rounds) {
    p.advance(UINT64_MAX);
    for (pcie::Notification& n : p.ctx().take_notifications())
      if (n.kind == std::string(pcie::notification::kCompletion) && n.token == token) return n;
  }
  ADD_FAILURE() << "request " << token << " never completed";
  return pcie::Notification();
}

std::vector<json> events(const std::string& log, const std::string& name) {
  std::vector<json> out;
  size_t start = 0;
  while (start < log.size()) {
    const size_t end = log.find('\n', start);
    json e = json::parse(log.substr(start, end - start));
    if (e["event"] == name) out.push_back(e);
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST(Platform, AGenericPlatformAnswersAConfigReadThroughTheSwitch) {
  const platform::PlatformSpec spec = platform::parse_platform_doc(R"({"seed": 7, "topology": {"slots": [{"kind": "test"}, null]}})");
  platform::Platform p(spec, platform::Outputs{});
  ASSERT_NE(p.pcie_switch(), nullptr);
  EXPECT_EQ(p.slots(), 2u);
  EXPECT_NE(p.endpoint(0), nullptr);
  EXPECT_EQ(p.endpoint(1), nullptr);
  EXPECT_EQ(p.function("switch.usp"), &p.pcie_switch()->usp());
  EXPECT_EQ(p.function("switch.dsp1"), &p.pcie_switch()->dsp(1));
  EXPECT_EQ(p.function("ep1"), nullptr);

  const pcie::Notification usp = complete(p, p.config_read(0x0000, 0x00, 4));
  EXPECT_EQ(usp.status, int(pcie::Outcome::SC));
  EXPECT_EQ(usp.data, (std::vector<uint8_t>{0x34, 0x12, 0x50, 0x53}));
  const pcie::Notification nobody = complete(p, p.config_read(0x0100, 0x00, 2));  // bus 1 not numbered yet
  EXPECT_EQ(nobody.status, int(pcie::Outcome::UR));
  EXPECT_EQ(nobody.data, (std::vector<uint8_t>{0xff, 0xff}));
  p.finish();
  EXPECT_FALSE(p.failed());

  const std::string log = p.ctx().log.take_memory();
  const auto start = events(log, "platform_start");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0]["seed"], 7);
  EXPECT_EQ(start[0]["slots"], 2);
  EXPECT_EQ(start[0]["endpoints"], "test,empty");
  const auto end = events(log, "platform_end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["violations"], 0);
  EXPECT_EQ(end[0]["outstanding_np"], 0);
  EXPECT_EQ(end[0]["tlps"], 4);  // two requests, two completions

  try {
    platform::Platform again(spec, platform::Outputs{});
    FAIL() << "a second platform was built in the same process";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("a platform was already built in this process", 0), 0u);
  }
}

TEST(Platform, AFamilysPlatformPutsTheApplicationBelowTheHost) {
  const platform::PlatformSpec spec =
      platform::parse_platform_doc(R"({"topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0}},
                                      "timing": {"vnet.pe1.config_ps": 3000000}})");
  platform::Platform p(spec, platform::Outputs{});
  EXPECT_EQ(p.pcie_switch(), nullptr);
  ASSERT_NE(p.family(), nullptr);
  EXPECT_NE(p.function("ep0"), nullptr);
  EXPECT_EQ(p.function("ep1"), nullptr);
  const uint64_t token = p.config_read(0x0000, 0x00, 4);
  const pcie::Notification usp = complete(p, token);
  EXPECT_EQ(usp.data, (std::vector<uint8_t>{0xf4, 0x1a, 0xf1, 0x10}));  // the application's USP
  // The document's timing reached the model: served after 3 us on the application's PE1.
  const std::string log = p.ctx().log.take_memory();
  const auto tlps = events(log, "tlp");
  ASSERT_EQ(tlps.size(), 2u);
  EXPECT_EQ(tlps[1]["tx_ps"].get<uint64_t>() - tlps[0]["rx_ps"].get<uint64_t>(), 3000000u);
  p.finish();
  EXPECT_FALSE(p.failed());
}
