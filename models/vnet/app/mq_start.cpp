#include "vnet/app/mq_start.h"

#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"
#include "vnet/virtio/vq_config.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

bool MqStart::controller_ready(unsigned i) const {
  const Controller& c = devs_.controllers[i];
  return c.io_ctx_started && c.device_present && c.engine_enabled && !c.cleanup_running &&
         !c.initialization_in_progress && (devs_.devices[i]->status() & VIRTIO_CONFIG_S_DRIVER_OK);
}

void MqStart::release_deferred(const char* thread) {
  unsigned deferred = 0;
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    if (!controller_ready(i)) return;
    deferred += devs_.controllers[i].deferred_mq ? 1 : 0;
  }
  if (deferred == 0) return;
  env_.log.info(thread, "MQ defer: all %u/%u controllers live - releasing %u deferred MQ starts", devs_.num_ep(), devs_.num_ep(), deferred);
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    Controller& c = devs_.controllers[i];
    if (!c.deferred_mq) continue;
    const auto [old_qps, new_qps] = *c.deferred_mq;
    c.deferred_mq.reset();
    env_.log.info(thread, "MQ defer: enumeration settled, releasing deferred MQ start %u -> %u on PF[%u]", old_qps, new_qps, i);
    spawn(i, old_qps, new_qps, thread);
  }
}

void MqStart::spawn(unsigned i, unsigned old_qps, unsigned new_qps, const char* thread) {
  // Completed threads are reaped (joined) whenever a new one is submitted.
  for (auto it = threads_.begin(); it != threads_.end();) {
    if ((*it)->done && (*it)->activity.idle()) it = threads_.erase(it);
    else ++it;
  }
  auto t = std::make_unique<Thread>(env_.later, i, old_qps, new_qps, "vnet.mq" + std::to_string(spawned_++));
  ++devs_.controllers[i].mq_threads;
  env_.log.info(thread, "MQ start QPs %u -> %u spawned as joinable thread (parallel execution)", old_qps, new_qps);
  env_.ctx.sink_event(env_.log.thread_path(t->name), "thread_start").u64("ep", i).u64("old_qps", old_qps).u64("new_qps", new_qps);
  Thread& ref = *t;
  threads_.push_back(std::move(t));
  run(ref);
}

void MqStart::run(Thread& t) {
  pcie::Activity& a = t.activity;
  auto running = [&t] { return !t.done; };
  a.then([this, &t] {
    env_.log.info(t.name, "MQ start thread waiting for semaphore slot (max %u concurrent)...", MQ_START_MAX_CONCURRENT);
    if (running_ >= MQ_START_MAX_CONCURRENT) {
      waiting_.push_back(&t);
      t.activity.suspend();
    } else {
      ++running_;
    }
  });
  a.then([this, &t] {
    trace_running = running_;
    env_.log.info(t.name, "MQ start thread acquired semaphore slot");
    env_.log.info(t.name, "Background thread: starting MQ QPs %u -> %u", t.old_qps, t.new_qps);
    env_.log.info(t.name, "Starting QPs %u-%u (VQs %u-%u)", t.old_qps, t.new_qps - 1, 2 * t.old_qps, 2 * t.new_qps - 1);
    t.shadow = devs_.devices[t.ctrl]->shadows();  // the queues' registers as they are now
  });
  // start_additional_queue_pairs: per QP, the cancel check, then RX and TX from the shadow.
  for (unsigned qp = t.old_qps; qp < t.new_qps; ++qp) {
    a.then([this, &t, qp] {
      if (!t.done && devs_.devices[t.ctrl]->cancel_in_progress) {
        env_.log.info(t.name, "start_additional_queue_pairs: cancelled at QP%u/%u due to device reset", qp, t.new_qps);
        env_.log.error(t.name, "Background thread: MQ start QPs failed: %s", "cancelled by device reset");
        t.done = true;
      }
    });
    for (unsigned q = 2 * qp; q <= 2 * qp + 1; ++q) {
      a.then_if(running, env_.cost(timing::work_vq_set_conf_ps),
                [this, &t, q] { set_vq_conf(devs_, t.ctrl, q, t.shadow[q]); });
      a.then_if(running, env_.cost(timing::work_vq_start_ps),
                [this, &t, q] { devs_.controllers[t.ctrl].engine->vqs().vq_start(q); });
    }
    a.then_if(running, env_.cost(timing::mq_qp_yield_ps), [] {});
  }
  a.then([this, &t] {
    if (t.done) exit(t);
  });
  // The group enable: the application's only check of the cancel flag is before each QP, so
  // a reset after the last check still enables the group (docs/vnet.md).
  a.then_if(running, env_.cost(timing::work_vq_group_enable_ps), [this, &t] {
    Controller& c = devs_.controllers[t.ctrl];
    c.engine->vqs().vq_group_enable(2 * t.old_qps, 2 * t.new_qps - 1);
    env_.log.info(t.name, "Successfully started QPs %u-%u", t.old_qps, t.new_qps - 1);
    c.num_active_qps = t.new_qps;
    c.initial_data_qps_deferred = false;
    work_.submit(WorkType::CREATE_STATS_LIST, t.ctrl);
    env_.log.info(t.name, "Background thread: MQ start QPs %u -> %u completed successfully", t.old_qps, t.new_qps);
    t.done = true;
    exit(t);
  });
}

void MqStart::exit(Thread& t) {
  env_.ctx.sink_event(env_.log.thread_path(t.name), "thread_exit");
  --devs_.controllers[t.ctrl].mq_threads;
  --running_;
  if (!waiting_.empty()) {
    Thread* next = waiting_.front();
    waiting_.pop_front();
    ++running_;
    next->activity.resume();
  }
  trace_running = running_;
}

bool MqStart::all_joined() const {
  for (const auto& t : threads_)
    if (!t->done || !t->activity.idle()) return false;
  return true;
}

}  // namespace dpusim::vnet
