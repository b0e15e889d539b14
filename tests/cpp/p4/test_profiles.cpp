// Action profile members and groups, range entries and the other runtime objects through
// the engine's own calls (the records P4Runtime's ActionProfileMember, ActionProfileGroup
// and FieldMatch.Range stand for), on tests/data/p4/v1model_ops.json.
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

class Profiles : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> e = load_data("v1model_ops.json", PortPolicy::kV1Model);
  TableUpdate member(UpdateType type, std::uint32_t id, const std::string& action, std::vector<std::pair<std::string, std::string>> params) {
    TableUpdate u;
    u.type = type;
    u.action_profile = "ingress.ap";
    u.member = id;
    u.action = action;
    u.params = std::move(params);
    return u;
  }
  TableUpdate group(UpdateType type, std::uint32_t id, std::vector<std::uint32_t> members) {
    TableUpdate u;
    u.type = type;
    u.action_profile = "ingress.ap";
    u.group = id;
    u.members = std::move(members);
    return u;
  }
  TableUpdate entry(int op, std::optional<std::uint32_t> mbr, std::optional<std::uint32_t> grp) {
    TableUpdate u;
    u.table = "ingress.select";
    u.match.push_back({"tag.op", std::to_string(op), std::nullopt, std::nullopt, std::nullopt});
    u.member = mbr;
    u.group = grp;
    return u;
  }
  void ok(const TableUpdate& u) {
    UpdateError err;
    ASSERT_TRUE(e->update(u, &err)) << update_code_name(err.code) << ": " << err.message;
  }
  void no(const TableUpdate& u, UpdateCode code, const std::string& words) {
    UpdateError err;
    ASSERT_FALSE(e->update(u, &err));
    EXPECT_STREQ(update_code_name(err.code), update_code_name(code)) << err.message;
    EXPECT_NE(err.message.find(words), std::string::npos) << err.message;
  }
  int port(int op) {
    std::vector<std::uint8_t> f = from_hex("020000000002020000000001" "88b5");
    f.push_back(static_cast<std::uint8_t>(op));
    f.resize(f.size() + 15, 0);
    Verdict v = e->process(1, f.data(), f.size());
    return v.dropped ? -1 : static_cast<int>(v.port);
  }
};

TEST_F(Profiles, MembersGroupsAndEntriesFollowP4RuntimesRules) {
  ok(member(UpdateType::kInsert, 10, "ingress.pick", {{"port", "5"}, {"v", "1"}}));
  no(member(UpdateType::kInsert, 10, "ingress.pick", {{"port", "6"}, {"v", "1"}}), UpdateCode::kDuplicateMember, "already has a member 10");
  no(member(UpdateType::kInsert, 11, "ingress.set_port", {{"port", "6"}}), UpdateCode::kActionNotInTable, "is not one of table 'ingress.select'");
  no(group(UpdateType::kInsert, 1, {10, 12}), UpdateCode::kNoSuchMember, "has no member 12 for group 1");
  ok(group(UpdateType::kInsert, 1, {10}));
  no(entry(1, std::nullopt, 2), UpdateCode::kNoSuchGroup, "has no group 2");
  ok(entry(1, std::nullopt, 1));
  ok(entry(2, 10, std::nullopt));
  EXPECT_EQ(port(1), 5);
  EXPECT_EQ(port(2), 5);
  ok(member(UpdateType::kModify, 10, "ingress.pick", {{"port", "7"}, {"v", "1"}}));
  EXPECT_EQ(port(1), 7);
  no(member(UpdateType::kDelete, 10, "", {}), UpdateCode::kInUse, "member 10 is still named by 2 entries or groups");
  no(group(UpdateType::kDelete, 1, {}), UpdateCode::kInUse, "group 1 is still named by 1 entries");
  TableUpdate plain = entry(3, std::nullopt, std::nullopt);
  plain.action = "ingress.pick";
  no(plain, UpdateCode::kIndirect, "an entry names a member or a group, not an action");
  TableUpdate del = entry(1, std::nullopt, std::nullopt);
  del.type = UpdateType::kDelete;
  ok(del);
  ok(group(UpdateType::kDelete, 1, {}));
}

TEST_F(Profiles, ProfilesAreBoundedByMaxSize) {
  for (std::uint32_t i = 0; i < 64; ++i) ok(member(UpdateType::kInsert, i, "ingress.pick", {{"port", "1"}, {"v", "1"}}));
  no(member(UpdateType::kInsert, 64, "ingress.pick", {{"port", "1"}, {"v", "1"}}), UpdateCode::kProfileFull, "full (max_size 64)");
}

TEST_F(Profiles, RangeEntriesTakeALowAndAHighEnd) {
  TableUpdate u;
  u.table = "ingress.ranges";
  u.action = "ingress.set_out";
  u.params = {{"v", "1"}};
  u.priority = 10;
  u.match = {{"tag.data", "5", std::nullopt, std::nullopt, std::string("9")}, {"tag.arg", "0", std::nullopt, std::string("0"), std::nullopt}};
  ok(u);
  no(u, UpdateCode::kDuplicateEntry, "already has an entry");
  u.match[0].high.reset();
  no(u, UpdateCode::kMatchKind, "is a range field and needs a low and a high end");
  u.match[0].high = "4";
  no(u, UpdateCode::kRange, "low end 0x5 is above high end 0x4");
  u.match[0].high = "0x100000000";
  no(u, UpdateCode::kValueWidth, "high end 0x100000000 is wider than the 32-bit field");
}

TEST(RuntimeObjects, IndicesSessionsAndGroupsAreChecked) {
  auto e = load_data("v1model_ops.json", PortPolicy::kV1Model);
  UpdateError err;
  std::uint64_t b, p;
  EXPECT_FALSE(e->objects().counter_read("ingress.nope", 0, &b, &p, &err));
  EXPECT_EQ(err.message, "no counter named 'ingress.nope'");
  EXPECT_FALSE(e->objects().register_write("ingress.reg", 8, Value::of(1), &err));
  EXPECT_EQ(err.message, "register 'ingress.reg': index 8 is past its 8 cells");
  EXPECT_FALSE(e->replication().mirroring_add(32768, MirrorConfig{true, 1, false, 0}, &err));
  EXPECT_EQ(update_code_name(err.code), std::string("index"));
  EXPECT_FALSE(e->replication().mc_group_create(0, &err));
  std::uint32_t h;
  EXPECT_FALSE(e->replication().mc_node_create(1, {511}, &h, &err));
  EXPECT_EQ(err.message, "multicast port 511 is outside [0, 510]");
  EXPECT_TRUE(e->replication().mc_group_create(1, &err));
  EXPECT_FALSE(e->replication().mc_group_create(1, &err));
  EXPECT_TRUE(e->replication().mc_node_create(3, {1, 2}, &h, &err));
  EXPECT_EQ(h, 0u);
  EXPECT_TRUE(e->replication().mc_node_associate(1, h, &err));
  EXPECT_FALSE(e->replication().mc_node_associate(1, h, &err));
  EXPECT_EQ(update_code_name(err.code), std::string("in_use"));
  EXPECT_FALSE(e->objects().set_entry_timeout("ingress.ops", 0, 10, &err));
  EXPECT_EQ(err.message, "table 'ingress.ops' does not support idle timeouts");
}

TEST(UpdateRecords, RangesMembersAndGroupsParseFromJson) {
  std::vector<TableUpdate> u;
  std::string error;
  ASSERT_TRUE(parse_updates(R"([
    {"type": "INSERT", "action_profile": "ingress.ap", "member": "3", "action": "ingress.pick", "params": {"port": "1", "v": "2"}},
    {"type": "INSERT", "action_profile": "ingress.ap", "group": "0x10", "members": ["3"]},
    {"type": "INSERT", "table": "ingress.select", "match": [{"field": "tag.op", "value": "1"}], "group": "16"},
    {"type": "INSERT", "table": "ingress.ranges", "match": [{"field": "tag.data", "low": "1", "high": "9"},
                                                            {"field": "tag.arg", "value": "0", "mask": "0"}],
     "priority": 1, "action": "ingress.set_out", "params": {"v": "7"}}])",
                            &u, &error))
      << error;
  ASSERT_EQ(u.size(), 4u);
  EXPECT_EQ(u[0].member, 3u);
  EXPECT_EQ(u[1].group, 16u);
  EXPECT_EQ(u[1].members, std::vector<std::uint32_t>({3}));
  EXPECT_EQ(u[2].group, 16u);
  EXPECT_TRUE(u[2].action.empty());
  EXPECT_EQ(u[3].match[0].value, "1");
  EXPECT_EQ(u[3].match[0].high, std::optional<std::string>("9"));
  auto e = load_data("v1model_ops.json", PortPolicy::kV1Model);
  for (const TableUpdate& x : u) {
    UpdateError err;
    EXPECT_TRUE(e->update(x, &err)) << err.message;
  }
  EXPECT_FALSE(parse_updates(R"([{"type": "INSERT", "action_profile": "ap", "member": "x"}])", &u, &error));
  EXPECT_EQ(error, "update 0 'member' is not a string holding a 32-bit number");
}

}  // namespace
}  // namespace dpusim::p4::test
