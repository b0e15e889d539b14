// Device families: how a platform document names a kind of device side (the app-emulated
// switch with its endpoints, its options) and how the platform builds it. The generic
// topology of test endpoints behind the generic switch needs no family; a family replaces
// that switch and those endpoints with its own, below the same host and host link.
//
// A family is registered once in models/platform/families.cpp. The document selects it with
//   "topology": {"family": NAME, "options": {...}, "firmware": {...}}
// and the family parses its options (and its firmware parameters) (refusing bad ones with the JSON path and its own
// message), says how many endpoints and network ports it has, and builds a FamilyInstance.
#pragma once

#include <systemc>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/function.h"
#include "tlm/link.h"
#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/sim_context.h"

namespace dpusim::platform {

// What a family builds with.
struct FamilyBuild {
  pcie::SimContext& ctx;
};

// The device side of a running platform.
class FamilyInstance {
 public:
  virtual ~FamilyInstance() = default;
  // The port the host link's lower end binds to (the switch's upstream port).
  virtual pcie::Port& upstream_port() = 0;
  // The function at a component path ("switch.usp", "switch.dsp1", "ep0"), or null.
  virtual pcie::Function* function(const std::string& path) = 0;
  // The endpoint (its DMA, its fidelity: tlm/dma.h) at a component path ("ep0"), or null.
  virtual pcie::EndpointBase* endpoint(const std::string& path) { return nullptr; }
  // The network port of endpoint `ep`, or null when it has none.
  virtual net::NetEnd* network_port(unsigned ep) = 0;
  // The network port of VF `vf` of endpoint `ep` (a wire's "ep<i>.vf<j>"), or null.
  virtual net::NetEnd* vf_network_port(unsigned /*ep*/, unsigned /*vf*/) { return nullptr; }
  virtual void trace(sc_core::sc_trace_file* vcd) = 0;
  // The end of the run, before the log closes: the modelled application's own shutdown.
  // `run_until(done)` advances simulated time until done() holds or nothing is left to run.
  virtual void shutdown(const std::function<void(const std::function<bool()>&)>& run_until) = 0;
  // Frames the device side still holds (queues, DMA in progress), for the frame ledger.
  virtual uint64_t frames_in_flight() const = 0;
};

// A family's parsed options.
class FamilyConfig {
 public:
  virtual ~FamilyConfig() = default;
  virtual unsigned endpoints() const = 0;
  virtual bool has_network_port(unsigned ep) const = 0;
  // The SR-IOV VFs endpoint `ep` can have (each with a network port), and the option that sets
  // their number ("topology.options.total-vfs"), for a wire end's error.
  virtual unsigned vfs(unsigned /*ep*/) const { return 0; }
  virtual const char* vfs_option() const { return "SR-IOV VFs"; }
  virtual std::unique_ptr<FamilyInstance> build(const FamilyBuild& b) const = 0;
  // One line for the platform_start event ("vnet num-ep=4 hotplug-mode=0 ...").
  virtual std::string describe() const = 0;
};

struct DeviceFamily {
  const char* name;
  const char* summary;
  // Parses the options object and the firmware object (the device side's own parameters,
  // empty when the document gives none) of the topology at JSON path `topology_path`
  // ("$.topology"); throws DocError (doc_error.h) naming "<topology_path>.options.<key>" or
  // "<topology_path>.firmware.<key>".
  std::shared_ptr<const FamilyConfig> (*parse)(const nlohmann::json& options, const nlohmann::json& firmware,
                                               const std::string& topology_path);
};

// The registered families (families.cpp), in name order.
const std::vector<DeviceFamily>& device_families();
const DeviceFamily* find_family(const std::string& name);

}  // namespace dpusim::platform
