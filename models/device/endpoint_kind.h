// Endpoint kinds: what a slot of the generic switch can hold ("test", and each device model
// that plugs into a downstream port). A kind parses its slot object of the platform document
// (its options as slot keys, refusing bad ones with the JSON path), and builds the endpoint:
// an EndpointBase (tlm/endpoint_base.h) behind the slot's link, with a network port if the
// device has one.
//
// A kind is registered once in models/platform/kinds.cpp; the document selects it with
//   "topology": {"slots": [{"kind": NAME, ...its options...}, null, ...]}
#pragma once

#include <systemc>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/mesh.h"
#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/sim_context.h"

namespace dpusim::platform {

// Where the document came from, for options that name files: a relative path resolves
// against each of these folders in turn (the scenario's folder, then the repository root).
struct DocContext {
  std::vector<std::string> search_dirs;
};

// An endpoint in its slot, as the platform drives it.
class EndpointInstance {
 public:
  virtual ~EndpointInstance() = default;
  virtual pcie::EndpointBase& endpoint() = 0;
  // The endpoint's network port, or null when it has none.
  virtual net::NetEnd* network_port() { return nullptr; }
  // The endpoint's mesh port (net/mesh.h), or null when it has none.
  virtual net::MeshEnd* mesh_port() { return nullptr; }
  virtual void trace(sc_core::sc_trace_file* vcd) {}
  // Trace files of the endpoint's own beside the run's VCD, whose path (without ".vcd") is
  // `vcd_path` (an RTL block's Verilator trace). Called during elaboration, after trace().
  virtual void trace_beside(const std::string& vcd_path) {}
  // The end of the run, before the log closes (a device's own shutdown: stats lines...).
  // `run_until(done)` advances simulated time until done() holds or nothing is left to run.
  virtual void shutdown(const std::function<void(const std::function<bool()>&)>& run_until) {}
  // Frames the endpoint still holds, for the frame ledger.
  virtual uint64_t frames_in_flight() const { return 0; }
};

// A kind's parsed slot options.
class EndpointConfig {
 public:
  virtual ~EndpointConfig() = default;
  virtual bool has_network_port() const { return false; }
  virtual bool has_mesh_port() const { return false; }
  // Builds the endpoint named `name` ("ep2").
  virtual std::unique_ptr<EndpointInstance> build(pcie::SimContext& ctx, const std::string& name) const = 0;
  // One word or a few for the platform_start event ("test", "ionic p4=loopback.json").
  virtual std::string describe() const = 0;
  // Why the kind's endpoint has no lt fidelity (EndpointBase::lt_refusal), or null: the
  // document's "fidelity": "lt" is refused with it.
  virtual const char* lt_refusal() const { return nullptr; }
};

struct EndpointKind {
  const char* name;
  const char* summary;
  // Parses the slot object at JSON path `path` ("$.topology.slots[0]"; its "kind" key already
  // read); throws DocError (doc_error.h) naming "<path>.<key>".
  std::shared_ptr<const EndpointConfig> (*parse)(const nlohmann::json& slot, const std::string& path,
                                                 const DocContext& doc);
};

// The registered kinds (models/platform/kinds.cpp), in name order.
const std::vector<EndpointKind>& endpoint_kinds();
const EndpointKind* find_endpoint_kind(const std::string& name);

}  // namespace dpusim::platform
