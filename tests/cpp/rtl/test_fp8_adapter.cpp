// Fp8RtlAdapter (models/rtl/fp8/fp8_adapter.h): jobs over TLM-2.0, blocking and non-blocking,
// streamed through the verilated unit on its gated clock. A job's duration is its RTL cycle
// count at the clock period: ceil(n / kLanes) + kLatency (5) cycles for n elements.
#include <cstring>
#include <functional>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "fp8_cases.h"
#include "rtl/fp8/fp8_adapter.h"
#include "rtl/fp8/fp8_lanes.h"

namespace dpusim::rtl::test {
namespace {

namespace fmt = dpusim::formats;
using sc_core::sc_time;
using sc_core::SC_PS;

constexpr std::uint64_t kClockPs = 1000;

// A job over owned buffers, with the codec's answer beside it.
struct Job {
  std::vector<std::uint8_t> a, b, result, expected;
  Fp8JobExtension ext;
  tlm::tlm_generic_payload trans;
  Job(bool convert, fmt::Op op, fmt::Format src, fmt::Format dst, std::vector<std::uint8_t> a_,
      std::vector<std::uint8_t> b_ = {})
      : a(std::move(a_)), b(std::move(b_)) {
    std::size_t n = 0;
    EXPECT_EQ(fmt::converted_length(src, dst, a.size(), &n), fmt::Status::ok);
    result.assign(n, 0xEE);
    expected.assign(n, 0);
    if (convert)
      EXPECT_EQ(fmt::convert(src, dst, a.data(), a.size(), expected.data(), n), fmt::Status::ok);
    else
      EXPECT_EQ(fmt::apply(op, src, a.data(), a.size(), b.data(), b.size(), expected.data(), n), fmt::Status::ok);
    ext.job = {convert, op, src, dst, a.data(), convert ? nullptr : b.data(), a.size(), result.data(), n};
    trans.set_command(tlm::TLM_IGNORE_COMMAND);
    trans.set_extension(&ext);
  }
  ~Job() { trans.clear_extension(&ext); }
};

Job add_e4m3(std::size_t n) { return Job(false, fmt::Op::add, fmt::Format::fp8_e4m3, fmt::Format::fp8_e4m3, ramp(n, 1, 7), ramp(n, 0x30, 3)); }

// An initiator bound to an adapter, running `body` in a thread (blocking) or a method at `at`.
struct Bench : sc_core::sc_module {
  SC_HAS_PROCESS(Bench);
  tlm_utils::simple_initiator_socket<Bench> socket{"socket"};
  Fp8RtlAdapter adapter;
  std::function<void()> body;
  std::vector<std::pair<tlm::tlm_generic_payload*, std::uint64_t>> responses;  // and when (ps)

  Bench(std::uint64_t clock_ps, bool thread, sc_core::sc_module_name name = "bench")
      : sc_module(name), adapter("adapter", clock_ps) {
    socket.bind(adapter.socket);
    socket.register_nb_transport_bw(this, &Bench::nb_transport_bw);
    if (thread) {
      SC_THREAD(run);
    } else {
      SC_METHOD(run);
    }
  }
  void run() { body(); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time&) {
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    responses.emplace_back(&t, sc_core::sc_time_stamp().value());
    return tlm::TLM_COMPLETED;
  }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& t, sc_time delay = sc_core::SC_ZERO_TIME) {
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    const tlm::tlm_sync_enum r = socket->nb_transport_fw(t, phase, delay);
    EXPECT_EQ(r, tlm::TLM_UPDATED);
    EXPECT_EQ(phase, tlm::END_REQ);
    return r;
  }
};

TEST(Fp8Adapter, BlockingTransportTakesTheRtlCyclesAtTheClock) {
  Bench bench(kClockPs, true);
  Job job = add_e4m3(10);  // three beats: 3 + 5 cycles
  std::uint64_t done_at = 0;
  bench.body = [&] {
    sc_core::wait(sc_time(10000, SC_PS));  // past the power-on reset
    sc_time delay = sc_core::SC_ZERO_TIME;
    bench.socket->b_transport(job.trans, delay);
    done_at = sc_core::sc_time_stamp().value();
  };
  sc_core::sc_start();
  EXPECT_EQ(job.trans.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(job.ext.outcome.status, fmt::Status::ok);
  EXPECT_EQ(job.ext.outcome.cycles, 8u);
  EXPECT_EQ(job.ext.outcome.busy_ps, 8000u);
  EXPECT_EQ(done_at, 18000u);
  EXPECT_EQ(job.result, job.expected);
  EXPECT_TRUE(bench.adapter.idle());
  // The gated clock stops low, at the falling edge after the last job, and schedules nothing.
  EXPECT_EQ(sc_core::sc_time_stamp().value(), 18500u);
  EXPECT_EQ(bench.adapter.cycles(), 2u + 8u) << "reset and the job";
}

TEST(Fp8Adapter, AJobSubmittedDuringResetStartsWhenResetEnds) {
  Bench bench(kClockPs, true);
  Job job = add_e4m3(4);  // one beat: 1 + 5 cycles
  bench.body = [&] {
    sc_time delay = sc_core::SC_ZERO_TIME;
    bench.socket->b_transport(job.trans, delay);
  };
  sc_core::sc_start();
  EXPECT_EQ(job.ext.outcome.cycles, 6u);
  EXPECT_EQ(bench.adapter.cycles(), 8u) << "reset edges at 1 and 2 ns, the job's at 3..8 ns";
  EXPECT_EQ(sc_core::sc_time_stamp().value(), 8500u) << "the clock stops at the falling edge after";
  EXPECT_EQ(job.result, job.expected);
}

TEST(Fp8Adapter, NonBlockingTransportHonoursTheDelayAndAnswersAtTheLastEdge) {
  Bench bench(1250, false);
  Job job = add_e4m3(64);  // 16 beats: 21 cycles of 1.25 ns
  bench.body = [&] {
    if (sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME) {
      sc_core::next_trigger(sc_time(20000, SC_PS));
      return;
    }
    bench.send(job.trans, sc_time(500, SC_PS));
  };
  sc_core::sc_start();
  ASSERT_EQ(bench.responses.size(), 1u);
  EXPECT_EQ(bench.responses[0].second, 20500u + 21u * 1250u);
  EXPECT_EQ(job.ext.outcome.cycles, 21u);
  EXPECT_EQ(job.ext.outcome.busy_ps, 26250u);
  EXPECT_EQ(job.result, job.expected);
}

TEST(Fp8Adapter, JobsQueueInArrivalOrderBackToBack) {
  Bench bench(kClockPs, false);
  Job first = add_e4m3(8);                                                          // 2 + 5 cycles
  Job second(true, fmt::Op::add, fmt::Format::fp8_e5m2, fmt::Format::fp16, ramp(9, 0, 29));  // 3 + 5
  bench.body = [&] {
    if (sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME) {
      sc_core::next_trigger(sc_time(10000, SC_PS));
      return;
    }
    bench.send(first.trans);
    bench.send(second.trans);
  };
  sc_core::sc_start();
  ASSERT_EQ(bench.responses.size(), 2u);
  EXPECT_EQ(bench.responses[0].first, &first.trans);
  EXPECT_EQ(bench.responses[0].second, 17000u);
  EXPECT_EQ(bench.responses[1].first, &second.trans);
  EXPECT_EQ(bench.responses[1].second, 17000u + 8000u) << "the second starts at the first's last edge";
  EXPECT_EQ(second.ext.outcome.cycles, 8u);
  EXPECT_EQ(first.result, first.expected);
  EXPECT_EQ(second.result, second.expected);
}

TEST(Fp8Adapter, Fp4ElementsArePackedAndUnpackedAsMemoryHoldsThem) {
  Bench bench(kClockPs, true);
  // fp32 to fp4_e2m1 (two a byte, even element low) and back to bf16, with a partial last beat.
  std::vector<std::uint8_t> fp32(4 * 10);
  const float values[10] = {0.25f, 0.75f, -1.25f, 2.5f, 3.5f, -5.0f, 7.0f, 1e30f, -0.0f, 1.75f};
  std::memcpy(fp32.data(), values, sizeof values);
  Job narrow(true, fmt::Op::add, fmt::Format::fp32, fmt::Format::fp4_e2m1, fp32);
  Job widen(true, fmt::Op::add, fmt::Format::fp4_e2m1, fmt::Format::bf16, ramp(5, 0x10, 0x35));
  Job mul(false, fmt::Op::mul, fmt::Format::fp4_e2m1, fmt::Format::fp4_e2m1, ramp(7, 0x21, 0x13), ramp(7, 0xF0, 0x29));
  bench.body = [&] {
    for (Job* j : {&narrow, &widen, &mul}) {
      sc_time delay = sc_core::SC_ZERO_TIME;
      bench.socket->b_transport(j->trans, delay);
    }
  };
  sc_core::sc_start();
  EXPECT_EQ(narrow.result, narrow.expected);
  EXPECT_EQ(widen.result, widen.expected);
  EXPECT_EQ(mul.result, mul.expected);
  EXPECT_EQ(mul.ext.outcome.cycles, 4u + 5u) << "14 elements: 4 beats";
}

TEST(Fp8Adapter, AJobTheCodecWouldRefuseCompletesAtOnceAndWritesNothing) {
  Bench bench(kClockPs, true);
  // Three fp32 elements cannot become fp4_e2m1, which packs pairs.
  Job odd(true, fmt::Op::add, fmt::Format::fp32, fmt::Format::fp16, ramp(12, 0, 1));
  odd.ext.job.dst = fmt::Format::fp4_e2m1;
  Job short_dst = add_e4m3(8);
  short_dst.ext.job.result_bytes = 7;
  Job overlap = add_e4m3(8);
  overlap.ext.job.result = overlap.a.data() + 1;
  const std::vector<std::uint8_t> a_before = overlap.a;
  bench.body = [&] {
    sc_core::wait(sc_time(10000, SC_PS));
    for (Job* j : {&odd, &short_dst, &overlap}) {
      sc_time delay = sc_core::SC_ZERO_TIME;
      bench.socket->b_transport(j->trans, delay);
      EXPECT_EQ(sc_core::sc_time_stamp().value(), 10000u);
    }
  };
  sc_core::sc_start();
  EXPECT_EQ(odd.ext.outcome.status, fmt::Status::odd_fp4_count);
  EXPECT_EQ(short_dst.ext.outcome.status, fmt::Status::dst_length_mismatch);
  EXPECT_EQ(overlap.ext.outcome.status, fmt::Status::overlapping_buffers);
  for (Job* j : {&odd, &short_dst, &overlap}) {
    EXPECT_EQ(j->trans.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(j->ext.outcome.cycles, 0u);
  }
  EXPECT_EQ(short_dst.result, std::vector<std::uint8_t>(8, 0xEE));
  EXPECT_EQ(overlap.a, a_before);
}

TEST(Fp8Adapter, InPlaceReductionReadsEachElementBeforeWritingIt) {
  Bench bench(kClockPs, true);
  Job job = add_e4m3(37);
  job.ext.job.result = job.a.data();  // a += b, as formats::apply allows
  bench.body = [&] {
    sc_time delay = sc_core::SC_ZERO_TIME;
    bench.socket->b_transport(job.trans, delay);
  };
  sc_core::sc_start();
  EXPECT_EQ(job.ext.outcome.status, fmt::Status::ok);
  EXPECT_EQ(job.a, job.expected);
}

TEST(Fp8Adapter, AnEmptyJobTakesNoTimeAndAPayloadWithoutAJobIsACommandError) {
  Bench bench(kClockPs, true);
  Job empty = add_e4m3(0);
  tlm::tlm_generic_payload bare;
  bench.body = [&] {
    sc_core::wait(sc_time(5000, SC_PS));
    sc_time delay = sc_core::SC_ZERO_TIME;
    bench.socket->b_transport(empty.trans, delay);
    bench.socket->b_transport(bare, delay);
    EXPECT_EQ(sc_core::sc_time_stamp().value(), 5000u);
  };
  sc_core::sc_start();
  EXPECT_EQ(empty.trans.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(empty.ext.outcome.cycles, 0u);
  EXPECT_EQ(bare.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace
}  // namespace dpusim::rtl::test
