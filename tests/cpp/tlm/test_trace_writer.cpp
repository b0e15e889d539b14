// The event log's sinks and the trace writer: sink-only events stay out of the log, rules make
// slices, states, spans and instants on named tracks, overlapping slices take lanes, and TLP
// hops pair into round trips with a flow from each request to its completion, and the host's
// tasks nest their waits.
#include <gtest/gtest.h>

#include "tlm/event_log.h"
#include "tlm/trace_rules.h"
#include "tlm/trace_writer.h"

using namespace dpusim::pcie;

namespace {

struct Recorder : EventSink {
  std::vector<std::string> seen;
  void on_event(const EventView& e) override {
    std::string args;
    e.append_args(args);
    seen.push_back(std::to_string(e.time_ps()) + " " + std::string(e.path()) + " " + std::string(e.name()) + " " +
                   args + (e.sink_only() ? " sink-only" : ""));
  }
};

// The trace's records (metadata left out), one per line as written.
std::vector<std::string> records(const TraceWriter& w) {
  const std::string text = w.text();
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find("\n{", pos)) != std::string::npos) {
    const size_t end = text.find('\n', pos + 1);
    std::string line = text.substr(pos + 1, end - pos - 1);
    if (!line.empty() && line.back() == ',') line.pop_back();
    if (line.rfind("{\"ph\":\"M\"", 0) != 0) out.push_back(line);
    pos = end;
  }
  return out;
}

bool has(const TraceWriter& w, const std::string& needle) { return w.text().find(needle) != std::string::npos; }

}  // namespace

TEST(EventSink, SeesEveryEventAndSinkOnlyEventsStayOutOfTheLog) {
  EventLog log;
  log.open_memory();
  EXPECT_FALSE(log.sink_event(5, "a.b", "hidden"));  // no sink: inactive
  Recorder r;
  log.add_sink(&r);
  log.event(10, "vnet.main", "log").str("msg", "say \"hi\"\n").u64("n", 3);
  log.sink_event(11, "a.b", "hidden").boolean("x", true);
  EXPECT_EQ(log.lines(), 1u);
  EXPECT_EQ(log.take_memory(), "{\"event\":\"log\",\"msg\":\"say \\\"hi\\\"\\n\",\"n\":3,\"path\":\"vnet.main\",\"time_ps\":10}\n");
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_EQ(r.seen[0], "10 vnet.main log {\"msg\":\"say \\\"hi\\\"\\n\",\"n\":3}");
  EXPECT_EQ(r.seen[1], "11 a.b hidden {\"x\":true} sink-only");
  log.remove_sink(&r);
  log.event(12, "a", "after");
  EXPECT_EQ(r.seen.size(), 2u);
}

TEST(EventSink, FieldsAsTextAndNumbers) {
  EventLog log;
  log.open_memory();
  struct Check : EventSink {
    void on_event(const EventView& e) override {
      EXPECT_EQ(e.text("msg"), "tab\there \"q\" \x01");
      EXPECT_EQ(e.u64("n"), 42u);
      EXPECT_EQ(e.u64("missing", 7), 7u);
      EXPECT_EQ(e.u64("msg", 9), 9u);
      EXPECT_EQ(e.text("flag"), "false");
      EXPECT_EQ(e.raw("reg"), "\"0x1c\"");
      EXPECT_FALSE(e.has("nothing"));
      ++calls;
    }
    int calls = 0;
  } check;
  log.add_sink(&check);
  log.event(1, "p", "e").str("msg", "tab\there \"q\" \x01").u64("n", 42).boolean("flag", false).hex("reg", 0x1c);
  EXPECT_EQ(check.calls, 1);
}

TEST(TraceWriter, MicrosecondsArePicosecondsExactly) {
  std::string s;
  TraceWriter::append_us(s, 1913564530702ull);
  EXPECT_EQ(s, "1913564.530702");
  s.clear();
  TraceWriter::append_us(s, 0);
  EXPECT_EQ(s, "0.000000");
  s.clear();
  TraceWriter::append_us(s, 1000001);
  EXPECT_EQ(s, "1.000001");
}

TEST(TraceRules, MalformedRulesAreRefusedByName) {
  TraceRules r;
  EXPECT_THROW(r.add(TraceRule::instant("x", "{path", "t", "n")), std::invalid_argument);
  EXPECT_THROW(r.add(TraceRule::instant("x", "p", "t}", "n")), std::invalid_argument);
  EXPECT_THROW(r.add(TraceRule::instant("x", "p", "{}", "n")), std::invalid_argument);
  EXPECT_THROW(r.add(TraceRule::begin("x", "", "p", "t", "n")), std::invalid_argument);
  EXPECT_THROW(r.add(TraceRule::span("x", "a", "", "p", "t", "n")), std::invalid_argument);
  try {
    r.add(TraceRule::instant("thing", "{path", "t", "n"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "trace rule for event 'thing': trace template '{path': '{' without '}'");
  }
  EXPECT_EQ(r.rules_for("thing"), nullptr);
}

TEST(TraceWriter, RulesMakeSlicesStatesSpansAndInstants) {
  TraceRules rules;
  rules.add(TraceRule::begin("work_started", "item/{item}", "{path.head}", "{path.tail}", "{type}").in_category("work"));
  rules.add(TraceRule::end("work_finished", "item/{item}"));
  rules.add(TraceRule::state("vq_state", "{path}", "vq{vq}", "{state}"));
  rules.add(TraceRule::span("frame", "tx_ps", "rx_ps", "wires", "{path}", "frame {frame}"));
  rules.add(TraceRule::instant("doorbell", "{path}", "vq{vq}", "doorbell").only_when("ignored", "false"));
  EventLog log;
  log.open_memory();
  TraceWriter w(rules);
  log.add_sink(&w);
  log.event(1000000, "app.worker", "work_started").u64("item", 1).str("type", "START");
  log.event(3500000, "app.worker", "work_finished").u64("item", 1).str("type", "START");
  log.event(0, "ep0", "vq_state").u64("vq", 2).str("state", "CREATED");
  log.event(2000000, "ep0", "vq_state").u64("vq", 2).str("state", "STARTED");
  log.event(2000000, "ep0", "doorbell").u64("vq", 2).boolean("ignored", false);
  log.event(2000000, "ep0", "doorbell").u64("vq", 2).boolean("ignored", true);
  log.event(2100000, "wire0", "frame").u64("frame", 7).u64("tx_ps", 2100000).u64("rx_ps", 2200001);
  log.event(2500000, "host", "something").str("what", "else");
  w.finish(4000000);
  const auto recs = records(w);
  // Slices are B/E pairs; at one time an end comes before the next begin on the thread.
  const std::vector<std::string> want = {
      R"({"ph":"B","pid":2,"tid":2,"ts":0.000000,"name":"CREATED","cat":"vq_state","args":{"state":"CREATED","vq":2}})",
      R"({"ph":"B","pid":1,"tid":1,"ts":1.000000,"name":"START","cat":"work","args":{"item":1,"type":"START","end":{"item":1,"type":"START"}}})",
      R"({"ph":"E","pid":2,"tid":2,"ts":2.000000,"name":"CREATED","cat":"vq_state"})",
      R"({"ph":"B","pid":2,"tid":2,"ts":2.000000,"name":"STARTED","cat":"vq_state","args":{"state":"STARTED","vq":2,"end":{"open_at_end":true}}})",
      R"({"ph":"i","pid":2,"tid":2,"ts":2.000000,"s":"t","name":"doorbell","cat":"doorbell","args":{"ignored":false,"vq":2}})",
      R"({"ph":"B","pid":3,"tid":3,"ts":2.100000,"name":"frame 7","cat":"frame","args":{"frame":7,"rx_ps":2200001,"tx_ps":2100000}})",
      R"({"ph":"E","pid":3,"tid":3,"ts":2.200001,"name":"frame 7","cat":"frame"})",
      R"({"ph":"i","pid":4,"tid":4,"ts":2.500000,"s":"t","name":"something","cat":"something","args":{"what":"else"}})",
      R"({"ph":"E","pid":1,"tid":1,"ts":3.500000,"name":"START","cat":"work"})",
      R"({"ph":"E","pid":2,"tid":2,"ts":4.000000,"name":"STARTED","cat":"vq_state"})",
  };
  EXPECT_EQ(recs, want);
  EXPECT_TRUE(has(w, R"({"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"app"}})"));
  EXPECT_TRUE(has(w, R"({"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"worker"}})"));
  EXPECT_TRUE(has(w, R"({"ph":"M","pid":2,"tid":2,"name":"thread_name","args":{"name":"vq2"}})"));
  EXPECT_TRUE(has(w, R"({"ph":"M","pid":4,"tid":4,"name":"thread_name","args":{"name":"events"}})"));
}

TEST(TraceWriter, OverlappingSlicesTakeLanesAndNestedOnesShareOne) {
  TraceRules rules;
  rules.add(TraceRule::span("job", "from", "to", "p", "t", "{n}"));
  rules.add(TraceRule::span("inner", "from", "to", "p", "n", "{n}").nested());
  EventLog log;
  log.open_memory();
  TraceWriter w(rules);
  log.add_sink(&w);
  log.event(0, "x", "job").u64("from", 0).u64("to", 10).u64("n", 1);
  log.event(0, "x", "job").u64("from", 5).u64("to", 15).u64("n", 2);   // overlaps 1: lane 2
  log.event(0, "x", "job").u64("from", 10).u64("to", 20).u64("n", 3);  // 1 is over: lane 1
  log.event(0, "x", "inner").u64("from", 2).u64("to", 3).u64("n", 4);
  log.event(0, "x", "inner").u64("from", 0).u64("to", 10).u64("n", 5);  // encloses 4, same lane
  w.finish(20);
  EXPECT_TRUE(has(w, R"x({"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"t (2)"}})x"));
  const auto recs = records(w);
  auto names = [](const std::vector<std::string>& r) {
    std::string out;
    for (const auto& line : r) out += line.substr(0, line.find(",\"cat\"")) + "\n";
    return out;
  };
  // 1 and 3 on lane 1 (tid 1), 2 on lane 2 (tid 2); 5 encloses 4 on the nested track (tid 3),
  // begun first and ended last.
  EXPECT_EQ(names(recs),
            R"({"ph":"B","pid":1,"tid":3,"ts":0.000000,"name":"5")" "\n"
            R"({"ph":"B","pid":1,"tid":1,"ts":0.000000,"name":"1")" "\n"
            R"({"ph":"B","pid":1,"tid":3,"ts":0.000002,"name":"4")" "\n"
            R"({"ph":"E","pid":1,"tid":3,"ts":0.000003,"name":"4")" "\n"
            R"({"ph":"B","pid":1,"tid":2,"ts":0.000005,"name":"2")" "\n"
            R"({"ph":"E","pid":1,"tid":1,"ts":0.000010,"name":"1")" "\n"
            R"({"ph":"E","pid":1,"tid":3,"ts":0.000010,"name":"5")" "\n"
            R"({"ph":"B","pid":1,"tid":1,"ts":0.000010,"name":"3")" "\n"
            R"({"ph":"E","pid":1,"tid":2,"ts":0.000015,"name":"2")" "\n"
            R"({"ph":"E","pid":1,"tid":1,"ts":0.000020,"name":"3")" "\n");
}

TEST(TraceWriter, EqualNestedSlicesOpenOuterFirstAndCloseInnerFirst) {
  TraceRules rules;
  rules.add(TraceRule::span("s", "from", "to", "p", "t", "{n}").nested());
  rules.add(TraceRule::span("z", "from", "to", "p", "t", "{n}").nested());
  EventLog log;
  log.open_memory();
  TraceWriter w(rules);
  log.add_sink(&w);
  log.event(0, "x", "s").u64("from", 0).u64("to", 10).u64("n", 1);  // closed first: the inner one
  log.event(0, "x", "s").u64("from", 0).u64("to", 10).u64("n", 2);
  log.event(0, "x", "z").u64("from", 10).u64("to", 10).u64("n", 3);  // no length: after the ends
  w.finish(20);
  std::string order;
  for (const auto& r : records(w)) order += r.substr(7, 1) + (r.find("\"name\"") != std::string::npos ? r.substr(r.find("\"name\"") + 8, 1) : "") + " ";
  EXPECT_EQ(order, "B2 B1 E1 E2 X3 ");
}

TEST(TraceWriter, RequestsPairWithTheCompletionThatEndsThem) {
  TraceRules rules;
  EventLog log;
  log.open_memory();
  TraceWriter w(rules);
  log.add_sink(&w);
  auto hop = [&](uint64_t t, const char* link, const char* dir, const char* type, uint64_t serial, uint64_t tx,
                 uint64_t rx) -> Event {
    Event e = log.event(t, link, "tlp");
    e.str("dir", dir).str("type", type).u64("tlp", serial).u64("tx_ps", tx).u64("rx_ps", rx).bdf("requester", 0x0200)
        .u64("tag", 5);
    return e;
  };
  // An endpoint's 128-byte read split into two completions of 64 bytes (RCB 64).
  hop(100, "link_dsp0", "up", "MRd", 1, 100, 200).hex("addr", 0x1000).u64("len", 32);
  hop(300, "link_host", "up", "MRd", 1, 300, 400).hex("addr", 0x1000).u64("len", 32);
  hop(1000, "link_host", "down", "CplD", 2, 1000, 1100).u64("byte_count", 128).hex("lower_addr", 0).u64("len", 16)
      .str("status", "SC");
  hop(1200, "link_dsp0", "down", "CplD", 2, 1200, 1300).u64("byte_count", 128).hex("lower_addr", 0).u64("len", 16)
      .str("status", "SC");
  hop(1400, "link_host", "down", "CplD", 3, 1400, 1500).u64("byte_count", 64).hex("lower_addr", 0x40).u64("len", 16)
      .str("status", "SC");
  hop(1600, "link_dsp0", "down", "CplD", 3, 1600, 1750).u64("byte_count", 64).hex("lower_addr", 0x40).u64("len", 16)
      .str("status", "SC");
  // A request that nothing completes: closed at the end of the run.
  log.event(2000, "link_dsp0", "tlp").str("dir", "up").str("type", "MRd").u64("tlp", 4).u64("tx_ps", 2000)
      .u64("rx_ps", 2100).bdf("requester", 0x0200).u64("tag", 6).hex("addr", 0).u64("len", 1);
  w.finish(5000);
  const std::string text = w.text();
  // The round trip: first hop's tx (100) to the last completion's arrival (1750).
  EXPECT_TRUE(has(w, R"({"ph":"B","pid":2,"tid":5,"ts":0.000100,"name":"MRd","cat":"tlp","args":{"addr":"0x1000","len":32,"requester":"02:00.0","tag":5,"tlp":1,"end":{"completion":"CplD","status":"SC","latency_ps":1650}}})"))
      << text;
  EXPECT_TRUE(has(w, R"({"ph":"E","pid":2,"tid":5,"ts":0.001750,"name":"MRd","cat":"tlp"})"));
  EXPECT_TRUE(has(w, R"("ts":0.002000,"name":"MRd","cat":"tlp","args":{"addr":"0x0","len":1,"requester":"02:00.0","tag":6,"tlp":4,"end":{"completion":"none"}})"));
  EXPECT_TRUE(has(w, R"({"ph":"E","pid":2,"tid":5,"ts":0.005000,"name":"MRd","cat":"tlp"})"));
  // The request flow: from the first hop (link_dsp0 up, tid 1) to the last completion's last hop.
  EXPECT_TRUE(has(w, R"({"ph":"s","pid":1,"tid":1,"ts":0.000100,"id":)"));
  EXPECT_TRUE(has(w, R"(,"name":"request","cat":"tlp"})"));
  const size_t f = text.find(R"("ph":"f","pid":1,"tid":4,"ts":0.001600,"bp":"e")");
  EXPECT_NE(f, std::string::npos) << text;
  EXPECT_NE(text.find(R"("name":"request")", f), std::string::npos);
  // No flow joins the hops of one TLP: the request's is the only one (its start and finish).
  size_t flows = 0;
  for (size_t p = 0; (p = text.find(R"("ph":")", p)) != std::string::npos; ++p)
    if (text.compare(p + 6, 1, "s") == 0 || text.compare(p + 6, 1, "f") == 0) ++flows;
  EXPECT_EQ(flows, 2u) << text;
}

TEST(TraceWriter, SameEventsSameBytes) {
  auto run = [] {
    TraceRules rules;
    EventLog log;
    log.open_memory();
    TraceWriter w(rules);
    log.add_sink(&w);
    for (uint64_t i = 0; i < 50; ++i)
      log.event(i * 7, i % 2 ? "a.x" : "b.y", "log").str("msg", "line " + std::to_string(i)).str("level", "info");
    w.finish(1000);
    return w.text();
  };
  EXPECT_EQ(run(), run());
}

TEST(TraceWriter, HostTasksNestTheirWaits) {
  TraceRules rules;
  TraceWriter w(rules);
  w.task_spawn(0, 1, "scenario");
  w.task_wait(0, 1, "sleep(10)");
  w.task_wait(10, 1, "config_read 00:00.0+0x0");
  w.task_end(15, 1, "returned");
  w.task_spawn(5, 2, "irq \"a\"");
  w.task_wait(5, 2, "event");
  w.task_wait(7, 3, "never spawned");  // not a task: nothing
  w.finish(40);
  w.task_wait(50, 2, "after the end");  // nothing either
  try {
    TraceWriter other(rules);
    other.task_spawn(0, 1, "a");
    other.task_spawn(0, 3, "b");
    FAIL() << "task 3 was spawned after task 1";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "trace: task number 3 is not one of 1..2 (tasks are numbered in spawn order)");
  }
  const std::vector<std::string> want = {
      R"x({"ph":"B","pid":1,"tid":1,"ts":0.000000,"name":"scenario","cat":"task","args":{"name":"scenario","task":1,"end":{"name":"scenario","outcome":"returned","task":1}}})x",
      R"x({"ph":"B","pid":1,"tid":1,"ts":0.000000,"name":"sleep(10)","cat":"task","args":{"name":"scenario","task":1,"what":"sleep(10)"}})x",
      R"x({"ph":"B","pid":1,"tid":2,"ts":0.000005,"name":"irq \"a\"","cat":"task","args":{"name":"irq \"a\"","task":2,"end":{"open_at_end":true}}})x",
      R"x({"ph":"B","pid":1,"tid":2,"ts":0.000005,"name":"event","cat":"task","args":{"name":"irq \"a\"","task":2,"what":"event","end":{"open_at_end":true}}})x",
      R"x({"ph":"E","pid":1,"tid":1,"ts":0.000010,"name":"sleep(10)","cat":"task"})x",
      R"x({"ph":"B","pid":1,"tid":1,"ts":0.000010,"name":"config_read 00:00.0+0x0","cat":"task","args":{"name":"scenario","task":1,"what":"config_read 00:00.0+0x0","end":{"name":"scenario","outcome":"returned","task":1}}})x",
      R"x({"ph":"E","pid":1,"tid":1,"ts":0.000015,"name":"config_read 00:00.0+0x0","cat":"task"})x",
      R"x({"ph":"E","pid":1,"tid":1,"ts":0.000015,"name":"scenario","cat":"task"})x",
      R"x({"ph":"E","pid":1,"tid":2,"ts":0.000040,"name":"event","cat":"task"})x",
      R"x({"ph":"E","pid":1,"tid":2,"ts":0.000040,"name":"irq \"a\"","cat":"task"})x",
  };
  EXPECT_EQ(records(w), want) << w.text();
  EXPECT_NE(w.text().find(R"x({"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"irq \"a\" #2"}})x"),
            std::string::npos)
      << w.text();
}
