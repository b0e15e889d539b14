// The worked example fp8_convert: the table entry names both formats, so one program narrows
// fp32 to fp8_e4m3 for one QP and widens fp8_e5m2 to fp16 for another. And the fp8 unit on the
// Ethernet path: a call declines and does nothing.
#include <cmath>
#include <cstring>

#include "formats/formats.h"
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

namespace fmt = dpusim::formats;

struct Convert : PolicyFixture {
  void SetUp() override {
    setup("fp8_convert.json");
    convert_entry(*engine, 17, 0, 3);  // fp32 -> fp8_e4m3
    convert_entry(*engine, 18, 4, 1);  // fp8_e5m2 -> fp16
  }
};

std::vector<std::uint8_t> convert(fmt::Format s, fmt::Format d, const std::vector<std::uint8_t>& in) {
  std::size_t n = 0;
  EXPECT_EQ(fmt::converted_length(s, d, in.size(), &n), fmt::Status::ok);
  std::vector<std::uint8_t> out(n);
  EXPECT_EQ(fmt::convert(s, d, in.data(), in.size(), out.data(), out.size()), fmt::Status::ok);
  return out;
}

TEST_F(Convert, OneProgramNarrowsForOneQpAndWidensForAnother) {
  // fp32: ties, overflow past 448, subnormals, both zeros, infinities, NaNs.
  const float values[] = {1.0f, 1.0625f, 1.1875f, 448.0f, 464.0f, 1e9f, 0.0f, -0.0f, 0.001953125f, 0.0009765625f,
                          -3.5f, 1e-30f, INFINITY, -INFINITY, NAN, -NAN};
  std::vector<std::uint8_t> narrow_in(sizeof values);
  std::memcpy(narrow_in.data(), values, sizeof values);  // little-endian hosts only, as the codec
  poke(*mem, kAAddr, narrow_in);
  ASSERT_EQ(post(write_wr(kDst, kDstAddr, {{kAAddr, sizeof values, kA}}, 17)).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kDstAddr, 16), convert(fmt::Format::fp32, fmt::Format::fp8_e4m3, narrow_in));
  EXPECT_EQ(peek(*mem, kDstAddr + 16, 16), std::vector<std::uint8_t>(16, 0x00)) << "nothing past the result";

  std::vector<std::uint8_t> widen_in(256);
  for (int i = 0; i < 256; ++i) widen_in[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  poke(*mem, kBAddr, widen_in);
  ASSERT_EQ(post(write_wr(kDst, kDstAddr + 0x100, {{kBAddr, 256, kB}}, 18)).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kDstAddr + 0x100, 512), convert(fmt::Format::fp8_e5m2, fmt::Format::fp16, widen_in));
}

TEST_F(Convert, AQpWithoutAnEntryAndATwoSgeWriteDispatch) {
  EXPECT_EQ(post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}}, 19)).action, Action::kDispatch);
  EXPECT_EQ(post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 16, kB}}, 17)).action, Action::kDispatch);
  EXPECT_EQ(path->stats().declined, 1u);
}

TEST_F(Convert, AnUnknownFormatInTheEntryFailsWithLocQpOpErr) {
  convert_entry(*engine, 20, 0, 9);
  Decision d = post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}}, 20));
  EXPECT_EQ(d.action, Action::kFail);
  EXPECT_EQ(d.status, WcStatus::IBV_WC_LOC_QP_OP_ERR);
  EXPECT_EQ(d.reason, FailReason::kUnknownFormat);
  EXPECT_NE(d.message.find("cvt(src_fmt, dst_fmt): dst_fmt 0x9 is not a format (0 to 5)"), std::string::npos) << d.message;
}

std::vector<std::uint8_t> frame() {
  std::vector<std::uint8_t> f(64, 0);
  f[12] = 0x88;
  f[13] = 0xb5;
  return f;
}

TEST(EthernetPath, AnFp8CallDeclinesAndDoesNothing) {
  // fp8_policy with reduce() = apply(op, fmt); egress_spec = 1. Metadata is zero on the
  // Ethernet path, so an entry for opcode 0 fires for every frame.
  Json assign = {{"op", "assign"},
                 {"parameters", Json::array({{{"type", "field"}, {"value", Json::array({"standard_metadata", "egress_spec"})}},
                                             {{"type", "hexstr"}, {"value", "0x0001"}}})}};
  Json call = {{"op", "_fp8_unit_apply"},
               {"parameters", Json::array({{{"type", "extern"}, {"value", "fp8"}}, {{"type", "runtime_data"}, {"value", 0}},
                                           {{"type", "runtime_data"}, {"value", 1}}})}};
  auto e = load("fp8_policy.json",
                Json::array({{{"op", "replace"}, {"path", "/actions/1/primitives"}, {"value", Json::array({call, assign})}}}));
  policy_entry(*e, 0, 0, 3);
  auto f = frame();
  Verdict v = e->process(P4_PORT_HOST, f.data(), f.size());
  ASSERT_FALSE(v.dropped) << drop_reason_name(v.reason);
  EXPECT_EQ(v.port, P4_PORT_HOST + 1);  // the action went on past the call
  EXPECT_EQ(std::vector<std::uint8_t>(v.data, v.data + v.size), f);

  // The worked example as written: the call does nothing, then mark_to_drop drops the frame.
  auto policy = load("fp8_policy.json");
  policy_entry(*policy, 0, 0, 3);
  EXPECT_EQ(policy->process(P4_PORT_HOST, f.data(), f.size()).reason, DropReason::kIngressDrop);
  // And after the RDMA path ran it, the Ethernet path still finds no request in hand.
  auto mem = memory();
  add(*mem, 1, 0x10000, 0x100);
  RdmaPath path;
  LoadError err;
  ASSERT_TRUE(path.attach(e.get(), &err));
  SendWr wr = write_wr(1, 0x10000, {{0x10000, 4, 1}, {0x10004, 4, 1}});
  wr.opcode = 0;
  EXPECT_EQ(path.post_send(wr, 0, *mem).action, Action::kDispatch);  // SEND: declined
  v = e->process(P4_PORT_HOST, f.data(), f.size());
  ASSERT_FALSE(v.dropped);
  EXPECT_EQ(v.port, 1u);
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
