#include "vnet/virtio/vnet_endpoint.h"

#include "vnet/sriov/sriov_limits.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

using namespace sc_core;

VnetEndpoint::VnetEndpoint(sc_module_name name, pcie::SimContext& ctx, unsigned index, unsigned num_vqs,
                           pcie::Function& fn, uint16_t msix_cap, std::function<uint64_t()> speed_mbps)
    : EndpointBase(name, ctx, fn, timing::fw_mmio_ps),
      VnetEngine(ctx, sc_object::name(), index, num_vqs, *this, pcie::FunctionDma(dma()), *this),
      speed_mbps_(std::move(speed_mbps)) {
  unsupported_by = "the endpoint's firmware";
  // The datapath (datapath.cpp, split_ring.cpp) continues only from completions and sets its
  // state before each access: in lt mode its completions may run nested (tlm/quantum_keeper.h).
  dma().allow_nested_completions(true);
  set_msix(&add_msix(msix_cap, VNET_PCI_DEV_NUM_MSIX, 0, VNET_BAR0_MSIX_TABLE, VNET_BAR0_MSIX_PBA,
                     VNET_BAR0_MSIX_TABLE_LEN, VNET_BAR0_MSIX_PBA_LEN));
  // The doorbell's address names the queue (queue_notify_off × 8); the driver writes its index.
  add_region({"doorbells", 0, VNET_BAR0_DOORBELL, VNET_BAR0_DOORBELL_LEN, nullptr,
              [this](uint64_t off, const uint8_t*, size_t) { kick(unsigned(off) >> VNET_PCI_DEV_DB_STRIDE_LOG); }});
}

void VnetEndpoint::trace(sc_trace_file* vcd) {
  trace_vqs(vcd, name());
  sc_trace(vcd, dma().trace_outstanding, std::string(name()) + ".outstanding_np", 32);
}

// The VFs' slices as a pseudo-BAR 1 of VNET_SRIOV_MAX_TOTAL_VFS slices: its offset is
// vf x 32 KiB + the offset in the VF's slice.
std::optional<pcie::BarHit> VnetEndpoint::decode(uint64_t address) const {
  const uint64_t base = function().bar_address(0);
  if (base != 0 && address >= base && address - base < VNET_BAR0_SIZE) return pcie::BarHit{0, address - base};
  if (vf_.at)
    if (const auto hit = vf_.at(address)) return pcie::BarHit{1, uint64_t(hit->first) * VNET_BAR0_SIZE + hit->second};
  return std::nullopt;
}

uint64_t VnetEndpoint::bar_size(unsigned bar) const {
  return bar == 0 ? VNET_BAR0_SIZE : bar == 1 && vf_.at ? VNET_BAR0_SIZE * VNET_SRIOV_MAX_TOTAL_VFS : 0;
}

uint16_t VnetEndpoint::completer_id(const pcie::BarHit& hit) const {
  return hit.bar == 1 ? vf_.rid(unsigned(hit.offset / VNET_BAR0_SIZE)) : function().id();
}

void VnetEndpoint::serve_vf_firmware(VfFirmware f) {
  vf_ = std::move(f);
  add_region({"vf_firmware", 1, 0, VNET_BAR0_SIZE * VNET_SRIOV_MAX_TOTAL_VFS,
              [this](uint64_t off, uint8_t* out, size_t n) {
                vf_.read(unsigned(off / VNET_BAR0_SIZE), off % VNET_BAR0_SIZE, out, n);
              },
              [this](uint64_t off, const uint8_t* in, size_t n) {
                vf_.write(unsigned(off / VNET_BAR0_SIZE), off % VNET_BAR0_SIZE, in, n);
              }});
}

}  // namespace dpusim::vnet
