// The weighing pass that runs before any JSON parsing.
#include <gtest/gtest.h>

#include "dpusim/p4/limits.h"
#include "json_cost.h"

namespace dpusim::p4::test {
namespace {

std::uint64_t weigh(const std::string& text) {
  JsonCost cost;
  LoadError error;
  EXPECT_TRUE(weigh_json(text, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &error)) << error.message;
  return cost.cost;
}

TEST(JsonCost, ObjectsWeighEightArraysTwoEverythingElseOne) {
  EXPECT_EQ(weigh("{}"), 8u);
  EXPECT_EQ(weigh("[]"), 2u);
  EXPECT_EQ(weigh("7"), 1u);
  EXPECT_EQ(weigh("\"s\""), 1u);
  // An object with one key (1) holding an array (2) of a number, a string with an escaped
  // quote and a brace in it, true and null (1 each).
  EXPECT_EQ(weigh(R"({"k": [12345, "a\"}{", true, null]})"), 8u + 1 + 2 + 4);
  EXPECT_EQ(weigh(" { \"a\" : { } , \"b\" : [ [ ] ] } "), 8u + 1 + 8 + 1 + 2 + 2);
}

TEST(JsonCost, RefusesAtTheLimitPlusOne) {
  // n empty objects in an array weigh 2 + 8n.
  const std::uint64_t n = (P4_JSON_MAX_COST - 2) / 8;
  std::string fits = "[";
  for (std::uint64_t i = 0; i < n; ++i) fits += i ? ",{}" : "{}";
  EXPECT_EQ(weigh(fits + "]"), 2 + 8 * n);
  std::string over = fits + ",{}]";
  JsonCost cost;
  LoadError error;
  EXPECT_FALSE(weigh_json(over, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &error));
  EXPECT_EQ(error.code, LoadCode::kJsonCost);
  EXPECT_NE(error.message.find("weighs more than 524288"), std::string::npos);
}

TEST(JsonCost, RefusesNestingPastTheDepthLimit) {
  JsonCost cost;
  LoadError error;
  std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(weigh_json(ok, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &error));
  EXPECT_EQ(cost.max_depth, 256);
  std::string deep = std::string(257, '{') ;
  EXPECT_FALSE(weigh_json(deep, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &error));
  EXPECT_EQ(error.code, LoadCode::kJsonDepth);
  EXPECT_NE(error.message.find("byte offset 256"), std::string::npos);
}

TEST(JsonCost, MalformedTextIsWeighedWithoutFault) {
  JsonCost cost;
  LoadError error;
  for (const char* text : {"\"unterminated", "}}}]]]", "\\", "{\"a\":", "\x01\x02\xff"})
    EXPECT_TRUE(weigh_json(text, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &error)) << text;
}

}  // namespace
}  // namespace dpusim::p4::test
