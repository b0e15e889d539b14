#include "vnet/app/cvq_handler.h"

#include "vnet/app/mq_start.h"
#include "vnet/virtio/virtio_function.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace dpusim::virtio;

void CvqHandler::ctrl_req_arrived(unsigned i, CtrlReq req) {
  devs_.controllers[i].pe2.push_back(std::move(req));
  work_.wq.pe_activity();
}

void CvqHandler::progress_pes(pcie::Activity& w) {
  for (unsigned i = 0; i < devs_.num_ep(); ++i) {
    Controller& c = devs_.controllers[i];
    while (!c.pe2.empty()) {
      CtrlReq req = std::move(c.pe2.front());
      c.pe2.pop_front();
      handle(i, std::move(req), w);
    }
  }
}

void CvqHandler::handle(unsigned i, CtrlReq req, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  env_.log.info(kWorkerThread, "ctrl_req received: cls=%u, cmd=%u, controller=%s", unsigned(req.cls), unsigned(req.cmd),
            object_id("controller", i).c_str());
  // One-time delay before the first request of a controller whose data QPs are deferred,
  // so that enumeration of the other static endpoints settles first.
  if (c.initial_data_qps_deferred && !c.first_ctrl_req_delay_done) {
    c.first_ctrl_req_delay_done = true;
    w.then(env_.cost(vnet::timing::ctrl_req_delay_ps), [] {});
  }
  w.then([this, i, req, &w] {
    uint8_t status = VIRTIO_NET_ERR;
    switch (VirtioFunction::ctrl_kind(req)) {
      case VirtioFunction::CtrlKind::BACKEND: {
        const char* cls = req.cls == VIRTIO_NET_CTRL_RX ? "RX" : req.cls == VIRTIO_NET_CTRL_MAC ? "MAC" : "VLAN";
        env_.log.info(kWorkerThread, "%s ctrl cmd: %u (handled by backend)", cls, unsigned(req.cmd));
        status = VIRTIO_NET_OK;
        break;
      }
      case VirtioFunction::CtrlKind::MQ_VQ_PAIRS_SET:
        return void(vq_pairs_set(i, req, w));
      case VirtioFunction::CtrlKind::UNSUPPORTED_MQ:
        env_.log.warn(kWorkerThread, "Unsupported MQ cmd: %u", unsigned(req.cmd));
        break;
      case VirtioFunction::CtrlKind::UNSUPPORTED_CLASS:
        env_.log.warn(kWorkerThread, "Unsupported ctrl class: %u", unsigned(req.cls));
    }
    if (Controller& c = devs_.controllers[i]; c.engine) c.engine->ctrl_req_complete(req.head, status);
  });
}

uint8_t CvqHandler::vq_pairs_set(unsigned i, const CtrlReq& req, pcie::Activity& w) {
  Controller& c = devs_.controllers[i];
  auto reply = [this, i, head = req.head](uint8_t status) { devs_.controllers[i].engine->ctrl_req_complete(head, status); };
  const std::optional<unsigned> pairs = VirtioFunction::vq_pairs(req);
  if (!pairs) {
    env_.log.error(kWorkerThread, "MQ_VQ_PAIRS_SET: data too short (%u bytes)", unsigned(req.data.size()));
    reply(VIRTIO_NET_ERR);
    return VIRTIO_NET_ERR;
  }
  const unsigned n = *pairs;
  if (!VirtioFunction::vq_pairs_valid(n, c.max_queue_pairs)) {
    env_.log.error(kWorkerThread, "Invalid num_qps: %u (valid: 1-%u)", n, c.max_queue_pairs);
    reply(VIRTIO_NET_ERR);
    return VIRTIO_NET_ERR;
  }
  unsigned old = c.num_active_qps;
  env_.log.info(kWorkerThread, "MQ_VQ_PAIRS_SET: %u -> %u QPs", old, n);
  if (c.initial_data_qps_deferred && old != 0) old = 0;  // QP0 is started later, with the rest
  if (n == old) {
    c.deferred_mq.reset();
    env_.log.debug(kWorkerThread, "num_qps unchanged");
    reply(VIRTIO_NET_OK);
    return VIRTIO_NET_OK;
  }
  if (n < old) {
    // Synchronous, inside the callback, before the reply.
    c.deferred_mq.reset();
    env_.log.info(kWorkerThread, "Stopping QPs %u-%u (VQs %u-%u)", n, old - 1, 2 * n, 2 * old - 1);
    w.then(env_.cost(vnet::timing::work_vq_group_disable_ps), [this, i, n, old] {
      devs_.controllers[i].engine->vqs().vq_group_disable(2 * n, 2 * old - 1);
    });
    for (unsigned q = 2 * n; q < 2 * old; ++q)
      w.then(env_.cost(vnet::timing::work_vq_stop_ps), [this, i, q] { devs_.controllers[i].engine->vqs().vq_stop(q); });
    w.then([this, i, n, old, reply] {
      Controller& c = devs_.controllers[i];
      env_.log.info(kWorkerThread, "Successfully stopped QPs %u-%u", n, old - 1);
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
  for (unsigned k = 0; k < devs_.num_ep(); ++k) all_ready = all_ready && mq_.controller_ready(k);
  if (env_.opt.static_mode() && devs_.num_ep() > 1 && !all_ready) {
    c.deferred_mq = std::make_pair(old, n);
    env_.log.info(kWorkerThread, "MQ defer: deferring MQ start %u -> %u until all %u static devices are live", old, n,
              devs_.num_ep());
    return VIRTIO_NET_OK;
  }
  mq_.spawn(i, old, n, kWorkerThread);
  return VIRTIO_NET_OK;
}

}  // namespace dpusim::vnet
