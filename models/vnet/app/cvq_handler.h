// The PF's control virtqueue (DOCA vnet_pci_dev's ctrl_req handler, virtio 1.2 §5.1.6.5): a
// request the offload engine's IO context takes from the CVQ waits on its controller's PE2
// until the config worker progresses the PEs, then is answered as the shared virtio function
// decodes it (virtio_function.h): RX, MAC and VLAN classes acknowledged (the backend handles
// them), VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET validated and applied — a decrease synchronously, an
// increase answered at once and started in the background (mq_start.h) —, anything else
// VIRTIO_NET_ERR.
#pragma once

#include "tlm/activity.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class MqStart;

class CvqHandler {
 public:
  CvqHandler(AppEnv& env, AppDevices& devs, AppWork& work, MqStart& mq)
      : env_(env), devs_(devs), work_(work), mq_(mq) {}

  // The IO context delivered a request of controller `i` (it waits on the controller's PE2).
  void ctrl_req_arrived(unsigned i, CtrlReq req);
  // The worker progresses every PE once: each waiting request is handled on it.
  void progress_pes(pcie::Activity& worker);

 private:
  void handle(unsigned i, CtrlReq req, pcie::Activity& w);
  uint8_t vq_pairs_set(unsigned i, const CtrlReq& req, pcie::Activity& w);

  AppEnv& env_;
  AppDevices& devs_;
  AppWork& work_;
  MqStart& mq_;
};

}  // namespace dpusim::vnet
