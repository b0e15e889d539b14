// The control virtqueue's ctrl_req handler (vnet-app.md §7), run on the worker when it
// progresses a controller's PE2, and the MQ start (§5.6, §7 "Increase"): background threads,
// at most MQ_START_MAX_CONCURRENT running start_additional_queue_pairs at once.
#include "vnet/vnet_app.h"
#include "vnet/vnet_layout.h"
#include "vnet/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;


void VnetApp::ctrl_req_arrived(unsigned i, CtrlReq req) {
  controllers_[i].pe2.push_back(std::move(req));
  wq_.pe_activity();
}

void VnetApp::progress_pes(pcie::Activity& w) {
  for (unsigned i = 0; i < num_ep(); ++i) {
    Controller& c = controllers_[i];
    while (!c.pe2.empty()) {
      CtrlReq req = std::move(c.pe2.front());
      c.pe2.pop_front();
      ctrl_req_handler(i, std::move(req), w);
    }
  }
}

void VnetApp::ctrl_req_handler(unsigned i, CtrlReq req, pcie::Activity& w) {
  Controller& c = controllers_[i];
  log_.info(kWorkerThread, "ctrl_req received: cls=%u, cmd=%u, controller=%s", unsigned(req.cls), unsigned(req.cmd),
            object_id("controller", i).c_str());
  // One-time delay before the first request of a controller whose data QPs are deferred,
  // so that enumeration of the other static endpoints settles first.
  if (c.initial_data_qps_deferred && !c.first_ctrl_req_delay_done) {
    c.first_ctrl_req_delay_done = true;
    w.then(cost(vnet::timing::ctrl_req_delay_ps), [] {});
  }
  w.then([this, i, req, &w] {
    uint8_t status = VIRTIO_NET_ERR;
    switch (req.cls) {
      case VIRTIO_NET_CTRL_RX:
        log_.info(kWorkerThread, "RX ctrl cmd: %u (handled by backend)", unsigned(req.cmd));
        status = VIRTIO_NET_OK;
        break;
      case VIRTIO_NET_CTRL_MAC:
        log_.info(kWorkerThread, "MAC ctrl cmd: %u (handled by backend)", unsigned(req.cmd));
        status = VIRTIO_NET_OK;
        break;
      case VIRTIO_NET_CTRL_VLAN:
        log_.info(kWorkerThread, "VLAN ctrl cmd: %u (handled by backend)", unsigned(req.cmd));
        status = VIRTIO_NET_OK;
        break;
      case VIRTIO_NET_CTRL_MQ:
        if (req.cmd == VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET) return void(vq_pairs_set(i, req, w));
        log_.warn(kWorkerThread, "Unsupported MQ cmd: %u", unsigned(req.cmd));
        break;
      default:
        log_.warn(kWorkerThread, "Unsupported ctrl class: %u", unsigned(req.cls));
    }
    if (Controller& c = controllers_[i]; c.engine) c.engine->ctrl_req_complete(req.head, status);
  });
}

uint8_t VnetApp::vq_pairs_set(unsigned i, const CtrlReq& req, pcie::Activity& w) {
  Controller& c = controllers_[i];
  auto reply = [this, i, head = req.head](uint8_t status) { controllers_[i].engine->ctrl_req_complete(head, status); };
  if (req.data.size() < 2) {
    log_.error(kWorkerThread, "MQ_VQ_PAIRS_SET: data too short (%u bytes)", unsigned(req.data.size()));
    reply(VIRTIO_NET_ERR);
    return VIRTIO_NET_ERR;
  }
  const unsigned n = le16(req.data.data());
  if (n == 0 || n > c.max_queue_pairs) {
    log_.error(kWorkerThread, "Invalid num_qps: %u (valid: 1-%u)", n, c.max_queue_pairs);
    reply(VIRTIO_NET_ERR);
    return VIRTIO_NET_ERR;
  }
  unsigned old = c.num_active_qps;
  log_.info(kWorkerThread, "MQ_VQ_PAIRS_SET: %u -> %u QPs", old, n);
  if (c.initial_data_qps_deferred && old != 0) old = 0;  // QP0 is started later, with the rest
  if (n == old) {
    c.deferred_mq.reset();
    log_.debug(kWorkerThread, "num_qps unchanged");
    reply(VIRTIO_NET_OK);
    return VIRTIO_NET_OK;
  }
  if (n < old) {
    // Synchronous, inside the callback, before the reply.
    c.deferred_mq.reset();
    log_.info(kWorkerThread, "Stopping QPs %u-%u (VQs %u-%u)", n, old - 1, 2 * n, 2 * old - 1);
    w.then(cost(vnet::timing::work_vq_group_disable_ps), [this, i, n, old] {
      controllers_[i].engine->vq_group_disable(2 * n, 2 * old - 1);
    });
    for (unsigned q = 2 * n; q < 2 * old; ++q)
      w.then(cost(vnet::timing::work_vq_stop_ps), [this, i, q] { controllers_[i].engine->vq_stop(q); });
    w.then([this, i, n, old, reply] {
      Controller& c = controllers_[i];
      log_.info(kWorkerThread, "Successfully stopped QPs %u-%u", n, old - 1);
      c.num_active_qps = n;
      c.initial_data_qps_deferred = false;
      reply(VIRTIO_NET_OK);
    });
    return VIRTIO_NET_OK;
  }
  // Growing: answered OK at once, started in the background (Linux busy-polls the CVQ, and
  // probes serially: blocking here for the whole start caused soft lockups).
  reply(VIRTIO_NET_OK);
  bool all_ready = true;
  for (unsigned k = 0; k < num_ep(); ++k) all_ready = all_ready && controller_ready(k);
  if (opt_.static_mode() && num_ep() > 1 && !all_ready) {
    c.deferred_mq = std::make_pair(old, n);
    log_.info(kWorkerThread, "MQ defer: deferring MQ start %u -> %u until all %u static devices are live", old, n,
              num_ep());
    return VIRTIO_NET_OK;
  }
  spawn_mq_start(i, old, n, kWorkerThread);
  return VIRTIO_NET_OK;
}

bool VnetApp::controller_ready(unsigned i) const {
  const Controller& c = controllers_[i];
  return c.io_ctx_started && c.device_present && c.engine_enabled && !c.cleanup_running &&
         !c.initialization_in_progress && (devices_[i]->status() & VIRTIO_CONFIG_S_DRIVER_OK);
}

void VnetApp::release_deferred_mq(const char* thread) {
  unsigned deferred = 0;
  for (unsigned i = 0; i < num_ep(); ++i) {
    if (!controller_ready(i)) return;
    deferred += controllers_[i].deferred_mq ? 1 : 0;
  }
  if (deferred == 0) return;
  log_.info(thread, "MQ defer: all %u/%u controllers live - releasing %u deferred MQ starts", num_ep(), num_ep(), deferred);
  for (unsigned i = 0; i < num_ep(); ++i) {
    Controller& c = controllers_[i];
    if (!c.deferred_mq) continue;
    const auto [old_qps, new_qps] = *c.deferred_mq;
    c.deferred_mq.reset();
    log_.info(thread, "MQ defer: enumeration settled, releasing deferred MQ start %u -> %u on PF[%u]", old_qps, new_qps, i);
    spawn_mq_start(i, old_qps, new_qps, thread);
  }
}

void VnetApp::spawn_mq_start(unsigned i, unsigned old_qps, unsigned new_qps, const char* thread) {
  // Completed threads are reaped (joined) whenever a new one is submitted.
  for (auto it = mq_threads_.begin(); it != mq_threads_.end();) {
    if ((*it)->done && (*it)->activity.idle()) it = mq_threads_.erase(it);
    else ++it;
  }
  auto t = std::make_unique<MqThread>(later_, i, old_qps, new_qps, "vnet.mq" + std::to_string(mq_spawned_++));
  ++controllers_[i].mq_threads;
  log_.info(thread, "MQ start QPs %u -> %u spawned as joinable thread (parallel execution)", old_qps, new_qps);
  ctx_.sink_event(t->thread, "thread_start").u64("ep", i).u64("old_qps", old_qps).u64("new_qps", new_qps);
  MqThread& ref = *t;
  mq_threads_.push_back(std::move(t));
  run_mq_thread(ref);
}

void VnetApp::run_mq_thread(MqThread& t) {
  pcie::Activity& a = t.activity;
  a.then([this, &t] {
    log_.info(t.thread, "MQ start thread waiting for semaphore slot (max %u concurrent)...", MQ_START_MAX_CONCURRENT);
    if (mq_running_ >= MQ_START_MAX_CONCURRENT) {
      mq_waiting_.push_back(&t);
      t.activity.suspend();
    } else {
      ++mq_running_;
    }
  });
  a.then([this, &t] {
    trace_mq_running_ = mq_running_;
    log_.info(t.thread, "MQ start thread acquired semaphore slot");
    log_.info(t.thread, "Background thread: starting MQ QPs %u -> %u", t.old_qps, t.new_qps);
    log_.info(t.thread, "Starting QPs %u-%u (VQs %u-%u)", t.old_qps, t.new_qps - 1, 2 * t.old_qps, 2 * t.new_qps - 1);
    // start_additional_queue_pairs: per QP, the cancel check, then RX and TX from the shadow.
    const std::vector<VqShadow> shadow = devices_[t.ctrl]->shadows();
    for (unsigned qp = t.old_qps; qp < t.new_qps; ++qp) {
      t.activity.then([this, &t, qp, shadow] {
        if (!t.done && devices_[t.ctrl]->cancel_in_progress) {
          log_.info(t.thread, "start_additional_queue_pairs: cancelled at QP%u/%u due to device reset", qp, t.new_qps);
          log_.error(t.thread, "Background thread: MQ start QPs failed: %s", "cancelled by device reset");
          t.done = true;
        }
        if (t.done) return;
        set_conf_and_start(t.ctrl, 2 * qp, shadow[2 * qp], t.activity, t.thread.c_str(), true);
        set_conf_and_start(t.ctrl, 2 * qp + 1, shadow[2 * qp + 1], t.activity, t.thread.c_str(), true);
        t.activity.then(cost(vnet::timing::mq_qp_yield_ps), [] {});
      });
    }
    t.activity.then([this, &t] {
      if (t.done) return mq_thread_exit(t);
      t.activity.then(cost(vnet::timing::work_vq_group_enable_ps), [this, &t] {
        Controller& c = controllers_[t.ctrl];
        c.engine->vq_group_enable(2 * t.old_qps, 2 * t.new_qps - 1);
        log_.info(t.thread, "Successfully started QPs %u-%u", t.old_qps, t.new_qps - 1);
        c.num_active_qps = t.new_qps;
        c.initial_data_qps_deferred = false;
        submit(WorkType::CREATE_STATS_LIST, t.ctrl);
        log_.info(t.thread, "Background thread: MQ start QPs %u -> %u completed successfully", t.old_qps, t.new_qps);
        t.done = true;
        mq_thread_exit(t);
      });
    });
  });
}

void VnetApp::mq_thread_exit(MqThread& t) {
  ctx_.sink_event(t.thread, "thread_exit");
  --controllers_[t.ctrl].mq_threads;
  --mq_running_;
  if (!mq_waiting_.empty()) {
    MqThread* next = mq_waiting_.front();
    mq_waiting_.pop_front();
    ++mq_running_;
    next->activity.resume();
  }
  trace_mq_running_ = mq_running_;
}

}  // namespace dpusim::vnet
