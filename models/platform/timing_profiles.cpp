#include "platform/timing_profiles.h"

#include <string>

namespace dpusim::platform {

namespace {

// pcie-bench (Neugebauer et al., SIGCOMM 2018; github.com/pcie-bench/data): an NFP6000 on a
// PCIe Gen3 x8 root port, Max_Payload_Size 256. docs/timing.md derives every value. The two
// hosts' latency and bandwidth tables agree within 1.5 %, so one set of values serves both.
std::vector<std::pair<const char*, uint64_t>> pcie_bench_gen3x8() {
  return {{"link.host.gen", 3},
          {"link.host.width", 8},
          {"link.dsp.gen", 3},
          {"link.dsp.width", 8},
          {"link.dllp_share_ppm", 81419},
          {"switch.traversal_ps", 0},
          {"link.propagation_ps", 0},
          {"host.mem_read_ps", 502000},
          {"test_endpoint.bench.rd_issue_ps", 7000},
          {"test_endpoint.bench.rd_issue_line_ps", 9000},
          {"test_endpoint.bench.wr_issue_ps", 18000},
          {"test_endpoint.bench.wr_issue_line_ps", 3100}};
}

// The same system with another host read latency: the host-cache-cold and remote-NUMA runs of
// pcie-bench's data differ from the warm, local ones in the host's part of a read only.
std::vector<std::pair<const char*, uint64_t>> pcie_bench_gen3x8_host_read(uint64_t mem_read_ps) {
  auto values = pcie_bench_gen3x8();
  for (auto& [name, value] : values)
    if (std::string(name) == "host.mem_read_ps") value = mem_read_ps;
  return values;
}

}  // namespace

const std::vector<TimingPreset>& timing_presets() {
  static const std::vector<TimingPreset> presets = {
      {"doca-gen4x16", "the DOCA vnet_pci_dev app's Gen4 x16 ports; host latencies are estimates (the default)", {}},
      {"pcie-bench-e5-2620v3-gen3x8",
       "pcie-bench's NFP6000 on a Xeon E5-2620 v3 (Haswell) Gen3 x8 root port: its DMA latency tables",
       pcie_bench_gen3x8()},
      {"pcie-bench-e5-2630v4-gen3x8",
       "pcie-bench's NFP6000 on a Xeon E5-2630 v4 (Broadwell) Gen3 x8 root port: its DMA bandwidth tables",
       pcie_bench_gen3x8()},
      {"pcie-bench-e5-2620v3-gen3x8-cold",
       "the E5-2620 v3 system with the host's cache cold: its LAT_RD Cold runs (docs/timing.md)",
       pcie_bench_gen3x8_host_read(555000)},
      {"pcie-bench-e5-2630v4-gen3x8-remote",
       "the E5-2630 v4 system with the buffers on the other socket's memory: its s0-s1-s1 runs (docs/timing.md)",
       pcie_bench_gen3x8_host_read(596000)},
  };
  return presets;
}

const TimingPreset* find_timing_preset(const std::string& name) {
  for (const TimingPreset& p : timing_presets())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace dpusim::platform
