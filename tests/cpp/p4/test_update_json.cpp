// The updates document (`p4 run --updates`, update.h): each record's fields as read, and each
// malformed record refused with its index and the field at fault.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dpusim/p4/update.h"

namespace dpusim::p4 {
namespace {

TEST(UpdatesDocument, ARecordReadsEveryField) {
  std::vector<TableUpdate> u;
  std::string error;
  ASSERT_TRUE(parse_updates(R"([{"type": "MODIFY", "table": "t", "action": "a", "priority": 7,
    "match": [{"field": "h.x", "value": "0x0a", "prefix_len": 8}, {"field": "h.y", "low": "1", "high": "9"},
              {"field": "h.z", "value": "3", "mask": "0xff"}],
    "params": {"port": "2"}}])", &u, &error)) << error;
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].type, UpdateType::kModify);
  EXPECT_EQ(u[0].table, "t");
  EXPECT_EQ(u[0].action, "a");
  EXPECT_EQ(u[0].priority, 7);
  ASSERT_EQ(u[0].match.size(), 3u);
  EXPECT_EQ(u[0].match[0].prefix_len, 8);
  EXPECT_EQ(u[0].match[1].value, "1");
  EXPECT_EQ(u[0].match[1].high, std::optional<std::string>("9"));
  EXPECT_EQ(u[0].match[2].mask, std::optional<std::string>("0xff"));
  EXPECT_EQ(u[0].params, (std::vector<std::pair<std::string, std::string>>{{"port", "2"}}));
}

TEST(UpdatesDocument, EachMalformedRecordIsRefusedByIndexAndField) {
  const std::pair<const char*, const char*> cases[] = {
      {"{}", "updates document is not a JSON list of records"},
      {"[1", "updates document is not valid JSON"},
      {"[3]", "update 0 is not a JSON object"},
      {R"([{"table": "t"}])", "update 0 has no 'type'"},
      {R"([{"type": 1}])", "update 0 'type' is not a string"},
      {R"([{"type": "INSERT"}])", "update 0 has no 'table'"},
      {R"([{"type": "UPSERT", "table": "t"}])", "update 0 has type 'UPSERT', not INSERT, MODIFY, DELETE or DEFAULT"},
      {R"([{"type": "INSERT", "table": "t"}])", "update 0 has no 'action'"},
      {R"([{"type": "DELETE", "table": "t"}, {"type": "INSERT", "table": "t", "action": "a", "priority": "1"}])",
       "update 1 'priority' is not an integer"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "priority": 18446744073709551615}])",
       "update 0 'priority' is out of range"},
      {R"([{"type": "INSERT", "action_profile": "p", "member": "0x100000000"}])",
       "update 0 'member' is not a string holding a 32-bit number"},
      {R"([{"type": "INSERT", "action_profile": "p", "group": "1", "members": ["1", 2]}])",
       "update 0 member 1 is not a string holding a 32-bit number"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": {}}])", "update 0 'match' is not a list"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": [{"value": "1"}]}])", "update 0 match 0 has no 'field' name"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": [{"field": "f", "value": 1}]}])",
       "update 0 match 0 has no 'value' string (write numbers as \"0x..\" or decimal strings)"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": [{"field": "f", "low": "1"}]}])",
       "update 0 match 0 is a range without 'low' and 'high' strings"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": [{"field": "f", "value": "1", "prefix_len": -1}]}])",
       "update 0 match 0 'prefix_len' is not an integer in [0, 512]"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "match": [{"field": "f", "value": "1", "mask": 255}]}])",
       "update 0 match 0 'mask' is not a string"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "params": []}])", "update 0 'params' is not an object"},
      {R"([{"type": "INSERT", "table": "t", "action": "a", "params": {"p": 1}}])",
       "update 0 parameter 'p' is not a string (write numbers as \"0x..\" or decimal strings)"},
  };
  for (const auto& [doc, want] : cases) {
    std::vector<TableUpdate> u;
    std::string error;
    EXPECT_FALSE(parse_updates(doc, &u, &error)) << doc;
    EXPECT_EQ(error, want) << doc;
  }
}

}  // namespace
}  // namespace dpusim::p4
