// The timing profile: every latency of the platform is a named parameter with a documented
// default and source (docs/timing.md). Latency studies change the profile, never the code; a
// scenario may override one parameter at run time (`sim.set_cost(name, value)`), and models
// read the current value each time they use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::pcie {

// X(id, "name", default, min, max, "unit")
#define DPUSIM_TIMING_PARAMS(X)                                                            \
  X(link_host_gen, "link.host.gen", 4, 1, 6, "PCIe generation")                             \
  X(link_host_width, "link.host.width", 16, 1, 32, "lanes")                                 \
  X(link_dsp_gen, "link.dsp.gen", 4, 1, 6, "PCIe generation")                               \
  X(link_dsp_width, "link.dsp.width", 16, 1, 32, "lanes")                                   \
  X(link_propagation_ps, "link.propagation_ps", 2000, 0, 1000000000, "ps")                  \
  X(switch_traversal_ps, "switch.traversal_ps", 100000, 0, 1000000000, "ps")                \
  X(cpl_timeout_ps, "cpl_timeout_ps", 50000000000ull, 1, 100000000000000ull, "ps")          \
  X(host_mem_read_ps, "host.mem_read_ps", 100000, 0, 1000000000, "ps")                      \
  X(slot_link_train_ps, "slot.link_train_ps", 10000000000ull, 0, 100000000000000ull, "ps")  \
  X(test_ep_service_ps, "test_endpoint.service_ps", 50000, 0, 1000000000, "ps")             \
  X(test_ep_dma_setup_ps, "test_endpoint.dma_setup_ps", 100000, 0, 1000000000, "ps")                \
  X(rtl_fp8_clock_ps, "rtl.fp8.clock_ps", 1000, 2, 1000000000, "ps")                                 \
  DPUSIM_TIMING_PARAMS_VNET(X)                                                                       \
  DPUSIM_TIMING_PARAMS_PCIEHP(X)                                                                     \
  X(net_wire_propagation_ps, "net.wire.propagation_ps", 5000, 0, 1000000000000ull, "ps")

// The virtio-net emulation app (models/vnet) and its firmware datapath; docs/timing.md gives
// each default's source. `ms` below is 10^9 ps.
#define DPUSIM_TIMING_PARAMS_VNET(X)                                                                  \
  X(vnet_pe1_config_ps, "vnet.pe1.config_ps", 2000000, 0, 1000000000000ull, "ps")                    \
  X(vnet_pe1_mmio_read_ps, "vnet.pe1.mmio_read_ps", 2000000, 0, 1000000000000ull, "ps")              \
  X(vnet_pe1_mmio_write_ps, "vnet.pe1.mmio_write_ps", 1000000, 0, 1000000000000ull, "ps")            \
  X(vnet_pe1_bound_ps, "vnet.pe1.bound_ps", 1000000000, 1, 100000000000000ull, "ps")                 \
  X(vnet_fw_mmio_ps, "vnet.fw.mmio_ps", 500000, 0, 1000000000000ull, "ps")                           \
  X(vnet_worker_wakeup_ps, "vnet.worker.wakeup_ps", 10000000, 0, 1000000000000ull, "ps")             \
  X(vnet_worker_idle_wait_ps, "vnet.worker.idle_wait_ps", 10000000000ull, 1, 1000000000000ull, "ps")  \
  X(vnet_worker_progress_ps, "vnet.worker.progress_ps", 20000000, 0, 1000000000000ull, "ps")          \
  X(vnet_work_engine_start_ps, "vnet.work.engine_start_ps", 10000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_vq_create_ps, "vnet.work.vq_create_ps", 1000000000, 0, 100000000000000ull, "ps")        \
  X(vnet_work_io_ctx_create_ps, "vnet.work.io_ctx_create_ps", 5000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_vq_set_conf_ps, "vnet.work.vq_set_conf_ps", 2000000000, 0, 100000000000000ull, "ps")     \
  X(vnet_work_vq_start_ps, "vnet.work.vq_start_ps", 30000000000ull, 0, 100000000000000ull, "ps")      \
  X(vnet_work_vq_group_enable_ps, "vnet.work.vq_group_enable_ps", 2000000000, 0, 100000000000000ull, "ps") \
  X(vnet_work_engine_enable_ps, "vnet.work.engine_enable_ps", 10000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_counters_ps, "vnet.work.counters_ps", 2000000000, 0, 100000000000000ull, "ps")          \
  X(vnet_work_stats_list_ps, "vnet.work.stats_list_ps", 1000000000, 0, 100000000000000ull, "ps")      \
  X(vnet_work_vq_group_disable_ps, "vnet.work.vq_group_disable_ps", 2000000000, 0, 100000000000000ull, "ps") \
  X(vnet_work_engine_disable_ps, "vnet.work.engine_disable_ps", 5000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_vq_stop_ps, "vnet.work.vq_stop_ps", 2000000000, 0, 100000000000000ull, "ps")            \
  X(vnet_work_io_ctx_destroy_ps, "vnet.work.io_ctx_destroy_ps", 2000000000, 0, 100000000000000ull, "ps") \
  X(vnet_work_vq_destroy_ps, "vnet.work.vq_destroy_ps", 1000000000, 0, 100000000000000ull, "ps")      \
  X(vnet_work_engine_stop_ps, "vnet.work.engine_stop_ps", 5000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_engine_destroy_ps, "vnet.work.engine_destroy_ps", 10000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_create_device_ps, "vnet.work.create_device_ps", 375000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_destroy_device_ps, "vnet.work.destroy_device_ps", 100000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_work_register_reset_ps, "vnet.work.register_reset_ps", 10000000, 0, 100000000000000ull, "ps") \
  X(vnet_speed_bounce_ps, "vnet.speed_change.bounce_ps", 50000000000ull, 0, 100000000000000ull, "ps") \
  X(vnet_ctrl_req_delay_ps, "vnet.ctrl_req_delay_ps", 400000000000ull, 0, 100000000000000ull, "ps")   \
  X(vnet_mq_qp_yield_ps, "vnet.mq.qp_yield_ps", 1000000000, 0, 100000000000000ull, "ps")              \
  X(vnet_cleanup_poll_ps, "vnet.cleanup.poll_ps", 1000000000, 1, 100000000000000ull, "ps")            \
  X(vnet_dp_tx_frame_ps, "vnet.dp.tx_frame_ps", 1000000, 0, 1000000000000ull, "ps")                   \
  X(vnet_dp_rx_frame_ps, "vnet.dp.rx_frame_ps", 1000000, 0, 1000000000000ull, "ps")                   \
  X(vnet_dp_rx_fifo_frames, "vnet.dp.rx_fifo_frames", 256, 1, 1000000, "frames")                  \
  X(vnet_main_loop_ps, "vnet.main_loop_ps", 10000000, 1, 1000000000000ull, "ps")                      \
  X(vnet_fw_acg_refill_ps, "vnet.fw.acg_refill_ps", 0, 0, 100000000000000ull, "ps")

// The host's pciehp driver (pybind/dpusim/drivers/pciehp.py): the delays Linux uses
// (drivers/pci/hotplug/pciehp_*.c, drivers/pci/pci.c). Python reads them with sim.cost(); they
// live here so that a platform document or a study can change them like any other latency.
#define DPUSIM_TIMING_PARAMS_PCIEHP(X)                                                                   \
  X(host_pciehp_button_ps, "host.pciehp.button_ps", 5000000000000ull, 0, 100000000000000ull, "ps")       \
  X(host_pciehp_cmd_timeout_ps, "host.pciehp.cmd_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps") \
  X(host_pciehp_link_detect_ps, "host.pciehp.link_detect_ps", 20000000000ull, 0, 100000000000000ull, "ps") \
  X(host_pciehp_link_poll_ps, "host.pciehp.link_poll_ps", 1000000000, 1, 100000000000000ull, "ps")       \
  X(host_pciehp_link_timeout_ps, "host.pciehp.link_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps") \
  X(host_pciehp_link_settle_ps, "host.pciehp.link_settle_ps", 100000000000ull, 0, 100000000000000ull, "ps") \
  X(host_pciehp_dev_poll_ps, "host.pciehp.dev_poll_ps", 20000000000ull, 1, 100000000000000ull, "ps")      \
  X(host_pciehp_dev_timeout_ps, "host.pciehp.dev_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps") \
  X(host_pciehp_power_off_settle_ps, "host.pciehp.power_off_settle_ps", 1000000000000ull, 0, 100000000000000ull, "ps")

enum class TimingId : unsigned {
#define DPUSIM_TIMING_ENUM(id, name, def, lo, hi, unit) id,
  DPUSIM_TIMING_PARAMS(DPUSIM_TIMING_ENUM)
#undef DPUSIM_TIMING_ENUM
      count
};

struct TimingParamInfo {
  const char* name;
  uint64_t default_value, min, max;
  const char* unit;
};

class TimingProfile {
 public:
  TimingProfile();
  uint64_t get(TimingId id) const { return values_[static_cast<unsigned>(id)]; }
  // Sets a parameter by name; throws std::invalid_argument naming the parameter, the value and
  // the allowed range when it is unknown or out of range.
  void set(const std::string& name, uint64_t value);
  static const std::vector<TimingParamInfo>& params();
  static int find(const std::string& name);  // index or -1

 private:
  std::vector<uint64_t> values_;
};

// PCIe link arithmetic (PCIe r5.0 §4.2): transfer rate and line encoding of a generation.
struct LinkRate {
  uint32_t mtps;     // mega-transfers per second per lane
  uint32_t enc_num;  // encoding overhead: bits on the wire ...
  uint32_t enc_den;  // ... per this many data bits (10/8 or 130/128)
};
LinkRate link_rate(unsigned gen);
// Bytes a TLP occupies on the link: header + payload (+ ECRC) + 8 bytes of framing, sequence
// number and LCRC (PCIe §4.2.3 / §3.6.2).
constexpr uint64_t kTlpFramingBytes = 8;
// Time in ps that `bytes` take on a link of `gen` and `width`, rounded up to a whole ps:
// bytes × 8 × enc_num / enc_den / (rate × width).
uint64_t serialisation_ps(uint64_t bytes, unsigned gen, unsigned width);

}  // namespace dpusim::pcie
