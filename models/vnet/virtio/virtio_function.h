// One virtio-net PCI function as the application emulates it, the same for a PF and a VF
// (virtio 1.2 §4.1.4.3 common configuration, §2.1 device status, §5.1.6.5 control virtqueue):
// what a common-config DW write sets in motion, in the order the DOCA app's write handler takes
// it (register rules — byte merge, RO rollback, feature and queue selects, queue enable — are
// the register file's, virtio_device.h), the device-status edges (reset, ACKNOWLEDGE, DRIVER,
// FEATURES_OK, DRIVER_OK), and the decode of a control-virtqueue request.
//
// What differs between the functions is injected as a Lifecycle: the PF's synchronous reset
// with its per-device barrier and reset hold, FEATURES_OK and DRIVER_OK handing work items to
// the config worker, status edges taken against the status callback's own copy of the status
// (status_machine.h); a VF's lazy two-stage bring-up, edges taken against the status the write
// replaced (sriov/vf_function.h). Functions are numbered by the lifecycle (`fn`: the PF's
// endpoint index, a VF's device-wide vf_index).
#pragma once

#include <cstdint>
#include <optional>

#include "vnet/virtio/virtio_device.h"
#include "vnet/virtio/vnet_engine.h"

namespace dpusim::vnet {

class VirtioFunction {
 public:
  class Lifecycle {
   public:
    virtual ~Lifecycle() = default;
    // Before a common-config access is served.
    virtual void common_access(unsigned) {}
    // The write changed a read-only field: the register file was restored.
    virtual void rolled_back(unsigned) {}
    // device_feature_select 1 made VIRTIO_F_VERSION_1 visible to the driver.
    virtual void version_1_visible(unsigned) {}
    // Queue `q`'s configuration is to be applied (its enable went 0 -> 1, or its addresses
    // completed while enabled).
    virtual void vq_config(unsigned, unsigned /*q*/, bool /*enabled_edge*/) {}
    // The register file took the write (device_status may have changed).
    virtual void registers_written(unsigned) {}
    // A write that left device_status as it was is done.
    virtual void write_done(unsigned) {}
    // device_status was written from `old` to `now` (they differ).
    virtual void status_written(unsigned fn, uint8_t old, uint8_t now) = 0;
    // The status edges (status_edges()).
    virtual void device_reset(unsigned fn) = 0;
    virtual void acknowledge(unsigned) {}
    virtual void driver(unsigned) {}
    virtual void features_ok(unsigned fn) = 0;
    virtual void driver_ok(unsigned fn) = 0;
  };

  explicit VirtioFunction(Lifecycle& lifecycle) : lc_(lifecycle) {}

  // A DW write of function `fn`'s common config window (< VIRTIO_PCI_COMMON_CFG_SIZE) with
  // byte enables `be`, its effects handed to the lifecycle.
  void common_write(unsigned fn, VirtioPciDevice& dev, uint16_t dw_off, uint32_t data, uint8_t be);
  // The edges from status `before` to `now`: 0 is a device reset; otherwise each newly set bit
  // of ACKNOWLEDGE, DRIVER, FEATURES_OK, DRIVER_OK, in that order.
  void status_edges(unsigned fn, uint8_t before, uint8_t now);

  // A control-virtqueue request, by what the application does with it: RX, MAC and VLAN
  // classes are acknowledged (the backend applies them), MQ_VQ_PAIRS_SET is served by the
  // function, any other MQ command or class is answered VIRTIO_NET_ERR.
  enum class CtrlKind { BACKEND, MQ_VQ_PAIRS_SET, UNSUPPORTED_MQ, UNSUPPORTED_CLASS };
  static CtrlKind ctrl_kind(const CtrlReq& req);
  // MQ_VQ_PAIRS_SET's virtqueue_pairs (le16, struct virtio_net_ctrl_mq), or nothing when the
  // request carries fewer than 2 bytes.
  static std::optional<unsigned> vq_pairs(const CtrlReq& req);
  // A pair count the device takes: 1..max_queue_pairs (virtio 1.2 §5.1.6.5.5).
  static bool vq_pairs_valid(unsigned n, unsigned max_queue_pairs) { return n >= 1 && n <= max_queue_pairs; }

 private:
  Lifecycle& lc_;
};

}  // namespace dpusim::vnet
