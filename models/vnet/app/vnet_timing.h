// The DOCA vnet_pci_dev application (models/vnet) and its firmware datapath; docs/timing.md
// gives each default's source. `ms` below is 10^9 ps.
#pragma once

#include "tlm/timing.h"

namespace dpusim::vnet::timing {

extern const pcie::TimingParam pe1_config_ps;
extern const pcie::TimingParam pe1_mmio_read_ps;
extern const pcie::TimingParam pe1_mmio_write_ps;
extern const pcie::TimingParam pe1_bound_ps;
extern const pcie::TimingParam reset_hold_bound_ps;
extern const pcie::TimingParam fw_mmio_ps;
extern const pcie::TimingParam worker_wakeup_ps;
extern const pcie::TimingParam worker_idle_wait_ps;
extern const pcie::TimingParam worker_progress_ps;
extern const pcie::TimingParam work_engine_start_ps;
extern const pcie::TimingParam work_vq_create_ps;
extern const pcie::TimingParam work_io_ctx_create_ps;
extern const pcie::TimingParam work_vq_set_conf_ps;
extern const pcie::TimingParam work_vq_start_ps;
extern const pcie::TimingParam work_vq_group_enable_ps;
extern const pcie::TimingParam work_engine_enable_ps;
extern const pcie::TimingParam work_counters_ps;
extern const pcie::TimingParam work_stats_list_ps;
extern const pcie::TimingParam work_vq_group_disable_ps;
extern const pcie::TimingParam work_engine_disable_ps;
extern const pcie::TimingParam work_vq_stop_ps;
extern const pcie::TimingParam work_io_ctx_destroy_ps;
extern const pcie::TimingParam work_vq_destroy_ps;
extern const pcie::TimingParam work_engine_stop_ps;
extern const pcie::TimingParam work_engine_destroy_ps;
extern const pcie::TimingParam work_create_device_ps;
extern const pcie::TimingParam work_destroy_device_ps;
extern const pcie::TimingParam work_register_reset_ps;
extern const pcie::TimingParam speed_bounce_ps;
extern const pcie::TimingParam ctrl_req_delay_ps;
extern const pcie::TimingParam mq_qp_yield_ps;
extern const pcie::TimingParam cleanup_poll_ps;
extern const pcie::TimingParam dp_tx_frame_ps;
extern const pcie::TimingParam dp_rx_frame_ps;
extern const pcie::TimingParam dp_rx_fifo_frames;
extern const pcie::TimingParam main_loop_ps;
extern const pcie::TimingParam main_loop_origin_ps;
extern const pcie::TimingParam cleanup_stats_drain_ps;
extern const pcie::TimingParam cleanup_stats_mutex_ps;
extern const pcie::TimingParam fw_acg_refill_ps;
// Live update (live_update.h).
extern const pcie::TimingParam lu_msg_ps;
extern const pcie::TimingParam lu_copy_kib_ps;
extern const pcie::TimingParam lu_process_start_ps;
extern const pcie::TimingParam lu_dev_open_ps;
extern const pcie::TimingParam lu_rep_attach_ps;
extern const pcie::TimingParam lu_engine_export_ps;
extern const pcie::TimingParam lu_engine_import_ps;
extern const pcie::TimingParam lu_ch_create_ps;
extern const pcie::TimingParam lu_ch_stop_ps;
extern const pcie::TimingParam work_vf_tlp_dev_start_ps;
extern const pcie::TimingParam work_vf_tlp_dev_stop_ps;

}  // namespace dpusim::vnet::timing
