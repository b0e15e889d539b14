// The denial log's rate limit: at most 10 lines in a 5 s window of simulated time that opens
// at the first denial, then one line saying how many were not logged; exact lines and times.
#include "dpusim/p4/rdma/deny_log.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dpusim::p4::rdma::test {
namespace {

using Lines = std::vector<std::pair<std::uint64_t, std::string>>;
constexpr std::uint64_t kSecond = 1000000000000ull;

struct Recorder {
  Lines lines;
  DenyLog log{[this](std::uint64_t t, const std::string& s) { lines.emplace_back(t, s); }};
};

std::string line(int i) { return "denial " + std::to_string(i); }

TEST(DenyLog, TheFirstTenDenialsOfAWindowAreLoggedTheRestCounted) {
  Recorder r;
  for (int i = 0; i < 25; ++i) r.log.denied(kSecond + static_cast<std::uint64_t>(i), line(i));
  ASSERT_EQ(r.lines.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.lines[i], std::make_pair(kSecond + i, line(i)));
  EXPECT_EQ(r.log.logged(), 10u);
  EXPECT_EQ(r.log.not_logged(), 15u);
}

TEST(DenyLog, TheNextDenialAfterTheWindowLogsTheCountFirstAndOpensANewWindow) {
  Recorder r;
  for (int i = 0; i < 13; ++i) r.log.denied(kSecond, line(i));
  // One picosecond before the end: still the first window.
  r.log.denied(kSecond + 5 * kSecond - 1, "late");
  ASSERT_EQ(r.lines.size(), 10u);
  // At the end exactly: the count of the first window, then the denial, in a new window.
  r.log.denied(6 * kSecond, "next");
  ASSERT_EQ(r.lines.size(), 12u);
  EXPECT_EQ(r.lines[10], std::make_pair(6 * kSecond, std::string("P4 program denials not logged: 4 in the 5 s from t=1000000000000 ps")));
  EXPECT_EQ(r.lines[11], std::make_pair(6 * kSecond, std::string("next")));
  // The new window allows ten again (its first was "next").
  for (int i = 0; i < 12; ++i) r.log.denied(7 * kSecond, line(i));
  EXPECT_EQ(r.lines.size(), 21u);
  std::uint64_t end = 0;
  ASSERT_TRUE(r.log.window_end_ps(&end));
  EXPECT_EQ(end, 11 * kSecond);
}

TEST(DenyLog, NoCountLineWhenNothingWasSuppressed) {
  Recorder r;
  for (int i = 0; i < 10; ++i) r.log.denied(0, line(i));
  r.log.denied(5 * kSecond, "again");
  ASSERT_EQ(r.lines.size(), 11u);
  EXPECT_EQ(r.lines[10].second, "again");
}

TEST(DenyLog, FlushClosesAnEndedWindowWithoutWaitingForADenial) {
  Recorder r;
  for (int i = 0; i < 11; ++i) r.log.denied(2 * kSecond, line(i));
  r.log.flush(7 * kSecond - 1);  // not over yet
  EXPECT_EQ(r.lines.size(), 10u);
  r.log.flush(7 * kSecond);
  ASSERT_EQ(r.lines.size(), 11u);
  EXPECT_EQ(r.lines[10], std::make_pair(7 * kSecond, std::string("P4 program denials not logged: 1 in the 5 s from t=2000000000000 ps")));
  std::uint64_t end = 0;
  EXPECT_FALSE(r.log.window_end_ps(&end));
  r.log.flush(100 * kSecond);  // nothing open: nothing logged
  EXPECT_EQ(r.lines.size(), 11u);
  // The next denial opens a window at its own time.
  r.log.denied(100 * kSecond, "x");
  ASSERT_TRUE(r.log.window_end_ps(&end));
  EXPECT_EQ(end, 105 * kSecond);
}

TEST(DenyLog, AnEarlierTimeCountsInsideTheOpenWindow) {
  Recorder r;
  r.log.denied(10 * kSecond, "a");
  for (int i = 0; i < 10; ++i) r.log.denied(3 * kSecond, line(i));
  EXPECT_EQ(r.lines.size(), 10u);
  EXPECT_EQ(r.log.not_logged(), 1u);
}

TEST(DenyLog, AWindowNearTheEndOfTimeNeverEndsAndNothingWraps) {
  Recorder r;
  r.log.denied(UINT64_MAX - 1, "a");
  std::uint64_t end = 0;
  ASSERT_TRUE(r.log.window_end_ps(&end));
  EXPECT_EQ(end, UINT64_MAX);
  r.log.flush(UINT64_MAX);
  EXPECT_TRUE(r.log.window_end_ps(&end));
}

TEST(DenyLog, WithoutASinkItStillCounts) {
  DenyLog log{LogSink{}};
  for (int i = 0; i < 12; ++i) log.denied(0, line(i));
  EXPECT_EQ(log.logged(), 10u);
  EXPECT_EQ(log.not_logged(), 2u);
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
