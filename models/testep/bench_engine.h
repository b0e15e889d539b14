// The test endpoint's pcie-bench engine (docs/timing.md, Calibration): runs pcie-bench's DMA
// experiments (Neugebauer et al., SIGCOMM 2018, §4) against host memory, programmed through
// BAR0 registers at 0x100 (below) by a scenario or from C++:
//   LAT_RD   one read at a time: each transaction's latency, issue to last completion byte;
//   BW_RD    reads with up to OUTSTANDING in flight: the time from the first issue to the last
//            completion;
//   BW_WR    posted writes back to back: the time until the last one has left the device;
//   LAT_WRRD a write, then a read of the same bytes: issue of the write to the read's data.
// Transaction i uses host address HOST + (i mod (WINDOW / SIZE)) × SIZE: sequential through
// the window, as pcie-bench's "Seq" pattern. Before each request the engine spends its issue
// time, test_endpoint.bench.{rd,wr}_issue_ps plus ..._line_ps per 64 bytes, one request after
// another (the DMA engine's issue rate). Everything is simulated time: deterministic.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tlm/requester.h"
#include "tlm/sim_context.h"

namespace dpusim::testep {

// BAR0 offsets of the engine's registers (region "bench").
inline constexpr uint32_t TEP_BENCH_BASE = 0x100;
inline constexpr uint32_t TEP_BENCH_CTRL = 0x100;      // W: bit 0 start, bits 3:1 the test
inline constexpr uint32_t TEP_BENCH_SIZE = 0x104;      // RW: bytes per transaction, 1..4096
inline constexpr uint32_t TEP_BENCH_COUNT = 0x108;     // RW: transactions, 1..2^20
inline constexpr uint32_t TEP_BENCH_WINDOW = 0x10c;    // RW: bytes of host memory, SIZE..2^20
inline constexpr uint32_t TEP_BENCH_OUTSTANDING = 0x110;  // RW: reads in flight (BW_RD), 1..256
inline constexpr uint32_t TEP_BENCH_HOST_LO = 0x114;   // RW: the window's host address
inline constexpr uint32_t TEP_BENCH_HOST_HI = 0x118;
inline constexpr uint32_t TEP_BENCH_STATUS = 0x11c;    // RO: bit 0 busy, 1 done, 2 error
inline constexpr uint32_t TEP_BENCH_ELAPSED_LO = 0x120;  // RO: ps, start to the last transaction's end
inline constexpr uint32_t TEP_BENCH_ELAPSED_HI = 0x124;
inline constexpr uint32_t TEP_BENCH_LAT_MIN = 0x128;   // RO: ns (LAT tests), 0xffffffff if above
inline constexpr uint32_t TEP_BENCH_LAT_MED = 0x12c;   //     lower median of the transactions'
inline constexpr uint32_t TEP_BENCH_LAT_MAX = 0x130;
inline constexpr uint32_t TEP_BENCH_DONE = 0x134;      // RO: transactions completed
inline constexpr uint32_t TEP_BENCH_END = 0x138;

enum class BenchTest : uint32_t { LatRd = 0, BwRd = 1, BwWr = 2, LatWrRd = 3 };
inline constexpr uint32_t TEP_BENCH_STATUS_BUSY = 1u << 0, TEP_BENCH_STATUS_DONE = 1u << 1,
                          TEP_BENCH_STATUS_ERROR = 1u << 2;

class BenchEngine {
 public:
  using After = std::function<void(const sc_core::sc_time&, std::function<void()>)>;
  BenchEngine(pcie::SimContext& ctx, std::string name, pcie::Requester& dma, After after,
              std::function<bool()> bus_master);

  void read(uint64_t off, uint8_t* out, size_t n);
  void write(uint64_t off, const uint8_t* in, size_t n);
  // Per-transaction latencies of the last LAT test, in ps, in order.
  const std::vector<uint64_t>& latencies() const { return lat_; }
  uint64_t elapsed_ps() const { return elapsed_ps_; }

 private:
  void write_reg(uint32_t off, uint32_t value);
  void start(uint32_t ctrl);
  uint64_t address(uint64_t i) const;
  sc_core::sc_time issue_time(bool write) const;
  void read_one(uint64_t addr, uint32_t size, std::function<void(bool)> then);
  void lat_next();
  void bw_rd_fill();
  void bw_wr_next();
  void transaction_done(bool ok);
  void finish(bool ok);
  uint32_t& reg(uint32_t off) { return regs_[(off - TEP_BENCH_BASE) / 4]; }

  pcie::SimContext& ctx_;
  std::string name_;
  pcie::Requester& dma_;
  After after_;
  std::function<bool()> bus_master_;
  uint32_t regs_[(TEP_BENCH_END - TEP_BENCH_BASE) / 4] = {};
  BenchTest test_ = BenchTest::LatRd;
  uint64_t start_ps_ = 0, elapsed_ps_ = 0;
  uint64_t issued_ = 0, done_ = 0, in_flight_ = 0;
  bool issuing_ = false, failed_ = false;
  std::vector<uint8_t> data_;  // what BW_WR and LAT_WRRD write
  std::vector<uint64_t> lat_;
};

}  // namespace dpusim::testep
