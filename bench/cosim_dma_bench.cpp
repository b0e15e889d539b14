// dpusim-bench-cosim-dma: DMA copies per wall second through the DMA endpoint whose logic is
// RTL (models/rtl/dma: hdl/rtl_dma.sv verilated, behind its hard IP core; docs/cosim.md) beside
// the C++ test endpoint's DMA engine (models/testep) doing the same work.
//
//   ./dpusim bench cosim [--copy-bytes N] [--seconds S]     (after the fp8 unit's table)
//
// Each endpoint sits on its own link to its own root complex (tests/cpp/rtl/host_script.h), set
// up as a driver would (Max_Payload_Size 256, Max_Read_Request_Size 512, MSI-X vector 0), and a
// host thread repeats copies of N bytes (default 4096) of host memory to host memory, each
// waited for by its MSI-X, until S seconds (default 0.5) of wall time have passed:
//   - RTL: one copy programmed by MMIO (source, destination, length, doorbell);
//   - C++: the test endpoint's engine has device memory on its far side, so a copy is two of its
//     transfers, host to device memory and back, each programmed and waited for the same way:
//     the same read and write TLPs on the link, twice the MMIO and MSI-X.
// Printed: copies per wall second and per process CPU second, the simulated time a copy takes,
// simulated seconds per wall second, and for the RTL its clock cycles per copy. The event log
// is written to /dev/null, as a run writes its log. Wall-clock time is read in benchmarks only.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "host_script.h"
#include "rtl/dma/rtl_dma_endpoint.h"
#include "rtl/dma/rtl_dma_regs.h"
#include "testep/test_endpoint.h"

namespace {

using namespace dpusim;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kBar0 = 0xc0000000;
constexpr uint64_t kTimeoutPs = 1'000'000'000;  // 1 ms of simulated time for one copy

struct Options {
  uint32_t copy_bytes = 4096;
  double seconds = 0.5;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "dpusim-bench-cosim-dma: %s\nusage: dpusim-bench-cosim-dma [--copy-bytes N] [--seconds S]\n",
               problem.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("missing value after " + arg);
    const char* value = argv[++i];
    char* end = nullptr;
    if (arg == "--copy-bytes") {
      const unsigned long long n = std::strtoull(value, &end, 10);
      // The test endpoint's device memory (BAR2, 1 MiB) bounds the C++ side's copy.
      if (*end != '\0' || n < 1 || n > testep::kBar2Size) usage("--copy-bytes must be a whole number in 1..1048576");
      o.copy_bytes = uint32_t(n);
    } else if (arg == "--seconds") {
      o.seconds = std::strtod(value, &end);
      if (*end != '\0' || !(o.seconds > 0)) usage("--seconds must be a positive number");
    } else {
      usage("unknown argument " + arg);
    }
  }
  return o;
}

struct Figure {
  uint64_t copies = 0;
  double wall_s = 0, cpu_s = 0;
  uint64_t sim_ps = 0;  // simulated time of the copies
};

// Runs `copy` (one copy, in the script's thread) until `seconds` of wall time have passed.
Figure measure(test::HostScript& hs, double seconds, const std::function<void()>& copy) {
  Figure f;
  hs.run([&] {
    const auto start = Clock::now();
    const std::clock_t cpu_start = std::clock();
    const uint64_t sim_start = sc_core::sc_time_stamp().value();
    do {
      copy();
      ++f.copies;
      f.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    } while (f.wall_s < seconds);
    f.cpu_s = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    f.sim_ps = sc_core::sc_time_stamp().value() - sim_start;
  });
  sc_core::sc_start();
  if (!hs.done()) {
    std::fprintf(stderr, "dpusim-bench-cosim-dma: %s's copies did not finish\n", hs.name());
    std::exit(1);
  }
  return f;
}

void fail(const char* what, uint32_t status) {
  std::fprintf(stderr, "dpusim-bench-cosim-dma: %s (status %#x)\n", what, status);
  std::exit(1);
}

// Waits for the next MSI; false if none came in time.
bool wait_msi(test::HostScript& hs) { return hs.wait_msis(hs.host.msis().size() + 1, kTimeoutPs); }

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  const Options o = parse(argc, argv);
  pcie::SimContext ctx(1);
  ctx.log.open_file("/dev/null");
  auto* rtl_ep = new rtl::dma::RtlDmaEndpoint("rtl_ep", ctx);
  auto* rtl_hs = new test::HostScript("rtl_host", ctx, *rtl_ep);
  auto* cpp_ep = new testep::TestEndpoint("cpp_ep", ctx);
  auto* cpp_hs = new test::HostScript("cpp_host", ctx, *cpp_ep);
  const uint32_t n = o.copy_bytes;

  // Source and destination, filled once; every copy rewrites the same destination.
  auto buffers = [n](test::HostScript& hs) {
    host::HostMemory& mem = hs.host.memory;
    const uint64_t src = mem.alloc(n, 4096), dst = mem.alloc(n, 4096);
    std::vector<uint8_t> data(n);
    for (uint32_t i = 0; i < n; ++i) data[i] = uint8_t(i * 131 + 7);
    mem.write(src, data.data(), n);
    return std::make_pair(src, dst);
  };
  auto check = [n](test::HostScript& hs, uint64_t src, uint64_t dst, const char* who) {
    std::vector<uint8_t> a(n), b(n);
    hs.host.memory.read(src, a.data(), n);
    hs.host.memory.read(dst, b.data(), n);
    if (a != b) {
      std::fprintf(stderr, "dpusim-bench-cosim-dma: the %s copy's bytes differ\n", who);
      std::exit(1);
    }
  };

  uint64_t rtl_src = 0, rtl_dst = 0, cpp_src = 0, cpp_dst = 0;
  rtl_hs->run([&] {
    rtl_hs->enable(kBar0, 256, 512);
    std::tie(rtl_src, rtl_dst) = buffers(*rtl_hs);
    using namespace rtl::dma;
    rtl_hs->write32(kBar0 + RTL_DMA_SRC_LO, uint32_t(rtl_src));
    rtl_hs->write32(kBar0 + RTL_DMA_SRC_HI, uint32_t(rtl_src >> 32));
    rtl_hs->write32(kBar0 + RTL_DMA_DST_LO, uint32_t(rtl_dst));
    rtl_hs->write32(kBar0 + RTL_DMA_DST_HI, uint32_t(rtl_dst >> 32));
    rtl_hs->write32(kBar0 + RTL_DMA_LEN, n);
    rtl_hs->write32(kBar0 + RTL_DMA_CTRL, RTL_DMA_CTRL_IRQ_EN);
  });
  cpp_hs->run([&] {
    cpp_hs->enable(kBar0, 256, 512);
    std::tie(cpp_src, cpp_dst) = buffers(*cpp_hs);
    using namespace testep;
    cpp_hs->write32(kBar0 + TEP_DMA_LOCAL, 0);
    cpp_hs->write32(kBar0 + TEP_DMA_LEN, n);
  });
  sc_core::sc_start();
  if (!rtl_hs->done() || !cpp_hs->done()) fail("the endpoints' set-up did not finish", 0);

  const Figure cpp = measure(*cpp_hs, o.seconds, [&] {
    using namespace testep;
    for (const bool to_host : {false, true}) {
      const uint64_t host = to_host ? cpp_dst : cpp_src;
      cpp_hs->write32(kBar0 + TEP_DMA_HOST_LO, uint32_t(host));
      cpp_hs->write32(kBar0 + TEP_DMA_HOST_HI, uint32_t(host >> 32));
      cpp_hs->write32(kBar0 + TEP_DMA_CTRL, TEP_DMA_CTRL_START | TEP_DMA_CTRL_IRQ | (to_host ? TEP_DMA_CTRL_TO_HOST : 0));
      if (!wait_msi(*cpp_hs)) fail("no MSI-X from the test endpoint's transfer", cpp_hs->read32(kBar0 + TEP_DMA_STATUS));
      const uint32_t status = cpp_hs->read32(kBar0 + TEP_DMA_STATUS);
      if (status != TEP_DMA_STATUS_DONE) fail("the test endpoint's transfer failed", status);
      cpp_hs->write32(kBar0 + TEP_DMA_STATUS, status);
    }
  });
  check(*cpp_hs, cpp_src, cpp_dst, "C++");

  const uint64_t cycles_before = rtl_ep->cycles();
  const Figure rtl = measure(*rtl_hs, o.seconds, [&] {
    using namespace rtl::dma;
    rtl_hs->write32(kBar0 + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START);
    if (!wait_msi(*rtl_hs)) fail("no MSI-X from the RTL block's copy", rtl_hs->read32(kBar0 + RTL_DMA_STATUS));
    const uint32_t status = rtl_hs->read32(kBar0 + RTL_DMA_STATUS);
    if (status != RTL_DMA_STATUS_DONE) fail("the RTL block's copy failed", status);
    rtl_hs->write32(kBar0 + RTL_DMA_STATUS, status);
  });
  check(*rtl_hs, rtl_src, rtl_dst, "RTL");
  const double rtl_cycles = double(rtl_ep->cycles() - cycles_before) / double(rtl.copies);

  std::printf("DMA copies of %u bytes, host memory to host memory, MPS 256, MRRS 512, %.2f s each\n", n, o.seconds);
  std::printf("RTL block: verilated hdl/rtl_dma.sv, clock %llu ps; C++: the test endpoint's engine, two transfers a copy\n",
              static_cast<unsigned long long>(rtl_ep->clock_period().value()));
  std::printf("%-22s %12s %12s %14s %15s %12s\n", "", "copies", "copies", "simulated", "simulated s", "RTL cycles");
  std::printf("%-22s %12s %12s %14s %15s %12s\n", "model", "per wall s", "per CPU s", "us a copy", "per wall s", "a copy");
  auto row = [](const char* label, const Figure& f) {
    std::printf("%-22s %12.0f %12.0f %14.2f %15.2e", label, double(f.copies) / f.wall_s,
                double(f.copies) / (f.cpu_s > 0 ? f.cpu_s : f.wall_s), double(f.sim_ps) / double(f.copies) / 1e6,
                double(f.sim_ps) * 1e-12 / f.wall_s);
  };
  row("C++ test endpoint", cpp);
  std::printf(" %12s\n", "-");
  row("RTL rtl_dma", rtl);
  std::printf(" %12.0f\n", rtl_cycles);
  return 0;
}
