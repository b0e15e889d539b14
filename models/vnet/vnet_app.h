// The DOCA vnet_pci_dev application (vnet-app.md) on simulated time: the software PCIe switch
// it emulates (upstream port, one downstream port per endpoint, the endpoints' config and
// common-config images, the dummy function) and its threads:
//  - PE1, the main thread: one server with a FIFO that answers every host TLP the switch does
//    not hand to firmware, each after its service time (vnet.pe1.*); the time from a TLP's
//    arrival to its completion, queueing included, is checked against vnet.pe1.bound_ps;
//  - the PCI-config workqueue's single worker (workqueue.h), which also runs the CVQ's
//    ctrl_req handler when it progresses a controller's PE2;
//  - MQ-start threads, at most MQ_START_MAX_CONCURRENT running at a time.
// Each is a pcie::Activity (steps on a TimedQueue), not a SystemC thread.
//
// The endpoints' firmware (doorbells, MSI-X table and PBA, the datapath) is VnetEndpoint,
// behind link_dsp<i>; memory requests for those BAR0 regions and the completions of the
// endpoints' DMA pass the switch without PE1 (the switch traversal latency only), as on the
// device where firmware, not the application, serves them.
//
// The implementation is split by concern: tlp_service.cpp (PE1: decode, BDF map, config and
// MMIO), common_cfg.cpp (§5.1 writes, §5.2 reset), status_callback.cpp (§5.3), work_items.cpp
// (§5.4 items, speed change), cleanup.cpp (§6.3), cvq.cpp (§7, §5.6 MQ start), hotplug.cpp
// (§8 slot and hotplug items, the unplug timeout), msi.cpp (§4 DSP MSIs over ACG credits and
// their retries), command.cpp (§8.6 the stdin grammar and the commands' outcomes),
// shutdown.cpp (§6.4).
#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "switch/switch_timing.h"
#include "vnet/acg.h"
#include "tlm/activity.h"
#include "vnet/app_log.h"
#include "switch/bridge.h"
#include "vnet/controller.h"
#include "tlm/link.h"
#include "tlm/port.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"
#include "vnet/virtio_device.h"
#include "vnet/vnet_options.h"
#include "vnet/workqueue.h"

namespace dpusim::vnet {

class VnetApp : public sc_core::sc_module {
 public:
  VnetApp(sc_core::sc_module_name name, pcie::SimContext& ctx, const VnetOptions& options, const AcgSpec& acg);

  pcie::Port up;                                  // to the host link
  std::vector<std::unique_ptr<pcie::Port>> down;  // to endpoint i's link

  // The family hands over endpoint i's firmware and link (its DLActive follows the slot).
  void attach(unsigned i, VnetEndpoint* engine, pcie::Link* link);
  // Static mode: every endpoint created at startup (§2.3 "Static mode").
  void create_static_devices();

  sw::Bridge& usp() { return *usp_; }
  sw::Bridge& dsp(unsigned i) { return *dsps_[i]; }
  VirtioPciDevice& device(unsigned i) { return *devices_[i]; }
  Controller& controller(unsigned i) { return controllers_[i]; }
  ConfigWorkqueue& workqueue() { return wq_; }
  unsigned num_ep() const { return unsigned(controllers_.size()); }
  const VnetOptions& options() const { return opt_; }

  // Submits a work item as the application's own code would (the device's current generation
  // for controller-scoped types): how a test reaches DEVICE_RESET, which the application
  // defines and handles but never submits.
  bool submit_work(WorkType type, int ep, uint32_t arg = 0, uint32_t arg2 = 0);
  // A line on the application's stdin (§8.6): "plug <i>", "unplug <i>", "speed <i> <mbps>".
  // Returns the command's number; its outcome is the event "command" with that `id`, logged
  // once known (never in the call itself): `outcome` (OK, REJECTED, IGNORED, DROPPED, or the
  // DOCA result of its work item: AGAIN, IN_PROGRESS, NOT_FOUND, ALREADY_EXIST...) and
  // `lines`, the application's log lines it produced (command.cpp).
  uint64_t command(const std::string& line);
  // ACG credits cached now (a view for tests).
  unsigned acg_credits() const { return acg_.count(); }
  // §6.4 and the guide's §7.8: the application's shutdown at the end of a run.
  void shutdown(const std::function<void(const std::function<bool()>&)>& run_until);
  void trace(sc_core::sc_trace_file* vcd);

 private:
  // ---- vnet_app.cpp: ports, routing, PE1 --------------------------------------------------
  struct Pe1Entry {
    pcie::Tlp* tlp;
    uint64_t arrival_ps, cost_ps;
  };
  void receive_up(pcie::Tlp& t);
  void receive_down(pcie::Tlp& t);
  int firmware_target(const tlp::Header& h) const;  // endpoint whose firmware serves it, or -1
  void pe1_enqueue(pcie::Tlp& t);
  void pe1_serve();
  void send_up(pcie::Tlp* t) { up.send(*t); }
  sc_core::sc_time traversal() const { return ctx_.ps(sw::timing::switch_traversal_ps); }

  // ---- tlp_service.cpp --------------------------------------------------------------------
  enum class Kind { USP, DSP, EP, DUMMY };
  struct Target {
    Kind kind;
    unsigned index;
  };
  Target find_device_by_bdf(bool type1, uint16_t bdf);
  void record_bdf(Target t, uint16_t bdf);
  void service_config(pcie::Tlp& t);
  void service_memory(pcie::Tlp& t);
  void ep_mmio_read(unsigned i, const tlp::Header& h);
  void ep_mmio_write(unsigned i, const tlp::Header& h, const uint8_t* data);
  void dummy_ur(const tlp::Header& h, uint16_t completer);
  void on_bus_config(int dsp, uint32_t before, uint32_t after);
  std::string bdf_of(unsigned ep) const;  // "02:00.0"

  // ---- common_cfg.cpp ---------------------------------------------------------------------
  void common_write(unsigned i, uint16_t dw_off, uint32_t data, uint8_t be);
  void release_reset_hold(unsigned i);
  void submit_vq_config(unsigned i, unsigned q);
  void log_status_change(unsigned i, uint8_t old_status, uint8_t new_status);
  void after_common_write(unsigned i);
  // The firmware found a malformed ring: DEVICE_NEEDS_RESET and the config interrupt.
  void device_needs_reset(unsigned i, const std::string& reason);

  // ---- status_callback.cpp ----------------------------------------------------------------
  void status_callback(unsigned i);
  void on_reset_status(unsigned i);
  void on_features_ok(unsigned i);
  void on_driver_ok(unsigned i);
  void negotiate_mq(unsigned i, bool deferred_init);
  bool submit(WorkType type, unsigned i, uint32_t arg = 0);

  // ---- work_items.cpp ---------------------------------------------------------------------
  void execute(const WorkItem& item, pcie::Activity& w);
  void engine_start(unsigned i, pcie::Activity& w);
  void initialize_vqs(unsigned i, pcie::Activity& w);
  void initialize_io_ctx(unsigned i, pcie::Activity& w);
  void vq_config(unsigned i, unsigned q, pcie::Activity& w);
  void start_and_enable(unsigned i, pcie::Activity& w);
  void create_stats_list(unsigned i, pcie::Activity& w);
  void device_reset_work(unsigned i, pcie::Activity& w);
  void speed_change(unsigned i, uint32_t mbps, pcie::Activity& w);
  bool ensure_config_msix(unsigned i, const char* thread);
  void set_conf_and_start(unsigned i, unsigned q, const VqShadow& sh, pcie::Activity& a, const char* thread,
                          bool start);
  void check_reset_hold_liveness(const WorkItem& item, bool skipped);
  sc_core::sc_time cost(const pcie::TimingParam& p) const { return ctx_.ps(p); }

  // ---- cleanup.cpp ------------------------------------------------------------------------
  void controller_cleanup(unsigned i, bool destroy_engine, pcie::Activity& a, const char* thread);
  void deferred_init(unsigned i, const char* thread);

  // ---- cvq.cpp ----------------------------------------------------------------------------
  void ctrl_req_arrived(unsigned i, CtrlReq req);
  void progress_pes(pcie::Activity& w);
  void ctrl_req_handler(unsigned i, CtrlReq req, pcie::Activity& w);
  uint8_t vq_pairs_set(unsigned i, const CtrlReq& req, pcie::Activity& w);
  bool controller_ready(unsigned i) const;
  void release_deferred_mq(const char* thread);
  void spawn_mq_start(unsigned i, unsigned old_qps, unsigned new_qps, const char* thread);
  // An MQ-start thread (spawned joinable, reaped when a new one is spawned).
  struct MqThread {
    MqThread(pcie::TimedQueue& q, unsigned ctrl, unsigned old_qps, unsigned new_qps, std::string name)
        : activity(q), ctrl(ctrl), old_qps(old_qps), new_qps(new_qps), thread(std::move(name)) {}
    pcie::Activity activity;
    unsigned ctrl, old_qps, new_qps;
    std::string thread;
    bool done = false;
  };
  void run_mq_thread(MqThread& t);
  void mq_thread_exit(MqThread& t);

  // ---- hotplug.cpp ------------------------------------------------------------------------
  void slot_power(unsigned i, bool on);
  void slot_command_completed(unsigned i);
  void hotplug_event(unsigned dsp, bool plug, pcie::Activity& w);
  bool hotplug_allowed(unsigned i, bool plug);
  void plug_device(unsigned i, pcie::Activity& w);
  void unplug_device(unsigned i, pcie::Activity& w);
  void update_dsp_slot_status(unsigned i, bool plug);
  void notify_slot_event(unsigned i, bool plug);
  bool submit_delayed_destroy(unsigned i, const char* thread);
  void delayed_destroy(unsigned dsp, pcie::Activity& w);
  void set_device_present(unsigned i, bool present);
  void arm_unplug_timeout(unsigned i);
  void unplug_timeout(unsigned i);

  // ---- msi.cpp ----------------------------------------------------------------------------
  void acg_init();
  void start_of_simulation() override;
  void acg_grant(unsigned count);
  // nullptr when sent, else the DOCA error's name (DOCA_ERROR_AGAIN: no credit). `thread`
  // is the application thread that sends it (its lines are logged there).
  const char* send_dsp_msi(unsigned i, const char* thread);
  void schedule_msi_retry(unsigned i, const char* op);
  void clear_msi_retry(unsigned i);
  void schedule_retry_pass(uint64_t at_ps);
  void drain_msi_retries();

  // ---- command.cpp ------------------------------------------------------------------------
  struct Command {
    uint64_t id = 0;
    std::string line;
    struct Line {
      std::string path, level, msg;
    };
    std::vector<Line> lines;  // the application's lines it produced
  };
  void finish_command(const Command& c, const char* outcome);
  void command_item_started(const WorkItem& it);
  void command_item_done(const WorkItem& it, bool skipped);

  pcie::SimContext& ctx_;
  VnetOptions opt_;
  AppLog log_;
  pcie::TimedQueue later_;
  pcie::Activity pe1_;
  std::deque<Pe1Entry> pe1_fifo_;
  ConfigWorkqueue wq_;
  std::unique_ptr<sw::Bridge> usp_;
  std::vector<std::unique_ptr<sw::Bridge>> dsps_;
  std::vector<std::unique_ptr<VirtioPciDevice>> devices_;
  std::vector<Controller> controllers_;
  std::vector<pcie::Link*> links_;
  std::string dummy_path_;
  // The BDF cache: key (type1 << 16 | bdf) -> target, one key per device (§3.2).
  std::map<uint32_t, Target> bdf_cache_;
  std::vector<uint16_t> recorded_bdf_;  // per target: USP, DSPs, EPs, dummy
  std::vector<int> ep_pf_bus_;          // VirtIO-side enumeration: the bus each EP was bound at, -1 none
  // MQ start threads and their semaphore.
  std::vector<std::unique_ptr<MqThread>> mq_threads_;
  unsigned mq_running_ = 0, mq_spawned_ = 0;
  std::deque<MqThread*> mq_waiting_;
  // ACG credits (§4): firmware grants them in hotplug mode only (acg.h).
  AcgSpec acg_spec_;
  AcgQueue acg_;
  bool shutting_down_ = false;
  // Per DSP: the slot-event MSI retry (§4) and the unplug timer (§8.5).
  struct SlotState {
    bool msi_retry_pending = false;
    uint64_t msi_retry_since_ps = 0;
    uint64_t unplug_start_ps = 0;
    uint64_t unplug_timer = 0;  // which armed timer is current
  };
  std::vector<SlotState> slots_;
  std::set<uint64_t> retry_passes_;  // times of the main loop's retry passes already scheduled
  // The outcome of the hotplug or speed item running on the worker (nullptr: OK).
  const char* item_result_ = nullptr;
  // Commands whose work item has not run yet, by item id; the one running; the main thread's.
  uint64_t next_command_ = 1;
  std::map<uint64_t, Command> commands_by_item_;
  Command* worker_capture_ = nullptr;
  Command* main_capture_ = nullptr;
  Command running_command_;

  void refresh_slot_traces();
  uint32_t trace_pe1_queue_ = 0, trace_mq_running_ = 0, trace_acg_credits_ = 0;
  std::deque<bool> trace_pending_unplug_, trace_msi_retry_;
  std::vector<uint8_t> trace_status_;
  // The downstream ports' slot registers and DLActive, as the generic switch traces them.
  std::vector<uint16_t> trace_slot_ctl_, trace_slot_sta_;
  std::deque<bool> trace_dllla_;  // not vector<bool>: sc_trace keeps a reference to each
};

}  // namespace dpusim::vnet
