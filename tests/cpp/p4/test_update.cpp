// The update path held to P4Runtime's rules: every refusal with its code, and the entry
// semantics that follow (masks, priorities, const entries, table sizes).
#include <nlohmann/json.hpp>

#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

using Json = nlohmann::json;

TableUpdate make(UpdateType type, const std::string& table, std::vector<MatchField> match, const std::string& action = "",
                 std::vector<std::pair<std::string, std::string>> params = {}, std::optional<std::int64_t> priority = std::nullopt) {
  TableUpdate u;
  u.type = type;
  u.table = table;
  u.match = std::move(match);
  u.action = action;
  u.params = std::move(params);
  u.priority = priority;
  return u;
}

MatchField exact(const std::string& f, const std::string& v) { return {f, v, std::nullopt, std::nullopt, std::nullopt}; }
MatchField lpm(const std::string& f, const std::string& v, int len) { return {f, v, len, std::nullopt, std::nullopt}; }
MatchField ternary(const std::string& f, const std::string& v, const std::string& m) { return {f, v, std::nullopt, m, std::nullopt}; }

const auto kInsert = UpdateType::kInsert;
const MatchField kOp = exact("hdr.ops.op", "1");

void refused(Engine& e, const TableUpdate& u, UpdateCode code, const std::string& words) {
  UpdateError err;
  ASSERT_FALSE(e.update(u, &err)) << "accepted";
  EXPECT_EQ(update_code_name(err.code), std::string(update_code_name(code))) << err.message;
  EXPECT_NE(err.message.find(words), std::string::npos) << err.message;
}

void accepted(Engine& e, const TableUpdate& u) {
  UpdateError err;
  EXPECT_TRUE(e.update(u, &err)) << update_code_name(err.code) << ": " << err.message;
}

class Updates : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> e = load_data("features.json");
};

TEST_F(Updates, NamesAreCheckedFirst) {
  refused(*e, make(kInsert, "ingress.nope", {kOp}, "ingress.op_add"), UpdateCode::kUnknownTable, "no table named 'ingress.nope'");
  refused(*e, make(kInsert, "ingress.ops\ntbl", {kOp}, "ingress.op_add"), UpdateCode::kBadName, "not printable ASCII");
  refused(*e, make(kInsert, "ingress.ops_tbl", {kOp}, "ingress.op_nope"), UpdateCode::kUnknownAction, "no action named 'ingress.op_nope'");
  refused(*e, make(kInsert, "ingress.ops_tbl", {kOp}, "ingress.mark", {{"tos", "1"}}), UpdateCode::kActionNotInTable,
          "action 'ingress.mark' is not one of table 'ingress.ops_tbl''s actions");
}

TEST_F(Updates, EveryKeyInKeyOrder) {
  refused(*e, make(kInsert, "ingress.ops_tbl", {}, "ingress.op_add"), UpdateCode::kKeyCount, "has 1 key fields (hdr.ops.op); the update lists 0");
  refused(*e, make(kInsert, "ingress.acl", {ternary("hdr.ipv4.protocol", "6", "255"), ternary("hdr.ipv4.srcAddr", "0", "0")},
                   "ingress.drop", {}, 1),
          UpdateCode::kKeyCount, "match field 0 is 'hdr.ipv4.protocol', but key 0 is 'hdr.ipv4.srcAddr'");
}

TEST_F(Updates, ValuesMasksAndPrefixesAreHeldToTheField) {
  refused(*e, make(kInsert, "ingress.ops_tbl", {exact("hdr.ops.op", "0x100")}, "ingress.op_add"), UpdateCode::kValueWidth,
          "value 0x100 is wider than the 8-bit field");
  refused(*e, make(kInsert, "ingress.ops_tbl", {exact("hdr.ops.op", "0xzz")}, "ingress.op_add"), UpdateCode::kBadRecord,
          "is not a hex (0x..) or decimal number");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", {lpm("hdr.ipv4.dstAddr", "0x0a000000", 33)}, "ingress.drop"),
          UpdateCode::kPrefixLength, "prefix length 33 is outside [0, 32]");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", {lpm("hdr.ipv4.dstAddr", "0x0a010203", 16)}, "ingress.drop"),
          UpdateCode::kPrefixBits, "value 0xa010203 has bits set past its prefix");
  refused(*e, make(kInsert, "ingress.acl", {ternary("hdr.ipv4.srcAddr", "0x0a0000ff", "0xff000000"), ternary("hdr.ipv4.protocol", "0", "0")},
                   "ingress.drop", {}, 1),
          UpdateCode::kMaskBits, "value 0xa0000ff has bits set outside its mask 0xff000000");
  refused(*e, make(kInsert, "ingress.acl", {ternary("hdr.ipv4.srcAddr", "0", "0x1ffffffff"), ternary("hdr.ipv4.protocol", "0", "0")},
                   "ingress.drop", {}, 1),
          UpdateCode::kValueWidth, "mask 0x1ffffffff is wider than the 32-bit field");
}

TEST_F(Updates, EachMatchKindTakesItsOwnForm) {
  refused(*e, make(kInsert, "ingress.ops_tbl", {lpm("hdr.ops.op", "1", 8)}, "ingress.op_add"), UpdateCode::kMatchKind,
          "is not an LPM field and takes no prefix_len");
  refused(*e, make(kInsert, "ingress.ops_tbl", {ternary("hdr.ops.op", "1", "0xff")}, "ingress.op_add"), UpdateCode::kMatchKind,
          "is an exact field and takes no mask");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", {exact("hdr.ipv4.dstAddr", "1")}, "ingress.drop"), UpdateCode::kMatchKind,
          "is an LPM field and needs a prefix_len");
  refused(*e, make(kInsert, "ingress.acl", {exact("hdr.ipv4.srcAddr", "1"), ternary("hdr.ipv4.protocol", "0", "0")}, "ingress.drop", {}, 1),
          UpdateCode::kMatchKind, "is a ternary field and needs a mask");
}

TEST_F(Updates, PrioritiesOnlyWhereTheTableRanksByThem) {
  refused(*e, make(kInsert, "ingress.ops_tbl", {kOp}, "ingress.op_add", {}, 5), UpdateCode::kPriority,
          "has no ternary or range key: an entry gives no priority (got 5)");
  const std::vector<MatchField> any = {ternary("hdr.ipv4.srcAddr", "0", "0"), ternary("hdr.ipv4.protocol", "0", "0")};
  refused(*e, make(kInsert, "ingress.acl", any, "ingress.drop"), UpdateCode::kPriority, "an entry needs a priority in [1, 2147483647]");
  refused(*e, make(kInsert, "ingress.acl", any, "ingress.drop", {}, 0), UpdateCode::kPriority, "not 0");
  accepted(*e, make(kInsert, "ingress.acl", any, "ingress.drop", {}, 1));
  // The same match at another priority is another entry; at the same one it is a duplicate.
  accepted(*e, make(kInsert, "ingress.acl", any, "ingress.drop", {}, 2));
  refused(*e, make(kInsert, "ingress.acl", any, "ingress.drop", {}, 2), UpdateCode::kDuplicateEntry, "at priority 2");
}

TEST_F(Updates, InsertModifyDeleteFollowTheEntrysExistence) {
  accepted(*e, make(kInsert, "ingress.ops_tbl", {kOp}, "ingress.op_add"));
  refused(*e, make(kInsert, "ingress.ops_tbl", {exact("hdr.ops.op", "0x01")}, "ingress.op_sub"), UpdateCode::kDuplicateEntry,
          "already has an entry for key 0x01");
  accepted(*e, make(UpdateType::kModify, "ingress.ops_tbl", {kOp}, "ingress.op_sub"));
  refused(*e, make(UpdateType::kModify, "ingress.ops_tbl", {exact("hdr.ops.op", "2")}, "ingress.op_sub"), UpdateCode::kNoSuchEntry,
          "no entry for key 0x02 to modify");
  // A delete is checked like an insert before it is looked for.
  refused(*e, make(UpdateType::kDelete, "ingress.ops_tbl", {exact("hdr.ops.op", "0x1ff")}), UpdateCode::kValueWidth, "wider than");
  accepted(*e, make(UpdateType::kDelete, "ingress.ops_tbl", {kOp}));
  refused(*e, make(UpdateType::kDelete, "ingress.ops_tbl", {kOp}), UpdateCode::kNoSuchEntry, "to delete");
}

TEST_F(Updates, ParametersAreCheckedByNameAndWidth) {
  const std::vector<MatchField> dst = {lpm("hdr.ipv4.dstAddr", "0", 0)};
  refused(*e, make(kInsert, "ingress.ipv4_lpm", dst, "ingress.set_port"), UpdateCode::kParams, "parameter 'port' is missing");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", dst, "ingress.set_port", {{"port", "1"}, {"speed", "2"}}), UpdateCode::kParams,
          "has no parameter 'speed'");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", dst, "ingress.set_port", {{"port", "1"}, {"port", "2"}}), UpdateCode::kParams,
          "is given twice");
  refused(*e, make(kInsert, "ingress.ipv4_lpm", dst, "ingress.set_port", {{"port", "512"}}), UpdateCode::kParams,
          "value 0x200 is wider than its 9 bits");
}

TEST_F(Updates, DefaultsAndKeylessTables) {
  refused(*e, make(kInsert, "tbl_bounce", {}, "bounce"), UpdateCode::kKeylessTable, "has no key: only its default action can be set");
  accepted(*e, make(UpdateType::kDefault, "ingress.ops_tbl", {}, "ingress.op_add"));
  refused(*e, make(UpdateType::kDefault, "ingress.ops_tbl", {kOp}, "ingress.op_add"), UpdateCode::kBadRecord, "takes no match fields");
  // Its default now runs op_add on a miss: 2 + 3.
  std::vector<std::uint8_t> f = from_hex("0200000000020200000000010000" "88b5" "07" "00000002" "00000003" "00000000" "00");
  f.erase(f.begin() + 12, f.begin() + 14);  // the EtherType above is 88b5
  Verdict v = e->process(P4_PORT_HOST, f.data(), f.size());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(out(v)[26], 5);
}

TEST(UpdateRules, AConstDefaultActionCannotChange) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["pipelines"][0]["tables"][0]["default_entry"]["action_const"] = true;
  LoadError le;
  auto e = Engine::load(doc.dump(), LoadOptions{}, &le);
  ASSERT_NE(e, nullptr) << le.message;
  refused(*e, make(UpdateType::kDefault, "ingress.fwd", {}, "ingress.forward", {{"port", "1"}}), UpdateCode::kConstDefault,
          "default action is const ('ingress.drop')");
}

TEST(UpdateRules, ATableIsFullAtItsMaxSize) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["pipelines"][0]["tables"][0]["max_size"] = 2;
  LoadError le;
  auto e = Engine::load(doc.dump(), LoadOptions{}, &le);
  ASSERT_NE(e, nullptr);
  for (const char* mac : {"1", "2"})
    accepted(*e, make(kInsert, "ingress.fwd", {exact("hdr.ethernet.dstAddr", mac)}, "ingress.drop"));
  refused(*e, make(kInsert, "ingress.fwd", {exact("hdr.ethernet.dstAddr", "3")}, "ingress.drop"), UpdateCode::kTableFull,
          "table ingress.fwd full (max_size 2)");
  accepted(*e, make(UpdateType::kDelete, "ingress.fwd", {exact("hdr.ethernet.dstAddr", "1")}));
  accepted(*e, make(kInsert, "ingress.fwd", {exact("hdr.ethernet.dstAddr", "3")}, "ingress.drop"));
}

TEST(UpdateRules, ConstEntriesAreInstalledAndImmutable) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["pipelines"][0]["tables"][0]["entries"] = Json::array(
      {{{"match_key", {{{"match_type", "exact"}, {"key", "0x0a0000000001"}}}}, {"action_entry", {{"action_id", 1}, {"action_data", {"0x1"}}}}, {"priority", 1}}});
  LoadError le;
  auto e = Engine::load(doc.dump(), LoadOptions{}, &le);
  ASSERT_NE(e, nullptr) << le.message;
  std::vector<std::uint8_t> f = from_hex("0a0000000001" "020000000001" "0800" "45");
  Verdict v = e->process(P4_PORT_HOST, f.data(), f.size());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, 1u);
  refused(*e, make(kInsert, "ingress.fwd", {exact("hdr.ethernet.dstAddr", "2")}, "ingress.drop"), UpdateCode::kImmutableTable,
          "has const entries");
}

TEST(UpdateRules, TheLpmKeyNeedNotComeFirst) {
  // {dst: lpm; protocol: exact}: the prefix ranks entries, the exact field separates them.
  Json doc = Json::parse(read_file(data_path("features.json")));
  Json& t = doc["pipelines"][0]["tables"][2];
  t["key"].push_back({{"match_type", "exact"}, {"name", "hdr.ipv4.protocol"}, {"target", {"ipv4", "protocol"}}, {"mask", nullptr}});
  LoadError le;
  auto e = Engine::load(doc.dump(), LoadOptions{}, &le);
  ASSERT_NE(e, nullptr) << le.message;
  auto route = [&](const char* dst, int len, const char* proto, const char* port) {
    accepted(*e, make(kInsert, "ingress.ipv4_lpm", {lpm("hdr.ipv4.dstAddr", dst, len), exact("hdr.ipv4.protocol", proto)},
                      "ingress.set_port", {{"port", port}}));
  };
  route("0x0a000000", 8, "6", "1");
  route("0x0a010000", 16, "6", "0");
  route("0x0a010000", 16, "17", "1");
  auto port_of = [&](const char* dst_hex, int proto) {
    std::vector<std::uint8_t> f = from_hex(std::string("0200000000020200000000010800") + "4500001400000000400" +
                                           (proto == 6 ? "6" : "0") + "0000" + "0a000001" + dst_hex);
    if (proto == 17) f[23] = 17;
    Verdict v = e->process(P4_PORT_HOST, f.data(), f.size());
    return v.dropped ? -1 : static_cast<int>(v.port);
  };
  EXPECT_EQ(port_of("0a010203", 6), 0);   // /16 beats /8
  EXPECT_EQ(port_of("0a020203", 6), 1);   // only /8
  EXPECT_EQ(port_of("0a010203", 17), 1);  // the UDP /16
  EXPECT_EQ(port_of("0a020203", 17), -1); // no UDP /8: the default drops
}

TEST(UpdateRules, EqualPrioritiesGoToTheLowestEntryHandleAsInBmv2) {
  auto e = load_data("features.json");
  const std::vector<MatchField> wide = {ternary("hdr.ipv4.srcAddr", "0xc0a80000", "0xffff0000"), ternary("hdr.ipv4.protocol", "0", "0")};
  const std::vector<MatchField> narrow = {ternary("hdr.ipv4.srcAddr", "0xc0a80100", "0xffffff00"), ternary("hdr.ipv4.protocol", "0", "0")};
  const std::vector<MatchField> other = {ternary("hdr.ipv4.srcAddr", "0xc0000000", "0xff000000"), ternary("hdr.ipv4.protocol", "0", "0")};
  accepted(*e, make(kInsert, "ingress.ipv4_lpm", {lpm("hdr.ipv4.dstAddr", "0", 0)}, "ingress.set_port", {{"port", "1"}}));
  accepted(*e, make(kInsert, "ingress.acl", other, "ingress.mark", {{"tos", "3"}}, 7));
  accepted(*e, make(kInsert, "ingress.acl", wide, "ingress.mark", {{"tos", "1"}}, 7));
  accepted(*e, make(kInsert, "ingress.acl", narrow, "ingress.mark", {{"tos", "2"}}, 7));
  auto tos = [&]() {
    std::vector<std::uint8_t> f = from_hex("0200000000020200000000010800" "45000014000000004006" "0000" "c0a80105" "0a000001");
    Verdict v = e->process(P4_PORT_HOST, f.data(), f.size());
    return v.dropped ? -1 : out(v)[15];
  };
  EXPECT_EQ(tos(), 3);  // three equal priorities: handle 0 (the first insert) wins
  accepted(*e, make(UpdateType::kDelete, "ingress.acl", other, "", {}, 7));
  EXPECT_EQ(tos(), 1);  // handle 1
  accepted(*e, make(kInsert, "ingress.acl", other, "ingress.mark", {{"tos", "3"}}, 7));
  EXPECT_EQ(tos(), 3);  // re-inserted, it takes the free handle 0 again
  accepted(*e, make(kInsert, "ingress.acl", narrow, "ingress.mark", {{"tos", "4"}}, 8));
  EXPECT_EQ(tos(), 4);  // a higher priority wins whatever the order
}

}  // namespace
}  // namespace dpusim::p4::test
