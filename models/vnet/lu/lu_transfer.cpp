#include "vnet/lu/lu_transfer.h"

namespace dpusim::vnet {

LuExport lu_capture(const VnetOptions& opt, const AppDevices& devs, const std::vector<unsigned>& eps, uint32_t state) {
  LuExport e;
  e.state = state;
  e.base_mac = opt.mac;
  for (unsigned i : eps) {
    const VirtioPciDevice& dev = *devs.devices[i];
    const Controller& c = devs.controllers[i];
    ++e.populated_slots;
    e.presence_bitmap |= 1u << i;
    LuDeviceRecord d;
    d.vhca_id = lu_vhca_id(i);
    d.mac = dev.mac();
    d.mtu = uint16_t(opt.mtu);
    d.features = dev.negotiated_features();
    d.max_qps = uint16_t(dev.max_queue_pairs());
    d.active_qps = uint16_t(c.num_active_qps);
    d.queue_size = dev.configured_queue_size();
    d.mq = c.mq_negotiated;
    for (unsigned q = 0; q < dev.num_queues(); ++q) {
      const VqShadow& s = dev.shadow(q);
      d.vqs.push_back(LuVqRecord{uint16_t(q), s.size, s.msix, s.enable != 0, s.desc, s.driver, s.device});
    }
    d.blob = lu_engine_blob_write(LuEngineBlob{d.vhca_id, d.mtu, dev.num_queues(), d.mac, d.features});
    e.devices.push_back(std::move(d));
  }
  return e;
}

std::vector<VqShadow> lu_restore(const LuDeviceRecord& r, AppDevices& devs, unsigned ep) {
  VirtioPciDevice& dev = *devs.devices[ep];
  Controller& c = devs.controllers[ep];
  // Status forced to ACK|DRIVER|FEATURES_OK|DRIVER_OK, what the driver wrote.
  dev.set_status(0x0F);
  dev.prev_status = 0x0F;
  devs.note_status(ep);
  std::vector<VqShadow> shadows(dev.num_queues());
  for (const LuVqRecord& v : r.vqs) {
    if (v.number >= shadows.size()) continue;
    shadows[v.number] = VqShadow{v.size, v.msix, uint16_t(v.enabled ? 1 : 0), v.number, v.desc, v.driver, v.device};
  }
  dev.restore_for_lu(r.features, shadows);
  c.mq_negotiated = r.mq;
  c.max_queue_pairs = r.mq ? r.max_qps : 1;
  c.num_active_qps = r.active_qps;
  return shadows;
}

}  // namespace dpusim::vnet
