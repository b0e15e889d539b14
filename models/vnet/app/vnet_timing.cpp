#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet::timing {

using pcie::ExploreRange;
// Estimate: how much later than the profile's value firmware may post a replacement ACG credit.
constexpr uint64_t kAcgRefillSpreadPs = 10'000'000;

const pcie::TimingParam pe1_config_ps({"vnet.pe1.config_ps", 2000000, 0, 1000000000000ull, "ps"},
                                      ExploreRange::per_use(50, 200));
const pcie::TimingParam pe1_mmio_read_ps({"vnet.pe1.mmio_read_ps", 2000000, 0, 1000000000000ull, "ps"},
                                         ExploreRange::per_use(50, 200));
const pcie::TimingParam pe1_mmio_write_ps({"vnet.pe1.mmio_write_ps", 1000000, 0, 1000000000000ull, "ps"},
                                          ExploreRange::per_use(50, 200));
const pcie::TimingParam pe1_bound_ps({"vnet.pe1.bound_ps", 1000000000, 1, 100000000000000ull, "ps"});
const pcie::TimingParam reset_hold_bound_ps({"vnet.reset_hold_bound_ps", 30000000000000ull, 1, 1000000000000000ull, "ps"});
const pcie::TimingParam fw_mmio_ps({"vnet.fw.mmio_ps", 500000, 0, 1000000000000ull, "ps"},
                                   ExploreRange::per_run(50, 200));
const pcie::TimingParam worker_wakeup_ps({"vnet.worker.wakeup_ps", 10000000, 0, 1000000000000ull, "ps"},
                                         ExploreRange::per_use(50, 500));
const pcie::TimingParam worker_idle_wait_ps({"vnet.worker.idle_wait_ps", 10000000000ull, 1, 1000000000000ull, "ps"});
const pcie::TimingParam worker_progress_ps({"vnet.worker.progress_ps", 20000000, 0, 1000000000000ull, "ps"},
                                           ExploreRange::per_use(50, 200));
const pcie::TimingParam work_engine_start_ps({"vnet.work.engine_start_ps", 10000000000ull, 0, 100000000000000ull, "ps"},
                                             ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_create_ps({"vnet.work.vq_create_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                          ExploreRange::per_use(50, 200));
const pcie::TimingParam work_io_ctx_create_ps({"vnet.work.io_ctx_create_ps", 5000000000ull, 0, 100000000000000ull, "ps"},
                                              ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_set_conf_ps({"vnet.work.vq_set_conf_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_start_ps({"vnet.work.vq_start_ps", 30000000000ull, 0, 100000000000000ull, "ps"},
                                         ExploreRange::per_use(83, 167));
const pcie::TimingParam work_vq_group_enable_ps({"vnet.work.vq_group_enable_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                                ExploreRange::per_use(50, 200));
const pcie::TimingParam work_engine_enable_ps({"vnet.work.engine_enable_ps", 10000000000ull, 0, 100000000000000ull, "ps"},
                                              ExploreRange::per_use(50, 200));
const pcie::TimingParam work_counters_ps({"vnet.work.counters_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                         ExploreRange::per_use(50, 200));
const pcie::TimingParam work_stats_list_ps({"vnet.work.stats_list_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                           ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_group_disable_ps({"vnet.work.vq_group_disable_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                                 ExploreRange::per_use(50, 200));
const pcie::TimingParam work_engine_disable_ps({"vnet.work.engine_disable_ps", 5000000000ull, 0, 100000000000000ull, "ps"},
                                               ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_stop_ps({"vnet.work.vq_stop_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                        ExploreRange::per_use(50, 200));
const pcie::TimingParam work_io_ctx_destroy_ps({"vnet.work.io_ctx_destroy_ps", 2000000000, 0, 100000000000000ull, "ps"},
                                               ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vq_destroy_ps({"vnet.work.vq_destroy_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                           ExploreRange::per_use(50, 200));
const pcie::TimingParam work_engine_stop_ps({"vnet.work.engine_stop_ps", 5000000000ull, 0, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(50, 200));
const pcie::TimingParam work_engine_destroy_ps({"vnet.work.engine_destroy_ps", 10000000000ull, 0, 100000000000000ull, "ps"},
                                               ExploreRange::per_use(50, 200));
const pcie::TimingParam work_create_device_ps({"vnet.work.create_device_ps", 375000000000ull, 0, 100000000000000ull, "ps"},
                                              ExploreRange::per_use(93, 107));
const pcie::TimingParam work_destroy_device_ps({"vnet.work.destroy_device_ps", 100000000000ull, 0, 100000000000000ull, "ps"},
                                               ExploreRange::per_use(50, 200));
const pcie::TimingParam work_register_reset_ps({"vnet.work.register_reset_ps", 10000000, 0, 100000000000000ull, "ps"},
                                               ExploreRange::per_use(50, 200));
const pcie::TimingParam speed_bounce_ps({"vnet.speed_change.bounce_ps", 50000000000ull, 0, 100000000000000ull, "ps"},
                                        ExploreRange::per_use(100, 100, pcie::kLinuxTimerSlackPs));
const pcie::TimingParam ctrl_req_delay_ps({"vnet.ctrl_req_delay_ps", 400000000000ull, 0, 100000000000000ull, "ps"},
                                          ExploreRange::per_use(100, 100, pcie::kLinuxTimerSlackPs));
const pcie::TimingParam mq_qp_yield_ps({"vnet.mq.qp_yield_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                       ExploreRange::per_use(100, 100, pcie::kLinuxTimerSlackPs));
const pcie::TimingParam cleanup_poll_ps({"vnet.cleanup.poll_ps", 1000000000, 1, 100000000000000ull, "ps"},
                                        ExploreRange::per_use(50, 200));
const pcie::TimingParam dp_tx_frame_ps({"vnet.dp.tx_frame_ps", 1000000, 0, 1000000000000ull, "ps"},
                                       ExploreRange::per_use(50, 200));
const pcie::TimingParam dp_rx_frame_ps({"vnet.dp.rx_frame_ps", 1000000, 0, 1000000000000ull, "ps"},
                                       ExploreRange::per_use(50, 200));
const pcie::TimingParam dp_rx_fifo_frames({"vnet.dp.rx_fifo_frames", 256, 1, 1000000, "frames"});
const pcie::TimingParam main_loop_ps({"vnet.main_loop_ps", 10000000, 1, 1000000000000ull, "ps"});
const pcie::TimingParam main_loop_origin_ps({"vnet.main_loop_origin_ps", 0, 0, 1000000000000ull, "ps"},
                                            ExploreRange::per_run(100, 100, 10000000));
const pcie::TimingParam cleanup_stats_drain_ps({"vnet.cleanup.stats_drain_ps", 1000000000, 0, 10000000000000ull, "ps"},
                                               ExploreRange::per_use(0, 1000));
const pcie::TimingParam cleanup_stats_mutex_ps({"vnet.cleanup.stats_mutex_ps", 0, 0, 2000000000000ull, "ps"},
                                               ExploreRange::per_use(100, 100, 10000000000ull));
const pcie::TimingParam fw_acg_refill_ps({"vnet.fw.acg_refill_ps", 0, 0, 100000000000000ull, "ps"},
                                         ExploreRange::per_use(100, 100, kAcgRefillSpreadPs));
const pcie::TimingParam lu_msg_ps({"vnet.lu.msg_ps", 20000000, 0, 1000000000000ull, "ps"},
                                  ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_copy_kib_ps({"vnet.lu.copy_kib_ps", 200000, 0, 1000000000ull, "ps"},
                                       ExploreRange::per_run(50, 200));
const pcie::TimingParam lu_process_start_ps({"vnet.lu.process_start_ps", 100000000000ull, 0, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_dev_open_ps({"vnet.lu.dev_open_ps", 20000000000ull, 0, 100000000000000ull, "ps"},
                                       ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_rep_attach_ps({"vnet.lu.rep_attach_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                         ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_engine_export_ps({"vnet.lu.engine_export_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_engine_import_ps({"vnet.lu.engine_import_ps", 10000000000ull, 0, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_ch_create_ps({"vnet.lu.ch_create_ps", 5000000000ull, 0, 100000000000000ull, "ps"},
                                        ExploreRange::per_use(50, 200));
const pcie::TimingParam lu_ch_stop_ps({"vnet.lu.ch_stop_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                      ExploreRange::per_use(50, 200));

// SR-IOV (the DOCA guide's 7.7): one VF's tlp_dev start / stop on the worker.
const pcie::TimingParam work_vf_tlp_dev_start_ps({"vnet.work.vf_tlp_dev_start_ps", 1000000000, 0, 100000000000000ull, "ps"},
                                                 ExploreRange::per_use(50, 200));
const pcie::TimingParam work_vf_tlp_dev_stop_ps({"vnet.work.vf_tlp_dev_stop_ps", 500000000, 0, 100000000000000ull, "ps"},
                                                ExploreRange::per_use(50, 200));

}  // namespace dpusim::vnet::timing
