// The RDMA path's four outcomes with the worked example fp8_policy: dispatch, deny, done by
// the extern, and the arithmetic a table entry picks. Expected bytes come from the codec's own
// API (p4/formats, tested against an exact rational reference), never from the path.
#include "formats/formats.h"
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

namespace fmt = dpusim::formats;

std::vector<std::uint8_t> expected_apply(fmt::Op op, fmt::Format f, const std::vector<std::uint8_t>& a,
                                         const std::vector<std::uint8_t>& b) {
  std::vector<std::uint8_t> out(a.size());
  EXPECT_EQ(fmt::apply(op, f, a.data(), a.size(), b.data(), b.size(), out.data(), out.size()), fmt::Status::ok);
  return out;
}

// Every fp8_e4m3 code once, in both orders, so the sum covers NaN, saturation and subnormals.
std::vector<std::uint8_t> all_codes(bool reversed) {
  std::vector<std::uint8_t> v(256);
  for (int i = 0; i < 256; ++i) v[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(reversed ? 255 - i : i);
  return v;
}

using Outcomes = PolicyFixture;

TEST_F(Outcomes, WithNoEntryTheWriteDispatches) {
  Decision d = post(reduce_wr(16));
  EXPECT_EQ(d.action, Action::kDispatch);
  EXPECT_EQ(d.status, WcStatus::IBV_WC_SUCCESS);
  EXPECT_EQ(path->stats().runs, 1u);
  EXPECT_EQ(path->stats().dispatched, 1u);
}

TEST_F(Outcomes, AReduceEntryTurnsTheWriteIntoAnElementwiseFp8Add) {
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);  // add, fp8_e4m3
  const auto a = all_codes(false), b = all_codes(true);
  poke(*mem, kAAddr, a);
  poke(*mem, kBAddr, b);
  const auto before = snapshot(*mem);
  Decision d = post(reduce_wr(256));
  ASSERT_EQ(d.action, Action::kDone) << d.message;
  EXPECT_EQ(d.status, WcStatus::IBV_WC_SUCCESS);
  EXPECT_EQ(peek(*mem, kDstAddr, 256), expected_apply(fmt::Op::add, fmt::Format::fp8_e4m3, a, b));
  // Only the result's bytes were written: the sources and everything around are as they were.
  auto after = snapshot(*mem);
  std::copy(before.begin() + (kDstAddr - mem->base()), before.begin() + (kDstAddr - mem->base()) + 256,
            after.begin() + (kDstAddr - mem->base()));
  EXPECT_EQ(after, before);
  EXPECT_EQ(path->stats().done, 1u);
}

TEST_F(Outcomes, ChangingTheOneEntryChangesTheArithmetic) {
  const auto a = all_codes(false), b = all_codes(true);
  poke(*mem, kAAddr, a);
  poke(*mem, kBAddr, b);
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);
  ASSERT_EQ(post(reduce_wr(256)).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kDstAddr, 256), expected_apply(fmt::Op::add, fmt::Format::fp8_e4m3, a, b));
  const struct {
    fmt::Op op;
    fmt::Format f;
  } cases[] = {{fmt::Op::mul, fmt::Format::fp8_e5m2}, {fmt::Op::sub, fmt::Format::fp8_e4m3},
               {fmt::Op::min, fmt::Format::fp8_e5m2}, {fmt::Op::max, fmt::Format::fp8_e4m3},
               {fmt::Op::add, fmt::Format::bf16},     {fmt::Op::mul, fmt::Format::fp4_e2m1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(fmt::op_name(c.op)) + " " + fmt::format_name(c.f));
    policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, static_cast<int>(c.op), static_cast<int>(c.f), UpdateType::kModify);
    ASSERT_EQ(post(reduce_wr(256)).action, Action::kDone);
    EXPECT_EQ(peek(*mem, kDstAddr, 256), expected_apply(c.op, c.f, a, b));
  }
}

TEST_F(Outcomes, ADenyEntryDeniesEveryOpcodeItMatchesWithLocQpOpErr) {
  MatchField m;
  m.field = "meta.rdma_metadata.opcode";
  m.value = "0";
  insert(*engine, "ingress.rdma_policy", {m}, "ingress.deny", {});
  SendWr send;
  send.opcode = IONIC_V1_OP_SEND;
  send.qp_num = 0x123456;
  send.length = 64;
  send.sgl = {{kAAddr, 64, kA}};
  const auto before = snapshot(*mem);
  Decision d = post(send, 42);
  EXPECT_EQ(d.action, Action::kDeny);
  EXPECT_EQ(d.status, WcStatus::IBV_WC_LOC_QP_OP_ERR);
  EXPECT_TRUE(d.completes(false));  // whether or not it was signalled
  EXPECT_TRUE(d.completes(true));
  EXPECT_EQ(snapshot(*mem), before);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], std::make_pair(std::uint64_t{42},
                                     std::string("P4 program denied work request: qp=1193046 opcode=0 (SEND) length=64")));
  // Another opcode misses the entry and dispatches.
  send.opcode = IONIC_V1_OP_SEND_IMM;
  EXPECT_EQ(post(send).action, Action::kDispatch);
}

TEST_F(Outcomes, CompletionRulesFollowTheOutcome) {
  Decision d;
  d.action = Action::kDone;
  EXPECT_FALSE(d.completes(false));
  EXPECT_TRUE(d.completes(true));
  d.action = Action::kFail;
  EXPECT_TRUE(d.completes(false));
  EXPECT_STREQ(action_name(Action::kDispatch), "dispatch");
  EXPECT_STREQ(action_name(Action::kDeny), "deny");
  EXPECT_STREQ(action_name(Action::kDone), "done");
  EXPECT_STREQ(action_name(Action::kFail), "fail");
  EXPECT_STREQ(wc_status_name(WcStatus::IBV_WC_LOC_PROT_ERR), "IBV_WC_LOC_PROT_ERR");
  EXPECT_EQ(static_cast<int>(WcStatus::IBV_WC_LOC_PROT_ERR), 4);
  EXPECT_EQ(static_cast<int>(WcStatus::IBV_WC_LOC_QP_OP_ERR), 2);
  EXPECT_EQ(static_cast<int>(WcStatus::IBV_WC_LOC_LEN_ERR), 1);
}

TEST_F(Outcomes, TheProgramSeesEveryRdmaMetadataField) {
  // A patched policy keyed on all five fields: only the exact request matches.
  Json patch = Json::array();
  for (const char* f : {"qp_num", "length", "imm_data", "rkey"}) {
    Json key = {{"match_type", "exact"}, {"name", std::string("meta.rdma_metadata.") + f},
                {"target", Json::array({"rdma_metadata", f})}, {"mask", nullptr}};
    patch.push_back({{"op", "add"}, {"path", "/pipelines/0/tables/0/key/-"}, {"value", key}});
  }
  setup("fp8_policy.json", patch);
  std::vector<MatchField> match;
  for (auto [f, v] : {std::pair<const char*, const char*>{"opcode", "5"}, {"qp_num", "0xabcdef"}, {"length", "0x12345678"},
                      {"imm_data", "0xdeadbeef"}, {"rkey", "0x300"}}) {
    MatchField m;
    m.field = std::string("meta.rdma_metadata.") + f;
    m.value = v;
    match.push_back(m);
  }
  insert(*engine, "ingress.rdma_policy", match, "ingress.deny", {});
  SendWr wr;
  wr.opcode = IONIC_V1_OP_RDMA_WRITE_IMM;
  wr.qp_num = 0xabcdef;
  wr.length = 0x12345678;
  wr.imm_data = 0xdeadbeef;
  wr.rkey = 0x300;
  EXPECT_EQ(post(wr).action, Action::kDeny);
  for (int field = 0; field < 5; ++field) {
    SendWr other = wr;
    if (field == 0) other.opcode = 4;
    if (field == 1) other.qp_num = 0xabcdee;
    if (field == 2) other.length = 0x12345679;
    if (field == 3) other.imm_data = 0xdeadbeee;
    if (field == 4) other.rkey = 0x301;
    EXPECT_EQ(post(other).action, Action::kDispatch) << field;
  }
}

TEST(NoProgram, TheRdmaPathDispatchesWithoutRunningAnything) {
  auto mem = memory();
  RdmaPath path;
  SendWr wr = write_wr(1, 0x10000, {{0x10000, 4, 1}, {0x10004, 4, 1}});
  EXPECT_EQ(path.post_send(wr, 0, *mem).action, Action::kDispatch);
  LoadError err;
  ASSERT_TRUE(path.attach(nullptr, &err));
  EXPECT_EQ(path.post_send(wr, 0, *mem).action, Action::kDispatch);
  EXPECT_EQ(path.stats().runs, 0u);
}

TEST(EthernetProgram, LeavesTheRdmaPathAsIfNoneWereLoaded) {
  // minimal_forward drops every frame by default: were it run, a work request would be denied.
  auto engine = load("minimal_forward.json");
  auto mem = memory();
  add(*mem, 1, 0x10000, 0x100);
  std::vector<std::pair<std::uint64_t, std::string>> lines;
  RdmaPath path([&](std::uint64_t t, const std::string& s) { lines.emplace_back(t, s); });
  LoadError err;
  ASSERT_TRUE(path.attach(engine.get(), &err));
  EXPECT_FALSE(path.has_rdma_program());
  for (std::uint8_t op = 0; op < 10; ++op) {
    SendWr wr = write_wr(1, 0x10000, {{0x10000, 4, 1}, {0x10004, 4, 1}});
    wr.opcode = op;
    Decision d = path.post_send(wr, 0, *mem);
    EXPECT_EQ(d.action, Action::kDispatch);
    EXPECT_EQ(d.status, WcStatus::IBV_WC_SUCCESS);
  }
  EXPECT_EQ(path.stats().runs, 0u);
  EXPECT_TRUE(lines.empty());
  // Even a QP number the path would refuse from an RDMA program: nothing looks at it.
  SendWr wide;
  wide.qp_num = 0x1000000;
  EXPECT_EQ(path.post_send(wide, 0, *mem).action, Action::kDispatch);
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
