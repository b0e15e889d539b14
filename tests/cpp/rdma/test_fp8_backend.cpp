// The RDMA path's fp8 backend seam (fp8_backend.h): the path hands each staged operation to the
// backend it was given, writes what that computed, and passes the backend's cycles and busy
// time on in the Decision; without one, or after set_fp8_backend(nullptr), it is the codec.
#include "dpusim/p4/rdma/fp8_backend.h"
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

namespace fmt = dpusim::formats;

// Records each job and answers with the bitwise complement of the codec's result, so a test
// can tell whose bytes were written, and with a fixed cycle count.
struct RecordingBackend : Fp8Backend {
  std::vector<Fp8Job> jobs;
  std::vector<std::vector<std::uint8_t>> operands_a, operands_b;
  const char* implementation() const override { return "recording"; }
  Fp8Outcome compute(const Fp8Job& job) override {
    jobs.push_back(job);
    operands_a.emplace_back(job.a, job.a + job.src_bytes);
    operands_b.emplace_back(job.b, job.b + (job.b != nullptr ? job.src_bytes : 0));
    Fp8Outcome out = codec_fp8_backend().compute(job);
    for (std::size_t i = 0; i < job.result_bytes; ++i) job.result[i] = static_cast<std::uint8_t>(~job.result[i]);
    out.cycles = 7;
    out.busy_ps = 7000;
    return out;
  }
};

std::vector<std::uint8_t> bytes(std::size_t n, std::uint8_t first, std::uint8_t step) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(first + step * i);
  return v;
}

std::vector<std::uint8_t> codec_add_e4m3(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::vector<std::uint8_t> out(a.size());
  EXPECT_EQ(fmt::apply(fmt::Op::add, fmt::Format::fp8_e4m3, a.data(), a.size(), b.data(), b.size(), out.data(), out.size()),
            fmt::Status::ok);
  return out;
}

struct Backend : PolicyFixture {
  void SetUp() override {
    PolicyFixture::SetUp();
    policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);  // add, fp8_e4m3
    poke(*mem, kAAddr, a);
    poke(*mem, kBAddr, b);
  }
  std::vector<std::uint8_t> a = bytes(32, 0x01, 3), b = bytes(32, 0x40, 5);
};

TEST_F(Backend, TheDefaultIsTheCodecWithNoSimulatedTime) {
  EXPECT_STREQ(path->fp8_backend().implementation(), "cpp");
  Decision d = post(reduce_wr(32));
  ASSERT_EQ(d.action, Action::kDone) << d.message;
  EXPECT_EQ(d.fp8_cycles, 0u);
  EXPECT_EQ(d.fp8_busy_ps, 0u);
  EXPECT_EQ(peek(*mem, kDstAddr, 32), codec_add_e4m3(a, b));
}

TEST_F(Backend, TheStagedOperationGoesToTheBackendAndItsResultAndTimeComeBack) {
  RecordingBackend backend;
  path->set_fp8_backend(&backend);
  EXPECT_STREQ(path->fp8_backend().implementation(), "recording");
  Decision d = post(reduce_wr(32));
  ASSERT_EQ(d.action, Action::kDone) << d.message;
  EXPECT_EQ(d.fp8_cycles, 7u);
  EXPECT_EQ(d.fp8_busy_ps, 7000u);
  ASSERT_EQ(backend.jobs.size(), 1u);
  const Fp8Job& job = backend.jobs[0];
  EXPECT_FALSE(job.convert);
  EXPECT_EQ(job.op, fmt::Op::add);
  EXPECT_EQ(job.src, fmt::Format::fp8_e4m3);
  EXPECT_EQ(job.dst, fmt::Format::fp8_e4m3);
  EXPECT_EQ(job.src_bytes, 32u);
  EXPECT_EQ(job.result_bytes, 32u);
  EXPECT_EQ(backend.operands_a[0], a);
  EXPECT_EQ(backend.operands_b[0], b);
  std::vector<std::uint8_t> expect = codec_add_e4m3(a, b);
  for (auto& x : expect) x = static_cast<std::uint8_t>(~x);
  EXPECT_EQ(peek(*mem, kDstAddr, 32), expect) << "the backend's bytes are written";
}

TEST_F(Backend, AResultDiscardedForWantOfMarkToDropStillReportsTheUnitsTime) {
  // Without mark_to_drop the computed result is not written and the request fails, but the
  // unit did the work.
  setup("fp8_policy.json", Json::parse(R"([{"op": "remove", "path": "/actions/1/primitives/1"}])"));
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);
  RecordingBackend backend;
  path->set_fp8_backend(&backend);
  const auto before = snapshot(*mem);
  Decision d = post(reduce_wr(32));
  EXPECT_EQ(d.action, Action::kFail);
  EXPECT_EQ(d.reason, FailReason::kNoMarkToDrop);
  EXPECT_EQ(d.fp8_cycles, 7u);
  EXPECT_EQ(snapshot(*mem), before);
}

TEST_F(Backend, ARequestRefusedBeforeTheComputationNeverReachesTheBackend) {
  RecordingBackend backend;
  path->set_fp8_backend(&backend);
  Decision d = post(write_wr(kDst, kDstAddr, {{kAAddr, 32, 0x999}, {kBAddr, 32, kB}}));
  EXPECT_EQ(d.reason, FailReason::kUnregisteredKey);
  EXPECT_EQ(d.fp8_cycles, 0u);
  EXPECT_TRUE(backend.jobs.empty());
}

TEST_F(Backend, ConversionsCarryBothFormatsAndNoSecondOperand) {
  setup("fp8_convert.json");
  convert_entry(*engine, 17, 0, 3);  // fp32 -> fp8_e4m3
  RecordingBackend backend;
  path->set_fp8_backend(&backend);
  ASSERT_EQ(post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}}, 17)).action, Action::kDone);
  ASSERT_EQ(backend.jobs.size(), 1u);
  EXPECT_TRUE(backend.jobs[0].convert);
  EXPECT_EQ(backend.jobs[0].src, fmt::Format::fp32);
  EXPECT_EQ(backend.jobs[0].dst, fmt::Format::fp8_e4m3);
  EXPECT_EQ(backend.jobs[0].b, nullptr);
  EXPECT_EQ(backend.jobs[0].src_bytes, 16u);
  EXPECT_EQ(backend.jobs[0].result_bytes, 4u);
}

TEST_F(Backend, SettingNoBackendRestoresTheCodec) {
  RecordingBackend backend;
  path->set_fp8_backend(&backend);
  path->set_fp8_backend(nullptr);
  EXPECT_STREQ(path->fp8_backend().implementation(), "cpp");
  ASSERT_EQ(post(reduce_wr(32)).action, Action::kDone);
  EXPECT_TRUE(backend.jobs.empty());
  EXPECT_EQ(peek(*mem, kDstAddr, 32), codec_add_e4m3(a, b));
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
