// A platform: everything one run simulates, built from a platform document. The host's link
// goes to the switch's upstream port; downstream port i's link goes to slot i's endpoint.
//
//   root bus 0:  switch upstream port 00:00.0 (its secondary, bus 1, is the switch's own bus)
//   bus 1:       downstream port i at 01:i.0, secondary = subordinate = 2+i once enumerated
//   bus 2+i:     slot i's endpoint at (2+i):00.0
//
// One platform per process: SystemC cannot elaborate twice (the Python runtime forks first).
// Python owns the run loop: it calls advance(), which runs the kernel until a notification is
// posted (a completion Python awaits, a watched event, a violation) or the time it names.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/family.h"
#include "guest/guest_datapath.h"
#include "tlm/link.h"
#include "switch/pcie_switch.h"
#include "net/peers.h"
#include "platform/platform_doc.h"
#include "host/linux_bridge.h"
#include "host/root_complex.h"
#include "tlm/sim_context.h"
#include "tlm/trace_writer.h"
#include "tlm/vcd_file.h"

namespace dpusim::platform {

struct Outputs {
  std::string event_log;  // file path; empty = in memory (take_log())
  std::string vcd;        // file path without ".vcd"; empty = none
  std::string pcap_dir;   // one pcap per wire here (wire_file_name); empty = none
  std::string trace;      // the Chrome trace (trace.json, tlm/trace_writer.h); empty = none
};

// The capture file of wire `index`: "wire0_ep0_loopback.pcap".
std::string wire_file_name(unsigned index, const WireSpec& w);

class Platform {
 public:
  Platform(const PlatformSpec& spec, const Outputs& outputs);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  pcie::SimContext& ctx() { return *ctx_; }
  host::RootComplex& host() { return *host_; }
  sw::PcieSwitch* pcie_switch() { return switch_; }  // null on a device family's platform
  FamilyInstance* family() { return family_.get(); }
  const PlatformSpec& spec() const { return spec_; }
  unsigned slots() const { return unsigned(spec_.slots.size()); }
  // The endpoint in a slot of the generic switch, or null (empty slot, or a family's platform).
  EndpointInstance* endpoint(unsigned slot) { return slot < endpoints_.size() ? endpoints_[slot].get() : nullptr; }
  // The function at a component path ("switch.usp", "switch.dsp3", "ep2"), or null.
  pcie::Function* function(const std::string& path);
  // The endpoint at a path ("ep2"), or null; every endpoint, in index order.
  pcie::EndpointBase* endpoint_base(const std::string& path);
  std::vector<pcie::EndpointBase*> endpoint_bases();
  // The fidelity of one endpoint's DMA (`path` "ep0"), or of every endpoint (`path` empty), from
  // now on (tlm/dma.h). Throws std::invalid_argument naming an unknown endpoint.
  void set_fidelity(pcie::Fidelity f, const std::string& path);

  // Runs until a notification is waiting, `until_ps` is reached, or nothing is left to run.
  void advance(uint64_t until_ps);
  static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
  // The trace being written (--trace), or null.
  pcie::TraceWriter* trace_writer() { return trace_.get(); }
  bool pending_activity() const { return sc_core::sc_pending_activity(); }

  // Host operations that complete through a Completion notification carrying `token`.
  uint64_t config_read(uint16_t bdf, uint16_t offset, unsigned size);
  uint64_t config_write(uint16_t bdf, uint16_t offset, unsigned size, uint32_t value);
  uint64_t mem_read(uint64_t addr, size_t len);
  uint64_t mem_write(uint64_t addr, std::vector<uint8_t> bytes);
  uint64_t raw(const tlp::Header& h, std::vector<uint8_t> bytes);
  // A frame from the Python-driven end of `wire` (throws std::invalid_argument if it has none).
  uint64_t send_frame(unsigned wire, std::vector<uint8_t> bytes);
  unsigned wires() const { return unsigned(wires_.size()); }
  // The mesh (null when the document names none).
  net::Mesh* mesh() { return mesh_; }

  // A C++ guest driver datapath (models/guest) taking over a device's queues: `make` builds it
  // on the run's context, the host, the drivers' timers and the id it gets, which is returned.
  // Each device's driver is built by whoever knows the device (the Python bindings); the
  // platform only owns them. Throws std::invalid_argument when a driver named `name` is
  // attached already, or for a bad hand-over (from `make`).
  using GuestFactory = std::function<std::unique_ptr<guest::GuestDatapath>(
      pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id)>;
  uint64_t attach_guest(const std::string& name, const GuestFactory& make);
  // A C++ driver by id; throws std::invalid_argument if there is none.
  guest::GuestDatapath& guest_datapath(uint64_t id);

  // The bridge to a user-mode Linux kernel (host/linux_bridge.h), made on first use.
  host::LinuxBridge& linux_bridge();

  // Ends the run: the device family's shutdown (which may advance simulated time), the frame
  // ledger checked, the VCD closed (with its fixed date), the log flushed. Nothing may run
  // afterwards.
  void finish();
  bool failed() const { return failed_ || ctx_->checker.failed(); }
  const std::string& failure() const { return failure_.empty() ? ctx_->checker.first_failure() : failure_; }
  // A SystemC warning or error fails the run (reported through the log, never stdout).
  void report_failure(const std::string& message);

 private:
  void build_test_topology(pcie::Link& host_link);
  void build_wires();
  void build_mesh();
  void build_traces();
  void run_until(const std::function<bool()>& done);
  pcie::Requester::Done completion(uint64_t token);

  PlatformSpec spec_;
  Outputs outputs_;
  std::unique_ptr<pcie::SimContext> ctx_;
  host::RootComplex* host_ = nullptr;
  sw::PcieSwitch* switch_ = nullptr;
  std::unique_ptr<FamilyInstance> family_;
  std::vector<net::Wire*> wires_;
  net::Mesh* mesh_ = nullptr;
  std::vector<std::unique_ptr<net::NetEnd>> peers_;
  std::map<unsigned, net::PythonPeer*> python_peers_;  // by wire index
  std::vector<pcie::Link*> links_;
  std::vector<std::unique_ptr<EndpointInstance>> endpoints_;
  std::vector<std::unique_ptr<pcie::Port>> empty_ports_;  // far ends of empty slots' links
  std::vector<sc_core::sc_object*> owned_;  // modules, deleted with the platform
  std::unique_ptr<pcie::VcdFile> vcd_;  // waves.vcd
  pcie::TimedQueue* guest_timer_ = nullptr;  // the C++ guest drivers' timers (and the Linux bridge's)
  std::unique_ptr<host::LinuxBridge> linux_;
  std::vector<std::unique_ptr<guest::GuestDatapath>> guests_;
  std::unique_ptr<pcie::TraceWriter> trace_;
  uint64_t next_token_ = 1;
  bool finished_ = false;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace dpusim::platform
