// Moving bytes between the device and guest memory described as bus runs (rdma_mem.h): a
// gather reads the runs one after another through the function's DMA requester (each read a
// split MRd and its completions) and hands over the bytes when the last one completed; a
// scatter issues the posted writes in order. Shared by the Ethernet queues and the RDMA parts,
// which reach the device through a DeviceIo so that each runs on its own in a unit test.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ionic/rdma_decode.h"
#include "ionic/rdma_mem.h"
#include "tlm/endpoint_base.h"
#include "tlm/requester.h"

namespace dpusim::ionic {

// `done(bytes, ok)`: ok is false when a read completed with an error (bytes then empty).
using GatherDone = std::function<void(std::vector<uint8_t> bytes, bool ok)>;
void dma_gather(pcie::Requester& dma, std::vector<BusRun> runs, GatherDone done);
uint64_t runs_total(const std::vector<BusRun>& runs);
// How a part of the device reaches guest memory and its own time: EndpointIo over the NIC's
// endpoint base, or a unit test's fake.
class DeviceIo {
 public:
  virtual ~DeviceIo() = default;
  virtual void gather(std::vector<BusRun> runs, GatherDone done) = 0;  // as dma_gather
  virtual void write(uint64_t addr, const uint8_t* bytes, size_t len) = 0;  // one posted write
  // Runs `fn` after `delay` of the device's own time (EndpointBase::after).
  virtual void after(sc_core::sc_time delay, std::function<void()> fn) = 0;
  // Whether the device runs ahead of the kernel (lt), and `fn` run when the kernel reaches the
  // device's time (EndpointBase::ahead, at_local_time).
  virtual bool ahead() const = 0;
  virtual void at_local_time(std::function<void()> fn) = 0;
  // Writes `bytes` (exactly as long as the runs) over the runs: one posted write per non-empty
  // run, in order.
  void scatter(const std::vector<BusRun>& runs, const uint8_t* bytes);
};

class EndpointIo final : public DeviceIo {
 public:
  explicit EndpointIo(pcie::EndpointBase& device) : device_(device) {}
  void gather(std::vector<BusRun> runs, GatherDone done) override { dma_gather(device_.dma(), std::move(runs), std::move(done)); }
  void write(uint64_t addr, const uint8_t* bytes, size_t len) override { device_.dma().write(addr, bytes, len); }
  void after(sc_core::sc_time delay, std::function<void()> fn) override { device_.after(delay, std::move(fn)); }
  bool ahead() const override { return device_.ahead(); }
  void at_local_time(std::function<void()> fn) override { device_.at_local_time(std::move(fn)); }

 private:
  pcie::EndpointBase& device_;
};

// A buffer as the guest described it (direct, or a page table read by DMA) for a region whose
// first byte is at `va`: done(ok, the buffer, why not) once known.
void load_buf(DeviceIo& io, const BufDesc& d, uint64_t va, std::function<void(bool ok, GuestBuf buf, std::string why)> done);

}  // namespace dpusim::ionic
