// The lt path of a requester (tlm/dma.h): direct memory pointers granted through a link, a
// switch and another link, and each access annotated with exactly the time its TLPs take on the
// same idle fabric in tlp mode; refusals and invalidations sending accesses back to TLPs.
#include <gtest/gtest.h>

#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "tlm/completer.h"
#include "tlm/link.h"
#include "tlm/port.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "tlm/timing.h"

using namespace dpusim::pcie;
using namespace sc_core;
namespace tlp = dpusim::tlp;

namespace {

const TimingParam kMemReadPs({"test.dmi.mem_read_ps", 100000, 0, 1000000000, "ps"});
const TimingParam kTraversalPs({"test.dmi.traversal_ps", 150000, 0, 1000000000, "ps"});

constexpr uint64_t kBase = 0x10000000, kSize = 1 << 20;

// Memory behind a port: serves MRd after kMemReadPs with completions at its MPS and RCB,
// takes MWr, grants DMI on its bytes a page at a time; UR for anything outside them.
struct Memory {
  SimContext& ctx;
  Port port{"mem"};
  TimedQueue later{"mem_later"};
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kSize);
  unsigned mps = 128, rcb = 64;
  uint64_t last_write_arrival = 0;
  explicit Memory(SimContext& c) : ctx(c) {
    port.set_receiver([this](Tlp& t) { receive(t); });
    port.set_dmi_handler([this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
      const uint64_t a = gp.get_address();
      const uint64_t page = a & ~uint64_t(4095);
      dmi.set_start_address(page);
      dmi.set_end_address(page + 4095);
      if (a < kBase || a >= kBase + kSize) return false;
      dmi.set_dmi_ptr(bytes.data() + (page - kBase));
      dmi.allow_read_write();
      auto* route = gp.get_extension<DmiRoute>();
      route->read_latency = &kMemReadPs;
      route->max_payload_size = mps;
      route->read_completion_boundary = rcb;
      return true;
    });
  }
  void receive(Tlp& t) {
    const tlp::Header h = hdr(t);
    const uint64_t first = request_first_byte(h);
    const uint32_t n = request_byte_count(h);
    if (h.type == tlp::Type::MWr) {
      if (first >= kBase && first + n <= kBase + kSize) std::memcpy(&bytes[first - kBase], data(t) + (first & 3), n);
      last_write_arrival = sc_time_stamp().value();
      t.release();
      return;
    }
    t.release();
    later.at(ctx.ps(kMemReadPs), [this, h, first, n] {
      if (first < kBase || first + n > kBase + kSize) {
        port.send(*make_error_completion(ctx.pool, h, 0x0100, tlp::CplStatus::UR));
        return;
      }
      complete_memory_read(ctx.pool, h, 0x0100, &bytes[first - kBase], mps, rcb, [this](Tlp* c) { port.send(*c); });
    });
  }
};

// A store-and-forward switch between two links: TLPs and DMI requests pass after kTraversalPs.
struct Switch {
  SimContext& ctx;
  Port down{"sw_down"}, up{"sw_up"};
  explicit Switch(SimContext& c) : ctx(c) {
    down.set_receiver([this](Tlp& t) { up.send(t, ctx.ps(kTraversalPs)); });
    up.set_receiver([this](Tlp& t) { down.send(t, ctx.ps(kTraversalPs)); });
    down.set_dmi_handler([this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
      gp.get_extension<DmiRoute>()->hops.push_back(DmiHop{nullptr, &kTraversalPs});
      return up.get_dmi(gp, dmi);
    });
    up.set_invalidate_handler([this](uint64_t s, uint64_t e) { down.invalidate_dmi(s, e + 1); });
  }
};

struct Fabric {
  SimContext ctx{1};
  Port ep{"ep"};
  Link lower, upper;
  Switch sw{ctx};
  Memory mem{ctx};
  Requester req;
  unsigned dmi_requests = 0;
  Fabric()
      : lower("link_lower", ctx, timing::link_dsp_gen, timing::link_dsp_width, [] { return -1; }),
        upper("link_upper", ctx, timing::link_host_gen, timing::link_host_width, [] { return -1; }),
        req("req", ctx, [this](Tlp& t) { return ep.send(t); }, [] { return uint16_t(0x0200); }) {
    ctx.log.open_memory();
    ctx.timing.set("link.dsp.gen", 3);
    ctx.timing.set("link.dsp.width", 4);  // a slower first link: its serialisation shows
    lower.connect(sw.down, ep, -1, -1);
    upper.connect(mem.port, sw.up, -1, -1);
    ep.set_receiver([this](Tlp& t) { req.on_completion(t); });
    ep.set_invalidate_handler([this](uint64_t s, uint64_t e) { req.invalidate_dmi(s, e); });
    req.get_dmi = [this](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
      ++dmi_requests;
      return ep.get_dmi(gp, dmi);
    };
    req.max_read_request_size = [] { return 256u; };
    req.max_payload_size = [] { return 128u; };
    for (size_t i = 0; i < kSize; ++i) mem.bytes[i] = uint8_t(i * 7 + 3);
  }
  // Reads, runs the simulation until idle; the read's duration (by the requester's local time
  // at completion) and its result.
  uint64_t read(uint64_t addr, size_t len, Result* out) {
    const uint64_t start = sc_time_stamp().value();
    uint64_t done_at = 0;
    req.read(addr, len, [&](Result&& r) {
      done_at = ctx.local_ps();
      *out = std::move(r);
    });
    sc_start();
    return done_at - start;
  }
};

}  // namespace

TEST(Dmi, LtReadsTakeExactlyTheTimeTheirTlpsTakeOnAnIdleFabric) {
  Fabric f;
  // Sizes and alignments that split at MRRS, at 4 KiB, and into completions at MPS and RCB.
  const std::vector<std::pair<uint64_t, size_t>> reads = {
      {kBase, 4}, {kBase + 2, 2}, {kBase + 0x100, 16}, {kBase + 0x1f3, 77}, {kBase + 0x40, 1500},
      {kBase + 0xff0, 64}, {kBase + 0x3000 + 5, 3000}};
  std::vector<uint64_t> tlp_times;
  for (const auto& [a, n] : reads) {
    Result r;
    tlp_times.push_back(f.read(a, n, &r));
    ASSERT_EQ(r.outcome, Outcome::SC);
    ASSERT_EQ(r.data.size(), n);
    EXPECT_EQ(r.data[n - 1], uint8_t((a - kBase + n - 1) * 7 + 3));
  }
  f.req.set_fidelity(Fidelity::Lt);
  for (size_t i = 0; i < reads.size(); ++i) {
    const auto [a, n] = reads[i];
    Result r;
    EXPECT_EQ(f.read(a, n, &r), tlp_times[i]) << "read of " << n << " bytes at +" << (a - kBase);
    ASSERT_EQ(r.outcome, Outcome::SC);
    EXPECT_EQ(r.data[n - 1], uint8_t((a - kBase + n - 1) * 7 + 3));
  }
  EXPECT_EQ(f.req.direct_reads(), reads.size());
  EXPECT_GT(tlp_times[4], tlp_times[0]);  // 1500 bytes take longer than 4
}

TEST(Dmi, LtWritesAreDirectAndTimedAsTheirTlps) {
  Fabric f;
  std::vector<uint8_t> data(600, 0xab);
  const sc_time tlp_sent = f.req.write(kBase + 0x801, data.data(), data.size());
  sc_start();
  const uint64_t tlp_landed = f.mem.last_write_arrival;
  ASSERT_EQ(f.mem.bytes[0x801 + 599], 0xab);
  f.req.set_fidelity(Fidelity::Lt);
  std::fill(data.begin(), data.end(), uint8_t(0xcd));
  const uint64_t start = sc_time_stamp().value();
  const sc_time lt_sent = f.req.write(kBase + 0x801, data.data(), data.size());
  EXPECT_EQ(f.mem.bytes[0x801 + 599], 0xcd);  // in memory at once
  EXPECT_EQ(lt_sent, tlp_sent);
  const std::string log = f.ctx.log.take_memory();
  const std::string landed = "\"done_ps\":" + std::to_string(start + tlp_landed) + ",";
  EXPECT_NE(log.find("\"event\":\"dma\""), std::string::npos);
  EXPECT_NE(log.find(landed), std::string::npos) << "no dma event landing at " << start + tlp_landed;
  EXPECT_EQ(f.req.direct_writes(), 1u);
}

TEST(Dmi, LtWhatFollowsADirectWriteLeavesAfterItOnTheDevicesLink) {
  Fabric f;
  std::vector<uint8_t> data(600, 0xab);
  Result r;
  // A posted write of five TLPs, then at once a read: its request queues behind them.
  auto write_then_read = [&] {
    const uint64_t start = sc_time_stamp().value();
    uint64_t done_at = 0;
    f.req.write(kBase + 0x801, data.data(), data.size());
    f.req.read(kBase + 0x40, 64, [&](Result&& res) {
      done_at = f.ctx.local_ps();
      r = std::move(res);
    });
    sc_start();
    return done_at - start;
  };
  const uint64_t tlp_time = write_then_read();
  Result alone;
  const uint64_t read_alone = f.read(kBase + 0x40, 64, &alone);
  EXPECT_GT(tlp_time, read_alone + 100000);  // 600 bytes on a Gen3 x4 link: over 100 ns
  f.req.set_fidelity(Fidelity::Lt);
  EXPECT_EQ(write_then_read(), tlp_time);
  EXPECT_EQ(r.data[63], uint8_t((0x40 + 63) * 7 + 3));
  EXPECT_EQ(f.req.direct_writes(), 1u);
  EXPECT_EQ(f.req.direct_reads(), 1u);
  // The kernel is behind the device's local time (the read completed on its quantum keeper)
  // and the write has not left yet at the kernel's time: a read issued now still waits. Once
  // the time has passed, a read is timed as on an idle link again.
  EXPECT_GT(f.read(kBase + 0x40, 64, &alone), read_alone);
  sc_start(sc_time(1, SC_US));
  EXPECT_EQ(f.read(kBase + 0x40, 64, &alone), read_alone);
}

TEST(Dmi, RefusedAndInvalidatedRangesTakeTheTlpPath) {
  Fabric f;
  f.req.set_fidelity(Fidelity::Lt);
  Result r;
  f.read(kBase + 0x10, 8, &r);
  f.read(kBase + 0x20, 8, &r);
  EXPECT_EQ(f.dmi_requests, 1u);  // one grant for the page, cached
  // Outside the memory: refused for its page (cached), the read goes as TLPs and gets UR.
  f.read(kBase + kSize + 0x10, 8, &r);
  f.read(kBase + kSize + 0x20, 8, &r);
  EXPECT_EQ(r.outcome, Outcome::UR);
  EXPECT_EQ(f.dmi_requests, 2u);
  EXPECT_EQ(f.req.direct_reads(), 2u);
  // The memory withdraws its grants: the next read asks again.
  f.mem.port.invalidate_dmi(kBase, kBase + kSize);
  f.read(kBase + 0x30, 8, &r);
  EXPECT_EQ(f.dmi_requests, 3u);
  EXPECT_EQ(r.outcome, Outcome::SC);
  // The lower link goes down: its grants go, and a read is a TLP the link drops (timeout).
  f.lower.set_up(false);
  f.read(kBase + 0x40, 8, &r);
  EXPECT_EQ(r.outcome, Outcome::Timeout);
  EXPECT_EQ(f.req.direct_reads(), 3u);
}
