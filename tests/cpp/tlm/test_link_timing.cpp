// Link serialisation (PCIe r5.0 §4.2): a TLP occupies a direction for
// (header + payload + 8) × 8 × encoding / (rate × lanes), queued in order, full duplex.
// The expected times are computed here from that formula, independently of timing.cpp.
#include <gtest/gtest.h>

#include <systemc>

#include <vector>

#include "tlm/timing.h"
#include "tlm/link.h"
#include "tlm/port.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"

using namespace dpusim::pcie;
using namespace sc_core;
namespace tlp = dpusim::tlp;

namespace {

// ps for `bytes` at `mtps` per lane, `lanes` lanes, encoding num/den: ceil(bytes·8·num·10^6 / (den·mtps·lanes)).
uint64_t expect_ps(uint64_t bytes, uint64_t mtps, uint64_t lanes, uint64_t num, uint64_t den) {
  const unsigned __int128 n = (unsigned __int128)bytes * 8 * num * 1000000;
  const unsigned __int128 d = (unsigned __int128)den * mtps * lanes;
  return uint64_t((n + d - 1) / d);
}

struct LinkBench {
  SimContext ctx{1};
  Port upper{"upper"}, lower{"lower"};
  Link link;
  Requester writer;
  std::vector<uint64_t> arrivals_down, arrivals_up;

  LinkBench(unsigned gen, unsigned width)
      : link("link", ctx, timing::link_host_gen, timing::link_host_width, [] { return 0; }),
        writer("writer", ctx, [this](Tlp& t) { return upper.send(t); }, [] { return uint16_t(0x0100); }) {
    ctx.log.open_memory();
    ctx.timing.set("link.host.gen", gen);
    ctx.timing.set("link.host.width", width);
    ctx.timing.set("link.propagation_ps", 0);
    writer.max_payload_size = [] { return 256u; };
    link.connect(upper, lower, -1, -1);
    lower.set_receiver([this](Tlp& t) { arrivals_down.push_back(sc_time_stamp().value()); t.release(); });
    upper.set_receiver([this](Tlp& t) { arrivals_up.push_back(sc_time_stamp().value()); t.release(); });
  }
};

}  // namespace

TEST(LinkTiming, Gen1x1_4KiBWriteAndTwoAtOnceAndReverseTraffic) {
  LinkBench b(1, 1);
  std::vector<uint8_t> data(4096, 0x5a);
  const uint64_t per_tlp = expect_ps(12 + 256 + 8, 2500, 1, 10, 8);  // 276 B: 1.104 us
  ASSERT_EQ(per_tlp, 1104000u);
  const uint64_t t = 16 * per_tlp;  // 4 KiB at MPS 256: 16 TLPs
  b.writer.write(0x1000, data.data(), data.size());
  b.writer.write(0x10000, data.data(), data.size());
  // Reverse direction, issued at 1 us: a 3DW MWr of one DW (24 bytes) is not delayed.
  tlp::Header h;
  h.type = tlp::Type::MWr;
  h.address = 0x40;
  h.length_dw = 1;
  sc_start(sc_time::from_value(1000000));
  b.lower.send(*b.ctx.pool.alloc(h, 4));
  sc_start();
  ASSERT_EQ(b.arrivals_down.size(), 32u);
  EXPECT_EQ(b.arrivals_down[15], t);
  EXPECT_EQ(b.arrivals_down[31], 2 * t);
  ASSERT_EQ(b.arrivals_up.size(), 1u);
  EXPECT_EQ(b.arrivals_up[0], 1000000 + expect_ps(12 + 4 + 8, 2500, 1, 10, 8));
}

TEST(LinkTiming, Gen4x16_4KiBWrite) {
  LinkBench b(4, 16);
  std::vector<uint8_t> data(4096, 1);
  const uint64_t per_tlp = expect_ps(12 + 256 + 8, 16000, 16, 130, 128);
  b.writer.write(0x2000, data.data(), data.size());
  b.writer.write(0x3000, data.data(), data.size());
  sc_start();
  ASSERT_EQ(b.arrivals_down.size(), 32u);
  EXPECT_EQ(b.arrivals_down[15], 16 * per_tlp);
  EXPECT_EQ(b.arrivals_down[31], 32 * per_tlp);
  EXPECT_EQ(per_tlp, 8760u);  // 276 × 8 × 130/128 bits / 256 Gb/s = 8.75977 ns, rounded up
}

TEST(LinkTiming, Above4GiBUsesThe16ByteHeader) {
  LinkBench b(2, 4);
  std::vector<uint8_t> data(128, 1);
  b.writer.write(0x100000000ull, data.data(), data.size());
  sc_start();
  ASSERT_EQ(b.arrivals_down.size(), 1u);
  EXPECT_EQ(b.arrivals_down[0], expect_ps(16 + 128 + 8, 5000, 4, 10, 8));
}

// pcie-bench's Gen3 x8 (docs/timing.md, Profiles): link.dllp_share_ppm takes the share of the
// ACK and flow-control DLLPs and SKIP ordered sets, 8/203 + 8/203 + 4/1538 at MPS 256 (PCIe
// r5.0 Tables 2-46..48, 3-7..9): a TLP's time is divided by (1 - share). What is left for TLPs
// is pcie-model's 57.88 Gb/s; the default share (0) leaves the arithmetic above unchanged.
TEST(LinkTiming, Gen3x8_DllpShareLeavesPcieBenchTlpBandwidth) {
  LinkBench b(3, 8);
  EXPECT_EQ(b.ctx.timing.get(timing::link_dllp_share_ppm), 0u);
  b.ctx.timing.set("link.dllp_share_ppm", 81419);
  std::vector<uint8_t> data(2048, 1);
  b.writer.write(0x100000000ull, data.data(), data.size());  // 8 MWr of 16 + 256 + 8 bytes
  sc_start();
  // ceil(280 × 8 × 130 × 10^6 × 10^6 / (128 × 8000 × 8 × (10^6 - 81419)))
  const uint64_t per_tlp = 38698;
  const unsigned __int128 n = (unsigned __int128)280 * 8 * 130 * 1000000 * 1000000;
  const unsigned __int128 d = (unsigned __int128)128 * 8000 * 8 * (1000000 - 81419);
  ASSERT_EQ(uint64_t((n + d - 1) / d), per_tlp);
  ASSERT_EQ(b.arrivals_down.size(), 8u);
  EXPECT_EQ(b.arrivals_down[7], 8 * per_tlp);
  const double gbps = 280.0 * 8 / per_tlp * 1000;  // bits per ps -> Gb/s
  EXPECT_NEAR(gbps, 57.88, 57.88 * 0.001);
}
