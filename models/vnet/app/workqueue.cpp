#include "vnet/app/workqueue.h"

#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace sc_core;

const char* work_type_name(WorkType t) {
  static const char* const names[kWorkTypes] = {
      "PCI_CFG_WORK_VQ_CONFIG",        "PCI_CFG_WORK_CONTROLLER_CLEANUP", "PCI_CFG_WORK_ENGINE_START",
      "PCI_CFG_WORK_INITIALIZE_VQS",   "PCI_CFG_WORK_INITIALIZE_IO_CTX",  "PCI_CFG_WORK_START_AND_ENABLE",
      "PCI_CFG_WORK_CREATE_STATS_LIST", "PCI_CFG_WORK_DEVICE_RESET",      "PCI_CFG_WORK_DELAYED_DESTROY",
      "PCI_CFG_WORK_HOTPLUG_EVENT",    "PCI_CFG_WORK_SPEED_CHANGE",       "PCI_CFG_WORK_VF_FAN_OUT",
      "PCI_CFG_WORK_VF_FLR_RESET",     "PCI_CFG_WORK_VF_BRINGUP",         "PCI_CFG_WORK_VF_CTRL_REQ",
  };
  return names[static_cast<int>(t)];
}

ConfigWorkqueue::ConfigWorkqueue(pcie::SimContext& ctx, AppLog& log, pcie::TimedQueue& later)
    : ctx_(ctx), log_(log), later_(later), worker_(later) {}

pcie::Event ConfigWorkqueue::item_event(const char* name, const WorkItem& it) {
  pcie::Event e = ctx_.event(log_.thread_path(kWorkerThread), name);
  e.str("type", work_type_name(it.type)).u64("item", it.id).u64("gen", it.generation).u64("arg", it.arg);
  if (it.device >= 0) e.u64("ep", unsigned(it.device));
  return e;
}

unsigned ConfigWorkqueue::pool_free() const {
  return PCI_CFG_WORK_POOL_SIZE - unsigned(queue_.size()) - (executing_ ? 1 : 0);
}

bool ConfigWorkqueue::submit(WorkItem item, uint64_t* id) {
  item.id = next_id_++;
  if (id) *id = item.id;
  if (shutdown_) {
    ++dropped_;
    item_event("work_dropped", item).str("reason", "shutdown");
    return false;
  }
  if (pool_free() == 0) {
    log_.warn(kWorkerThread, "Work pool exhausted (size=%u, pending=%u) - work item dropped", PCI_CFG_WORK_POOL_SIZE,
              pending());
    item_event("work_dropped", item).str("reason", "pool_exhausted");
    return false;
  }
  queue_.push_back(item);
  trace_pending = pending();
  item_event("work_queued", item);
  if (sleeping_) wake();
  return true;
}

void ConfigWorkqueue::wake() {
  // The condition variable is signalled: the worker runs after its wake-up latency.
  sleeping_ = false;
  ++wake_token_;
  timed_wake_pending_ = false;
  worker_.then(ctx_.ps(vnet::timing::worker_wakeup_ps), [this] { dequeue(); });
}

void ConfigWorkqueue::dequeue() {
  if (shutdown_ || queue_.empty()) return go_idle();
  if (reset_in_progress_) {
    // (1) Wait while a device reset holds the barrier.
    waiting_barrier_ = true;
    worker_.suspend();
    worker_.then([this] { dequeue(); });
    return;
  }
  WorkItem it = queue_.front();
  queue_.pop_front();
  trace_pending = pending();
  // (2) Busy with the item's device; (3) a stale generation drops it.
  if (it.generation != 0 && it.device >= 0 && generation_of(it.device) != it.generation) {
    log_.debug(kWorkerThread, "Skipping stale work type %d (gen=%u)", static_cast<int>(it.type), it.generation);
    item_event("work_skipped", it).u64("current_gen", generation_of(it.device));
    if (after_item) after_item(it, true);
    worker_.then([this] { dequeue(); });
    return;
  }
  executing_ = it;
  trace_busy = true;
  item_event("work_started", it);
  if (it.generation != 0 && it.device >= 0 && device_path)
    ctx_.checker.work_started(ctx_.now_ps(), kWorkerThread, device_path(it.device), it.generation,
                              work_type_name(it.type));
  execute(it, worker_);
  worker_.then([this] { finish(); });
}

void ConfigWorkqueue::finish() {
  const WorkItem it = *executing_;
  ++processed_;
  ++per_type_[static_cast<int>(it.type)];
  item_event("work_finished", it);
  executing_.reset();
  trace_busy = false;
  auto waiters = std::move(item_done_waiters_);
  item_done_waiters_.clear();
  for (auto& fn : waiters) fn();
  if (after_item) after_item(it, false);
  // After every item each worker PE is progressed (WORKER_PE_PROGRESS_PER_ITEM times).
  worker_.then(ctx_.ps(vnet::timing::worker_progress_ps), [this] {
    progress_pes(worker_);
    worker_.then([this] { dequeue(); });
  });
}

void ConfigWorkqueue::go_idle() {
  sleeping_ = true;
  idle_since_ps_ = ctx_.now_ps();
}

void ConfigWorkqueue::pe_activity() {
  if (!sleeping_ || timed_wake_pending_ || shutdown_) return;
  // The worker's timed wait ends every idle_wait after it began; it then progresses the PEs.
  const uint64_t period = ctx_.timing.get(vnet::timing::worker_idle_wait_ps);
  const uint64_t now = ctx_.now_ps();
  const uint64_t waited = now - idle_since_ps_;
  const uint64_t periods = waited == 0 ? 1 : waited / period + (waited % period ? 1 : 0);
  const uint64_t at = idle_since_ps_ + periods * period;
  const uint64_t token = wake_token_;
  timed_wake_pending_ = true;
  later_.at(sc_time::from_value(at - now), [this, token] {
    if (token != wake_token_ || !sleeping_) return;  // a submission woke the worker first
    timed_wake_pending_ = false;
    sleeping_ = false;
    ++wake_token_;
    worker_.then([this] {
      progress_pes(worker_);
      worker_.then([this] { dequeue(); });
    });
  });
}

void ConfigWorkqueue::lower_reset_barrier() {
  reset_in_progress_ = false;
  if (waiting_barrier_) {
    waiting_barrier_ = false;
    worker_.resume();
  }
}

void ConfigWorkqueue::when_item_done(std::function<void()> fn) {
  if (!executing_) return fn();
  item_done_waiters_.push_back(std::move(fn));
}

bool ConfigWorkqueue::has_queued(WorkType t, int device, uint32_t generation) const {
  for (const WorkItem& it : queue_)
    if (it.type == t && it.device == device && it.generation == generation) return true;
  return executing_ && executing_->type == t && executing_->device == device && executing_->generation == generation;
}

void ConfigWorkqueue::log_status(const char* thread) {
  log_.info(thread, "Workqueue status: pool_free=%u/%d, pending=%u, processed=%lu, dropped=%lu, shutdown=%d",
            pool_free(), int(PCI_CFG_WORK_POOL_SIZE), pending(), static_cast<unsigned long>(processed_),
            static_cast<unsigned long>(dropped_), shutdown_ ? 1 : 0);
}

void ConfigWorkqueue::shutdown() {
  shutdown_ = true;
  log_.info(kMainThread, "Shutting down PCI config workqueue (pending: %u, processed: %lu)", pending(),
            static_cast<unsigned long>(processed_));
  // The API says it waits for pending work; the code frees every queued item unrun.
  while (!queue_.empty()) {
    item_event("work_discarded", queue_.front());
    queue_.pop_front();
  }
  trace_pending = 0;
  if (waiting_barrier_) lower_reset_barrier();
}

}  // namespace dpusim::vnet
