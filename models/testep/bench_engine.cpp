#include "testep/bench_engine.h"

#include <algorithm>
#include <string>

#include "testep/testep_timing.h"

namespace dpusim::testep {

BenchEngine::BenchEngine(pcie::SimContext& ctx, std::string name, pcie::Requester& dma, After after,
                         std::function<bool()> bus_master)
    : ctx_(ctx), name_(std::move(name)), dma_(dma), after_(std::move(after)), bus_master_(std::move(bus_master)) {
  reg(TEP_BENCH_SIZE) = 64;
  reg(TEP_BENCH_COUNT) = 1;
  reg(TEP_BENCH_WINDOW) = 8192;
  reg(TEP_BENCH_OUTSTANDING) = 1;
}

void BenchEngine::read(uint64_t off, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t a = off + i;
    out[i] = uint8_t(regs_[a / 4] >> (8 * (a & 3)));
  }
}

void BenchEngine::write(uint64_t off, const uint8_t* in, size_t n) {
  for (uint32_t dw = uint32_t(off) & ~3u; dw < off + n && dw < TEP_BENCH_END - TEP_BENCH_BASE; dw += 4) {
    uint32_t v = regs_[dw / 4];
    for (unsigned b = 0; b < 4; ++b) {
      const uint64_t a = dw + b;
      if (a >= off && a < off + n) v = (v & ~(0xffu << (8 * b))) | uint32_t(in[a - off]) << (8 * b);
    }
    write_reg(TEP_BENCH_BASE + dw, v);
  }
}

void BenchEngine::write_reg(uint32_t off, uint32_t value) {
  if (off >= TEP_BENCH_STATUS) return;  // results are read-only
  if (reg(TEP_BENCH_STATUS) & TEP_BENCH_STATUS_BUSY) {
    ctx_.event(name_, "bench_ignored").hex("reg", off).str("reason", "a test is running");
    return;
  }
  if (off == TEP_BENCH_CTRL) {
    if (value & 1) start(value);
    return;
  }
  reg(off) = value;
}

void BenchEngine::start(uint32_t ctrl) {
  const uint32_t test = (ctrl >> 1) & 7, size = reg(TEP_BENCH_SIZE), count = reg(TEP_BENCH_COUNT);
  const uint32_t window = reg(TEP_BENCH_WINDOW), outstanding = reg(TEP_BENCH_OUTSTANDING);
  std::string refusal;
  auto outside = [&refusal](const char* field, uint32_t v, const std::string& range) {
    refusal = std::string(field) + " " + std::to_string(v) + " outside " + range;
  };
  if (test > 3) outside("test", test, "0..3 (LAT_RD, BW_RD, BW_WR, LAT_WRRD)");
  else if (size < 1 || size > 4096) outside("SIZE", size, "1..4096 bytes");
  else if (count < 1 || count > (1u << 20)) outside("COUNT", count, "1..1048576 transactions");
  else if (window < size || window > (1u << 20)) outside("WINDOW", window, "SIZE..1048576 bytes");
  else if (outstanding < 1 || outstanding > 256) outside("OUTSTANDING", outstanding, "1..256");
  else if (!bus_master_()) refusal = "bus master disabled";
  for (uint32_t r = TEP_BENCH_STATUS; r < TEP_BENCH_END; r += 4) reg(r) = 0;
  if (!refusal.empty()) {
    ctx_.event(name_, "bench_error").str("reason", refusal);
    reg(TEP_BENCH_STATUS) = TEP_BENCH_STATUS_ERROR;
    return;
  }
  test_ = BenchTest(test);
  reg(TEP_BENCH_STATUS) = TEP_BENCH_STATUS_BUSY;
  start_ps_ = ctx_.now_ps();
  issued_ = done_ = in_flight_ = 0;
  issuing_ = failed_ = false;
  lat_.clear();
  data_.assign(size, 0xa5);
  ctx_.event(name_, "bench_start").u64("test", test).u64("size", size).u64("count", count).u64("outstanding", outstanding);
  if (test_ == BenchTest::BwRd) bw_rd_fill();
  else if (test_ == BenchTest::BwWr) bw_wr_next();
  else lat_next();
}

uint64_t BenchEngine::address(uint64_t i) const {
  const uint64_t host = uint64_t(regs_[(TEP_BENCH_HOST_HI - TEP_BENCH_BASE) / 4]) << 32 |
                        regs_[(TEP_BENCH_HOST_LO - TEP_BENCH_BASE) / 4];
  const uint64_t size = regs_[(TEP_BENCH_SIZE - TEP_BENCH_BASE) / 4];
  const uint64_t slots = regs_[(TEP_BENCH_WINDOW - TEP_BENCH_BASE) / 4] / size;
  return host + (i % slots) * size;
}

sc_core::sc_time BenchEngine::issue_time(bool write) const {
  const uint64_t lines = (regs_[(TEP_BENCH_SIZE - TEP_BENCH_BASE) / 4] + 63) / 64;
  const uint64_t ps = write ? ctx_.timing.get(timing::bench_wr_issue_ps) + lines * ctx_.timing.get(timing::bench_wr_issue_line_ps)
                            : ctx_.timing.get(timing::bench_rd_issue_ps) + lines * ctx_.timing.get(timing::bench_rd_issue_line_ps);
  return sc_core::sc_time::from_value(ps);
}

// A read, done when its last completion has arrived.
void BenchEngine::read_one(uint64_t addr, uint32_t size, std::function<void(bool)> then) {
  dma_.read(addr, size, [then](pcie::Result&& r) { then(r.outcome == pcie::Outcome::SC); });
}

// LAT_RD and LAT_WRRD: one transaction at a time, its latency from the start of its issue.
void BenchEngine::lat_next() {
  const uint64_t i = issued_++, t0 = ctx_.now_ps(), addr = address(i);
  const uint32_t size = reg(TEP_BENCH_SIZE);
  auto read = [this, addr, size, t0] {
    after_(issue_time(false), [this, addr, size, t0] {
      read_one(addr, size, [this, t0](bool ok) {
        lat_.push_back(ctx_.now_ps() - t0);
        transaction_done(ok);
      });
    });
  };
  if (test_ == BenchTest::LatRd) {
    read();
    return;
  }
  after_(issue_time(true), [this, addr, read] {
    dma_.write(addr, data_.data(), data_.size());
    read();
  });
}

// BW_RD: a request issued every issue time while fewer than OUTSTANDING are in flight.
void BenchEngine::bw_rd_fill() {
  if (issuing_ || failed_ || issued_ >= reg(TEP_BENCH_COUNT) || in_flight_ >= reg(TEP_BENCH_OUTSTANDING)) return;
  issuing_ = true;
  ++in_flight_;
  const uint64_t addr = address(issued_++);
  after_(issue_time(false), [this, addr] {
    issuing_ = false;
    read_one(addr, reg(TEP_BENCH_SIZE), [this](bool ok) {
      --in_flight_;
      transaction_done(ok);
      bw_rd_fill();
    });
    bw_rd_fill();
  });
}

// BW_WR: posted writes one after another; the last one ends when its last TLP has left.
void BenchEngine::bw_wr_next() {
  const uint64_t addr = address(issued_++);
  after_(issue_time(true), [this, addr] {
    const sc_core::sc_time sent = dma_.write(addr, data_.data(), data_.size());
    if (issued_ < reg(TEP_BENCH_COUNT)) {
      ++done_;
      bw_wr_next();
    } else {
      after_(sent, [this] { transaction_done(true); });
    }
  });
}

void BenchEngine::transaction_done(bool ok) {
  if (!ok) failed_ = true;
  ++done_;
  reg(TEP_BENCH_DONE) = uint32_t(done_);
  const uint32_t count = reg(TEP_BENCH_COUNT);
  if (failed_ && in_flight_ == 0) return finish(false);
  if (done_ >= count) return finish(true);
  if (test_ == BenchTest::LatRd || test_ == BenchTest::LatWrRd) lat_next();
}

void BenchEngine::finish(bool ok) {
  elapsed_ps_ = ctx_.now_ps() - start_ps_;
  reg(TEP_BENCH_ELAPSED_LO) = uint32_t(elapsed_ps_);
  reg(TEP_BENCH_ELAPSED_HI) = uint32_t(elapsed_ps_ >> 32);
  if (!lat_.empty()) {
    std::vector<uint64_t> sorted = lat_;
    std::sort(sorted.begin(), sorted.end());
    auto ns = [](uint64_t ps) { return uint32_t(std::min<uint64_t>(ps / 1000, 0xffffffffu)); };
    reg(TEP_BENCH_LAT_MIN) = ns(sorted.front());
    reg(TEP_BENCH_LAT_MED) = ns(sorted[(sorted.size() - 1) / 2]);
    reg(TEP_BENCH_LAT_MAX) = ns(sorted.back());
  }
  reg(TEP_BENCH_STATUS) = ok ? TEP_BENCH_STATUS_DONE : TEP_BENCH_STATUS_ERROR;
  ctx_.event(name_, "bench_done").boolean("ok", ok).u64("elapsed_ps", elapsed_ps_).u64("done", done_);
}

}  // namespace dpusim::testep
