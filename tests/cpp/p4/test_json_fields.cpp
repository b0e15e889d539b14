// The typed JSON field accessors every section loader reads through (json_fields.h): each
// refusal carries its code and names the object, the field and the value it refused.
#include <functional>

#include <gtest/gtest.h>

#include "json_fields.h"

namespace dpusim::p4 {
namespace {

LoadError refusal_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const Refusal& r) {
    return r.error;
  }
  ADD_FAILURE() << "read without a refusal";
  return {};
}

TEST(JsonFields, IntegerNamesTheObjectTheFieldAndTheRange) {
  const Json obj = Json::parse(R"({"size": 70000, "half": 1.5, "text": "7"})");
  EXPECT_EQ(jf::integer(Json::parse(R"({"size": 12})"), "size", "counter array 'c'", 0, 65535), 12);
  LoadError e = refusal_of([&] { jf::integer(obj, "size", "counter array 'c'", 0, 65535); });
  EXPECT_EQ(e.code, LoadCode::kBadValue);
  EXPECT_EQ(e.message, "counter array 'c' 'size' 70000 is out of range [0, 65535]");
  e = refusal_of([&] { jf::integer(obj, "half", "counter array 'c'", 0, 65535); });
  EXPECT_EQ(e.code, LoadCode::kBadWidth);
  EXPECT_EQ(e.message, "counter array 'c' 'half' is the floating-point number 1.5, not an integer");
  e = refusal_of([&] { jf::integer(obj, "text", "counter array 'c'", 0, 65535); });
  EXPECT_EQ(e.code, LoadCode::kSchema);
  EXPECT_EQ(e.message, "counter array 'c' 'text' is a JSON string, not an integer");
}

TEST(JsonFields, MemberStringAndArrayRefuseByName) {
  const Json obj = Json::parse(R"({"algo": 5, "input": [1, 2, 3]})");
  LoadError e = refusal_of([&] { jf::member(obj, "id", "calculation 'h'"); });
  EXPECT_EQ(e.code, LoadCode::kSchema);
  EXPECT_EQ(e.message, "calculation 'h' has no 'id'");
  e = refusal_of([&] { jf::string(obj, "algo", "calculation 'h'"); });
  EXPECT_EQ(e.code, LoadCode::kSchema);
  EXPECT_EQ(e.message, "calculation 'h' 'algo' is a JSON number, not a string");
  e = refusal_of([&] { jf::array(obj, "input", 2, "calculation 'h'"); });
  EXPECT_EQ(e.code, LoadCode::kArraySize);
  EXPECT_EQ(e.message, "calculation 'h' 'input' has 3 entries, more than the limit of 2");
  // Missing or null reads as empty where the field is optional, and is refused where not.
  EXPECT_TRUE(jf::array(obj, "output", 2, "calculation 'h'").empty());
  e = refusal_of([&] { jf::array(obj, "output", 2, "calculation 'h'", false); });
  EXPECT_EQ(e.message, "calculation 'h' has no 'output'");
  EXPECT_TRUE(jf::boolean(obj, "verify", "checksum 'c'", true));
}

TEST(JsonFields, IdentifyRefusesARepeatedIdOrName) {
  std::set<std::int64_t> ids;
  std::map<std::string, int> names;
  jf::Identity first = jf::identify(Json::parse(R"({"name": "a", "id": 1})"), "table", &ids, &names, 0);
  EXPECT_EQ(first.where, "table 'a'");
  EXPECT_EQ(first.id, 1);
  LoadError e = refusal_of([&] { jf::identify(Json::parse(R"({"name": "b", "id": 1})"), "table", &ids, &names, 1); });
  EXPECT_EQ(e.code, LoadCode::kDuplicate);
  EXPECT_EQ(e.message, "table 'b': duplicate table id 1");
  e = refusal_of([&] { jf::identify(Json::parse(R"({"name": "a", "id": 2})"), "table", &ids, &names, 1); });
  EXPECT_EQ(e.message, "duplicate table name 'a'");
  e = refusal_of([&] { jf::check_name(std::string("x\x01", 2), "header"); });
  EXPECT_EQ(e.code, LoadCode::kBadName);
  EXPECT_EQ(e.message, "header: name holds control character 0x01");
}

TEST(JsonFields, HexstrFitsItsFieldInTwosComplement) {
  EXPECT_EQ(jf::hexstr_fitting(Json("-0x1"), 8, "argument 'p'").w[0], 0xffu);
  EXPECT_EQ(jf::hexstr_fitting(Json("0xff"), 8, "argument 'p'").w[0], 0xffu);
  LoadError e = refusal_of([&] { jf::hexstr_fitting(Json("0x1ff"), 8, "action 'a' argument 'p'"); });
  EXPECT_EQ(e.code, LoadCode::kLiteralWidth);
  EXPECT_EQ(e.message, "action 'a' argument 'p': literal 0x1ff is wider than its 8-bit field");
  // bmv2 reads a hexstr with or without its 0x.
  EXPECT_EQ(jf::hexstr(Json("12"), "action 'a'").w[0], 0x12u);
  e = refusal_of([&] { jf::hexstr(Json("0xzz"), "action 'a'"); });
  EXPECT_EQ(e.code, LoadCode::kBadValue);
  EXPECT_EQ(e.message, "action 'a': '0xzz' is not a hexstr");
  EXPECT_EQ(jf::hexbytes(Json("0x0a0b"), 3, "key"), (std::vector<std::uint8_t>{0x00, 0x0a, 0x0b}));
}

}  // namespace
}  // namespace dpusim::p4
