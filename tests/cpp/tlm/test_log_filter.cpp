// The event log's levels and category filters (tlm/log_filter.h): what is written, what a
// watcher still sees, the digest of what would have been written, and the refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tlm/event_log.h"
#include "tlm/log_filter.h"
#include "tlm/sha256.h"

using namespace dpusim::pcie;

namespace {
const EventCategory kNoisy("test_noisy", false, "a high-volume category of this test");
const EventKind kTick("test_tick", kNoisy);

// A log in memory writing what `level` (with keep/omit) writes.
void open_filtered(EventLog& log, LogLevel level, std::vector<std::string> keep = {}, std::vector<std::string> omit = {}) {
  LogFilter f;
  f.level = level;
  f.keep = std::move(keep);
  f.omit = std::move(omit);
  f.check();
  log.open_memory();
  log.set_filter(f.mask());
}

void log_some(EventLog& log) {
  log.event(1, "a", kTick).u64("n", 1);
  log.event(2, "a", "state_change").str("to", "up");
  log.event(3, "a", "log").str("msg", "hello");
  log.event(4, "a", "test_tick").u64("n", 2);  // by name: the kind's category
}
}  // namespace

TEST(LogFilter, AllWritesEverythingSummaryDropsTheNoisyCategory) {
  EventLog all;
  all.open_memory();
  log_some(all);
  EXPECT_EQ(all.lines(), 4u);

  EventLog summary;
  open_filtered(summary, LogLevel::Summary);
  log_some(summary);
  EXPECT_EQ(summary.lines(), 2u);
  EXPECT_EQ(summary.take_memory(),
            "{\"event\":\"state_change\",\"path\":\"a\",\"time_ps\":2,\"to\":\"up\"}\n"
            "{\"event\":\"log\",\"msg\":\"hello\",\"path\":\"a\",\"time_ps\":3}\n");
  EXPECT_EQ(&EventKind::category_of("test_tick"), &kNoisy);
  EXPECT_EQ(&EventKind::category_of("log"), &category::log);
  EXPECT_EQ(&EventKind::category_of("anything_else"), &category::state);
}

TEST(LogFilter, KeepAndOmitAdjustTheLevel) {
  EventLog log;
  open_filtered(log, LogLevel::Summary, {"test_noisy"}, {"log"});
  log_some(log);
  EXPECT_EQ(log.lines(), 3u);  // two ticks and the state change
  LogFilter f;
  f.level = LogLevel::Summary;
  f.keep = {"test_noisy"};
  f.omit = {"log"};
  EXPECT_EQ(f.describe(), "summary, keep test_noisy, omit log");
}

TEST(LogFilter, AWatcherSeesAFilteredEventThatIsNotWritten) {
  EventLog log;
  open_filtered(log, LogLevel::Summary);
  std::string seen;
  log.set_watch_callback([&](uint64_t, const std::string& line) { seen = line; });
  EXPECT_FALSE(log.wants(kTick));
  log.add_watcher({{"event", "\"test_tick\""}}, true);
  EXPECT_TRUE(log.wants(kTick));
  log.event(5, "a", kTick).u64("n", 3);
  EXPECT_EQ(seen, "{\"event\":\"test_tick\",\"n\":3,\"path\":\"a\",\"time_ps\":5}");
  EXPECT_EQ(log.lines(), 0u);
  EXPECT_EQ(log.take_memory(), "");
  EXPECT_FALSE(log.wants(kTick));  // the one-shot watcher is gone
}

TEST(LogFilter, NoneHashesTheSummaryStreamWithoutWritingIt) {
  LogFilter summary_filter;
  summary_filter.level = LogLevel::Summary;
  EventLog summary;
  open_filtered(summary, LogLevel::Summary);
  log_some(summary);
  Sha256 expected;
  expected.update(summary.take_memory());

  LogFilter none;
  none.level = LogLevel::None;
  EXPECT_EQ(none.mask(), summary_filter.mask());
  EventLog digest;
  digest.open_digest();
  digest.set_filter(none.mask());
  log_some(digest);
  digest.close();
  EXPECT_EQ(digest.digest(), expected.hex());
}

TEST(LogFilter, RefusalsNameTheProblem) {
  EXPECT_THROW(LogFilter::parse_level("verbose"), std::invalid_argument);
  LogFilter f;
  f.keep = {"no_such_category"};
  try {
    f.check();
    FAIL() << "accepted an unknown category";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("unknown event category 'no_such_category' (known: dma, log, state, test_noisy, tlp)", 0), 0u)
        << what;
  }
  LogFilter none;
  none.level = LogLevel::None;
  none.omit = {"tlp"};
  EXPECT_THROW(none.check(), std::invalid_argument);
}
