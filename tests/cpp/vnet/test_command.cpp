// The application's stdin commands (models/vnet/app/command.h; the DOCA guide's hotplug control):
// the grammar's outcomes (REJECTED, IGNORED, DROPPED, SKIPPED, and each item's result), and the
// lines each command produced, the main thread's while parsing and the worker's while its item
// ran, in the event "command".
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;

namespace {

Json line(const char* level, const std::string& msg, const char* path = vnet::kMainThread) {
  return Json{{"level", level}, {"msg", msg}, {"path", path}};
}

}  // namespace

TEST(Command, TheGrammarsOutcomesAndTheirLines) {
  VnetBench b(2, 1);
  b.enumerate();
  struct Case {
    std::string text, outcome;
    Json lines;
  };
  const std::string usage = "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>";
  const std::vector<Case> cases{
      {"", "IGNORED", Json::array()},
      {"  \t ", "IGNORED", Json::array()},
      {"plug 5", "REJECTED", Json::array({line("error", "EP index 5 out of range (max: 1)")})},
      {"speed 3 1000", "REJECTED", Json::array({line("error", "EP index 3 out of range (max: 1)")})},
      {"speed 0 0", "REJECTED", Json::array({line("error", "Speed value must be greater than 0 Mbps")})},
      {"speed 0 1000", "DROPPED",
       Json::array({line("info", "Speed change EP[0] to 1000 Mbps (queuing to worker)"),
                    line("debug", "Speed change work dropped - no active VirtIO device")})},
      {"hello", "REJECTED", Json::array({line("error", usage)})},
      {"plug", "REJECTED", Json::array({line("error", usage)})},
      {"unplug x", "REJECTED", Json::array({line("error", usage)})},
      {"replug 1", "REJECTED", Json::array({line("error", usage)})},
      // Extra tokens are ignored: "plug 1 2" is plug 1 (here transient: HPIE is clear).
      {"  plug 1 2", "AGAIN",
       Json::array({line("info", "PLUG on DSP[1] (queuing to worker thread)"),
                    line("info", "Hotplug event queued: DSP[1] plug (async - main thread stays on PE progress)"),
                    line("info", "Executing async hotplug: DSP[1] plug", vnet::kWorkerThread),
                    line("warning",
                         "DSP[1] plug: HP interrupt not enabled - host pciehp may still be completing power off sequence, "
                         "retry later",
                         vnet::kWorkerThread),
                    line("warning", "Async hotplug DSP[1] plug: transient, retry later", vnet::kWorkerThread)})},
  };
  std::vector<uint64_t> ids;
  for (const Case& c : cases) ids.push_back(b.app.command(c.text));
  b.run_for(kSec);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Json r = b.command_result(ids[k]);
    ASSERT_FALSE(r.is_null()) << cases[k].text;
    EXPECT_EQ(r["line"], cases[k].text);
    EXPECT_EQ(r["outcome"], cases[k].outcome) << cases[k].text;
    EXPECT_EQ(r["lines"], cases[k].lines) << cases[k].text;
    EXPECT_EQ(r["path"], vnet::kMainThread);
  }
  // The outcome is known at once for what the main thread decides, when the item ends otherwise.
  EXPECT_EQ(b.command_result(ids[2])["time_ps"], b.command_result(ids[0])["time_ps"]);
  const auto item = b.events.find("work_finished", {{"type", "PCI_CFG_WORK_HOTPLUG_EVENT"}});
  ASSERT_EQ(item.size(), 1u);
  EXPECT_EQ(b.command_result(ids.back())["time_ps"], item[0]["time_ps"]);
}

TEST(Command, StaticModeRefusesHotplugAndASpeedChangeNeedsTheConfigVector) {
  VnetBench b(1, 0);
  b.enumerate();
  const uint64_t plug = b.app.command("plug 0");
  const uint64_t speed = b.app.command("speed 0 25000");  // the driver gave no config vector
  b.run_for(kSec);
  EXPECT_EQ(b.command_result(plug)["outcome"], "REJECTED");
  EXPECT_EQ(b.command_result(plug)["lines"], Json::array({line("error", "Hotplug commands require --hotplug mode")}));
  const Json r = b.command_result(speed);
  EXPECT_EQ(r["outcome"], "BAD_STATE");
  EXPECT_EQ(r["lines"], Json::array({line("info", "Speed change EP[0] to 25000 Mbps (queuing to worker)"),
                                     line("info", "Speed change to 25000 Mbps queued (async)"),
                                     line("debug", "Config MSI-X not available (vector=0xffff)", vnet::kWorkerThread),
                                     line("error", "Speed change: config MSI-X not available: DOCA_ERROR_BAD_STATE",
                                          vnet::kWorkerThread),
                                     line("error", "Speed change failed: DOCA_ERROR_BAD_STATE", vnet::kWorkerThread)}));
  // During the shutdown wait stdin is ignored.
  b.app.primary().state().shutting_down = true;
  const uint64_t late = b.app.command("speed 0 1000");
  b.run_for(kUs);
  EXPECT_EQ(b.command_result(late)["outcome"], "IGNORED");
  EXPECT_EQ(b.command_result(late)["lines"], Json::array());
}

TEST(Command, ASpeedChangeWhoseItemWentStaleIsSkipped) {
  VnetBench b(1, 0);
  b.enumerate();
  const uint64_t speed = b.app.command("speed 0 25000");
  b.status(0, 0);  // a reset before the worker takes the item: its generation is stale
  b.run_for(kSec);
  const Json r = b.command_result(speed);
  EXPECT_EQ(r["outcome"], "SKIPPED");
  EXPECT_EQ(r["lines"], Json::array({line("info", "Speed change EP[0] to 25000 Mbps (queuing to worker)"),
                                     line("info", "Speed change to 25000 Mbps queued (async)")}));
  EXPECT_EQ(b.events.line_count("Skipping stale work type 10 (gen=1)"), 1u);
}
