// The host: a root complex with no root-port model (its link goes straight to the switch's
// upstream port on root bus 0), host memory that devices reach by DMA, and the MSI receiver.
//
// Outbound, it issues what scenarios ask for: ECAM-style config requests (Type 0 to bus 0,
// Type 1 to any other bus), memory reads and writes, and raw TLPs. Inbound, it serves DMA:
// writes into allocated memory, reads completed at Max_Payload_Size and the Read Completion
// Boundary after the memory latency, writes to the MSI window (0xFEE00000..0xFEEFFFFF) turned
// into MSI events. DMA outside allocated memory is refused (a read gets UR, a write is dropped),
// logged, and reported to the invariant checker.
//
// Devices in lt mode (tlm/dma.h) get direct memory pointers into allocated host memory, a page
// (or the part of it one allocation covers) at a time; the MSI window and ranges a driver
// watches are refused, so those accesses stay TLPs; MSIs in lt mode come as loosely timed
// writes (b_transport) and are received at the time their TLP would have arrived. Grants are invalidated when memory is
// allocated or freed and when a watch is set or ends.
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "host/host_memory.h"
#include "tlm/port.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::host {

// Notifications the host posts for the Python runtime (tlm/sim_context.h): an MSI reached the
// MSI window (token = requester ID, address, status = data); a device's DMA write landed in a
// watched range of host memory (token = watch id).
inline constexpr pcie::NotificationKind kMsiNotification = "msi";
inline constexpr pcie::NotificationKind kMemoryWriteNotification = "memory_write";

struct HostSpec {
  unsigned max_payload_size = 256;       // bytes, for DMA read completions
  unsigned read_completion_boundary = 64;
  unsigned max_read_request_size = 512;  // for host-issued reads
  unsigned cpus = 4;
};

struct MsiEvent {
  uint64_t time_ps;
  uint16_t requester_id;
  uint64_t address;
  uint32_t data;
};

class RootComplex : public sc_core::sc_module {
 public:
  static constexpr uint64_t kMsiBase = 0xfee00000ull;
  static constexpr uint64_t kMsiEnd = 0xfef00000ull;
  static constexpr uint16_t kRequesterId = 0x0000;

  SC_HAS_PROCESS(RootComplex);
  RootComplex(sc_core::sc_module_name name, pcie::SimContext& ctx, const HostSpec& spec);

  pcie::Port port;
  pcie::Requester requester;
  HostMemory memory;

  using Done = pcie::Requester::Done;
  // Host-issued operations. They enter the fabric in call order at the next delta cycle;
  // `done` runs in simulation context when they complete.
  void config_read(uint16_t bdf, uint16_t offset, unsigned size, Done done);
  void config_write(uint16_t bdf, uint16_t offset, unsigned size, uint32_t value, Done done);
  void mem_read(uint64_t addr, size_t len, Done done);
  // `done` runs once the last TLP has left the root port (a posted write needs no more).
  void mem_write(uint64_t addr, std::vector<uint8_t> bytes, Done done);
  void send_raw(const tlp::Header& h, std::vector<uint8_t> bytes, Done done);

  // A range of host memory a driver spins on: the first DMA write that touches it calls
  // on_memory_write with the watch's id, at the moment it lands (a CPU polling the location
  // sees the change then). One-shot.
  uint64_t watch_memory(uint64_t addr, uint64_t len);
  void unwatch_memory(uint64_t id);
  std::function<void(uint64_t id)> on_memory_write;

  const std::vector<MsiEvent>& msis() const { return msis_; }
  // A driver running in C++ (models/guest) claims the MSIs of its queues: returning true, the
  // message is its, and is neither kept in msis() nor passed to on_msi. Asked first.
  std::function<bool(const MsiEvent&)> claim_msi;
  std::function<void(const MsiEvent&)> on_msi;  // the platform forwards them to Python

  uint32_t trace_msi_count = 0;
  uint32_t trace_msi_data = 0;

 private:
  void submit(std::function<void()> fn);
  void run_submissions();
  void on_receive(pcie::Tlp& t);
  void serve_write(pcie::Tlp& t);
  void serve_read(pcie::Tlp& t);
  void refuse_dma(const tlp::Header& h, const char* what);
  bool grant_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void transport_msi(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void receive_msi(const MsiEvent& ev);
  void invalidate_dmi(uint64_t start, uint64_t end);

  pcie::SimContext& ctx_;
  HostSpec spec_;
  pcie::TimedQueue later_;
  std::deque<std::function<void()>> submissions_;
  sc_core::sc_event submitted_;
  std::vector<MsiEvent> msis_;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> watches_;  // id -> [start, end)
  uint64_t next_watch_ = 1;
};

}  // namespace dpusim::host
