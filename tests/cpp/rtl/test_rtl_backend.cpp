// The RDMA path on the RTL unit: RtlFp8Backend (models/rtl/fp8/rtl_backend.h) run standalone,
// from a thread and from a method, the worked examples giving the codec's bytes with the RTL's
// cycle count in the Decision, and the implementations by name (fp8_impl.h).
#include <gtest/gtest.h>

#include "fp8_cases.h"
#include "rdma_test_util.h"
#include "rtl/fp8/rtl_backend.h"
#include "rtl/fp8_impl.h"

namespace dpusim::rtl::test {
namespace {

namespace fmt = dpusim::formats;
using namespace dpusim::p4::rdma;
using namespace dpusim::p4::rdma::test;

std::vector<std::uint8_t> codec_apply(fmt::Op op, fmt::Format f, const std::vector<std::uint8_t>& a,
                                      const std::vector<std::uint8_t>& b) {
  std::vector<std::uint8_t> out(a.size());
  EXPECT_EQ(fmt::apply(op, f, a.data(), a.size(), b.data(), b.size(), out.data(), out.size()), fmt::Status::ok);
  return out;
}

Fp8Job apply_job(fmt::Op op, fmt::Format f, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                 std::vector<std::uint8_t>& out) {
  out.assign(a.size(), 0);
  return {false, op, f, f, a.data(), b.data(), a.size(), out.data(), out.size()};
}

TEST(RtlBackend, StandaloneComputeRunsTheKernelUntilTheJobIsDone) {
  RtlFp8Backend backend(1000);
  EXPECT_STREQ(backend.implementation(), "rtl");
  const auto a = ramp(100, 3, 11), b = ramp(100, 0x51, 5);
  std::vector<std::uint8_t> out;
  const Fp8Outcome first = backend.compute(apply_job(fmt::Op::mul, fmt::Format::fp8_e5m2, a, b, out));
  EXPECT_EQ(first.status, fmt::Status::ok);
  EXPECT_EQ(first.cycles, 25u + 5u);
  EXPECT_EQ(first.busy_ps, 30000u);
  EXPECT_EQ(out, codec_apply(fmt::Op::mul, fmt::Format::fp8_e5m2, a, b));
  // Reset (2 ns), then the job from its falling edge: the clock stops at the job's last edge.
  EXPECT_EQ(sc_core::sc_time_stamp().value(), 2500u + 30000u - 500u);
  const std::uint64_t t = sc_core::sc_time_stamp().value();
  const Fp8Outcome second = backend.compute(apply_job(fmt::Op::max, fmt::Format::fp8_e4m3, b, a, out));
  EXPECT_EQ(second.cycles, 30u);
  EXPECT_EQ(sc_core::sc_time_stamp().value(), t + 30000u) << "an idle unit restarts its clock when kicked";
  EXPECT_EQ(out, codec_apply(fmt::Op::max, fmt::Format::fp8_e4m3, b, a));
}

// fp8_policy on the RTL unit, over the fixture's memory.
struct RtlPolicy : PolicyFixture {
  std::unique_ptr<RtlFp8Backend> backend = std::make_unique<RtlFp8Backend>(1000);
  void SetUp() override {
    PolicyFixture::SetUp();
    path->set_fp8_backend(backend.get());
  }
};

TEST_F(RtlPolicy, TheWorkedExampleGivesTheCodecsBytesAndTheUnitsCycles) {
  const auto a = ramp(256, 0, 1), b = ramp(256, 0x80, 3);
  poke(*mem, kAAddr, a);
  poke(*mem, kBAddr, b);
  for (int op = 0; op < 5; ++op) {
    policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, op, 3, op == 0 ? p4::UpdateType::kInsert : p4::UpdateType::kModify);
    Decision d = post(reduce_wr(256));
    ASSERT_EQ(d.action, Action::kDone) << d.message;
    EXPECT_EQ(d.fp8_cycles, 64u + 5u);
    EXPECT_EQ(d.fp8_busy_ps, 69000u);
    EXPECT_EQ(peek(*mem, kDstAddr, 256), codec_apply(static_cast<fmt::Op>(op), fmt::Format::fp8_e4m3, a, b)) << "op " << op;
  }
}

TEST_F(RtlPolicy, AnInPlaceConversionThroughTheRtlIsExact) {
  setup("fp8_convert.json");
  path->set_fp8_backend(backend.get());
  convert_entry(*engine, 18, 4, 1);  // fp8_e5m2 -> fp16, widening in place
  const auto in = ramp(256, 0, 1);
  poke(*mem, kAAddr, in);
  std::vector<std::uint8_t> expect(512);
  ASSERT_EQ(fmt::convert(fmt::Format::fp8_e5m2, fmt::Format::fp16, in.data(), 256, expect.data(), 512), fmt::Status::ok);
  Decision d = post(write_wr(kA, kAAddr, {{kAAddr, 256, kA}}, 18));
  ASSERT_EQ(d.action, Action::kDone) << d.message;
  EXPECT_EQ(d.fp8_cycles, 64u + 5u);
  EXPECT_EQ(peek(*mem, kAAddr, 512), expect);
}

// A module whose process calls the backend, as a device model would.
struct Caller : sc_core::sc_module {
  SC_HAS_PROCESS(Caller);
  RtlFp8Backend& backend;
  std::function<void()> body;
  Caller(RtlFp8Backend& b, bool thread, sc_core::sc_module_name name = "caller") : sc_module(name), backend(b) {
    if (thread) {
      SC_THREAD(run);
    } else {
      SC_METHOD(run);
    }
  }
  void run() { body(); }
};

TEST(RtlBackend, FromAThreadTheCallerWaitsTheJobsSimulatedTime) {
  RtlFp8Backend backend(500);
  Caller caller(backend, true);
  const auto a = ramp(16, 9, 9), b = ramp(16, 1, 2);
  std::vector<std::uint8_t> out;
  Fp8Outcome o;
  std::uint64_t before = 0, after = 0;
  caller.body = [&] {
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    before = sc_core::sc_time_stamp().value();
    o = backend.compute(apply_job(fmt::Op::sub, fmt::Format::fp8_e4m3, a, b, out));
    after = sc_core::sc_time_stamp().value();
  };
  sc_core::sc_start();
  EXPECT_EQ(o.cycles, 4u + 5u);
  EXPECT_EQ(after - before, 4500u);
  EXPECT_EQ(out, codec_apply(fmt::Op::sub, fmt::Format::fp8_e4m3, a, b));
}

TEST(RtlBackend, FromAMethodItRefusesRatherThanBlock) {
  RtlFp8Backend backend(1000);
  Caller caller(backend, false);
  const auto a = ramp(4, 1, 1);
  std::vector<std::uint8_t> out;
  std::string error;
  caller.body = [&] {
    try {
      backend.compute(apply_job(fmt::Op::add, fmt::Format::fp8_e4m3, a, a, out));
    } catch (const std::logic_error& e) {
      error = e.what();
    }
  };
  sc_core::sc_start();
  EXPECT_EQ(error,
            "RtlFp8Backend::compute waits for the fp8 unit's clock, which an SC_METHOD cannot: call it from an "
            "SC_THREAD, or send the job to Fp8RtlAdapter's non-blocking transport (docs/cosim.md)");
  EXPECT_EQ(out, std::vector<std::uint8_t>(4, 0)) << "nothing written";
}

TEST(Fp8Impl, TheImplementationsByName) {
  std::string error;
  EXPECT_TRUE(fp8_impl_available("cpp"));
  EXPECT_TRUE(fp8_impl_available("rtl"));
  EXPECT_FALSE(fp8_impl_available("gpu"));
  auto cpp = make_fp8_backend("cpp", {}, &error);
  ASSERT_NE(cpp, nullptr) << error;
  EXPECT_STREQ(cpp->implementation(), "cpp");
  EXPECT_EQ(make_fp8_backend("gpu", {}, &error), nullptr);
  EXPECT_EQ(error, "fp8-impl 'gpu' is not an implementation; the implementations are cpp (the C++ codec) and rtl (the verilated RTL unit)");
  EXPECT_EQ(make_fp8_backend("cpp", {1000}, &error), nullptr);
  EXPECT_EQ(error, "fp8-impl cpp has no clock (the C++ codec takes no simulated time); a clock period applies to fp8-impl rtl");
  EXPECT_EQ(make_fp8_backend("rtl", {1}, &error), nullptr);
  EXPECT_EQ(error, "timing parameter 'rtl.fp8.clock_ps' = 1 outside 2..1000000000 ps");
  auto rtl = make_fp8_backend("rtl", {}, &error);
  ASSERT_NE(rtl, nullptr) << error;
  EXPECT_STREQ(rtl->implementation(), "rtl");
  EXPECT_EQ(static_cast<RtlFp8Backend&>(*rtl).adapter().clock_period(), sc_core::sc_time(1000, sc_core::SC_PS))
      << "rtl.fp8.clock_ps's default";
}

}  // namespace
}  // namespace dpusim::rtl::test
