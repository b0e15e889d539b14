// The PCI-config workqueue (vnet_pci_device.c: the pool, the worker, the stale-generation filter): a pool of 1024 preallocated items and ONE FIFO
// worker thread, pci_cfg_worker, for every controller. Per item, in order: wait while the
// global reset barrier is up; mark the worker busy with the item's device; drop the item if
// its reset generation is stale; run it; progress every worker PE (which delivers the CVQ
// requests waiting on each controller's PE2). While idle the worker wakes every
// vnet.worker.idle_wait_ps and progresses the PEs once; a submission wakes it at once.
//
// Each item is logged queued / started / finished (or skipped as stale, discarded at
// shutdown, dropped when the pool is exhausted), with its type, device and generation.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

#include "tlm/activity.h"
#include "vnet/app/app_log.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::vnet {

// The eleven work types, in the order of the application's enum (the number is what
// "Skipping stale work type %d" prints), then SR-IOV's three (the DOCA guide's 7.7: the VFE
// fan-out or stop of a PF's VF slots, a VF's FLR reset, a VF's lazy bring-up stage), which the
// public source lacks.
enum class WorkType : int {
  VQ_CONFIG, CONTROLLER_CLEANUP, ENGINE_START, INITIALIZE_VQS, INITIALIZE_IO_CTX, START_AND_ENABLE,
  CREATE_STATS_LIST, DEVICE_RESET, DELAYED_DESTROY, HOTPLUG_EVENT, SPEED_CHANGE,
  VF_FAN_OUT, VF_FLR_RESET, VF_BRINGUP, VF_CTRL_REQ,
};
inline constexpr unsigned kWorkTypes = 15;
const char* work_type_name(WorkType t);  // "PCI_CFG_WORK_VQ_CONFIG"

struct WorkItem {
  WorkType type = WorkType::VQ_CONFIG;
  int device = -1;          // the controller whose generation it carries; -1: none
  uint32_t generation = 0;  // 0: never stale (DELAYED_DESTROY, HOTPLUG_EVENT)
  uint32_t arg = 0;         // VQ index, DSP index, new speed, destroy_engine...
  uint32_t arg2 = 0;        // plug (1) or unplug (0)...
  uint64_t id = 0;          // sequence number, for the log
  // Only VQ_CONFIG and START_AND_ENABLE carry a device for the reset barrier (docs/vnet.md, "Status machine").
  bool blocks_reset_of(int dev) const {
    return device == dev && (type == WorkType::VQ_CONFIG || type == WorkType::START_AND_ENABLE);
  }
};

class ConfigWorkqueue {
 public:
  ConfigWorkqueue(pcie::SimContext& ctx, AppLog& log, pcie::TimedQueue& later);

  // Runs an item on the worker: adds its steps to `worker` (they run before the item counts
  // as finished).
  std::function<void(const WorkItem&, pcie::Activity& worker)> execute;
  // The current reset generation of a device, and its name in the invariant checker's
  // generation ledger (the application reports each bump there).
  std::function<uint32_t(int device)> generation_of;
  std::function<std::string(int device)> device_path;
  // Progresses every worker PE once (CVQ delivery); may add steps to the worker.
  std::function<void(pcie::Activity& worker)> progress_pes;
  // Called when the worker finished or skipped an item and is about to take the next (the
  // liveness check of the reset hold looks here).
  std::function<void(const WorkItem&, bool skipped)> after_item;

  // Queues an item (its id is assigned). Returns false when it was dropped: pool exhausted
  // (WARN, not counted) or shutting down (counted dropped).
  // `id`, when given, receives the item's id (also when it is dropped).
  bool submit(WorkItem item, uint64_t* id = nullptr);

  // The global reset barrier (docs/vnet.md, "Status machine"): while up, the worker starts no new item.
  void raise_reset_barrier() { reset_in_progress_ = true; }
  void lower_reset_barrier();
  bool reset_in_progress() const { return reset_in_progress_; }
  // The item running now, if any.
  const std::optional<WorkItem>& executing() const { return executing_; }
  // Calls `fn` once no item runs (at once if none does).
  void when_item_done(std::function<void()> fn);
  // A CVQ request is waiting on some PE2: the idle worker sees it at its next timed wake.
  void pe_activity();

  // Shutdown: sets shutdown, discards every queued item (logged), lets the running one finish.
  void shutdown();
  bool shut_down() const { return shutdown_; }
  bool idle() const { return !executing_ && worker_.idle(); }

  unsigned pending() const { return unsigned(queue_.size()); }
  unsigned pool_free() const;
  uint64_t processed() const { return processed_; }
  uint64_t dropped() const { return dropped_; }
  bool has_queued(WorkType t, int device, uint32_t generation) const;
  // "Workqueue status: pool_free=..., pending=..., processed=..., dropped=..., shutdown=..."
  void log_status(const char* thread);

  pcie::Activity& worker() { return worker_; }
  uint32_t trace_pending = 0;
  bool trace_busy = false;

 private:
  void wake();
  void dequeue();
  void finish();
  void go_idle();
  pcie::Event item_event(const char* name, const WorkItem& it);

  pcie::SimContext& ctx_;
  AppLog& log_;
  pcie::TimedQueue& later_;
  pcie::Activity worker_;
  std::deque<WorkItem> queue_;
  std::optional<WorkItem> executing_;
  std::vector<std::function<void()>> item_done_waiters_;
  bool reset_in_progress_ = false, waiting_barrier_ = false, shutdown_ = false;
  bool sleeping_ = true;  // the worker waits on its condition variable
  uint64_t idle_since_ps_ = 0, wake_token_ = 0;
  bool timed_wake_pending_ = false;
  uint64_t next_id_ = 1, processed_ = 0, dropped_ = 0;
  std::array<uint64_t, kWorkTypes> per_type_{};
};

}  // namespace dpusim::vnet
