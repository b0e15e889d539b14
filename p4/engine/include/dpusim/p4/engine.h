// dpusim's P4 match-action engine: loads a bmv2 JSON program (p4c's v1model output), takes
// table updates shaped like P4Runtime's, and runs frames through parser, ingress, egress and
// deparser with bmv2 simple_switch's semantics. Plain C++17, no SystemC, no threads, no
// clock: the same program, entries and frames always give the same bytes.
//
// Two port policies sit on top of one port-agnostic executor:
//   kDevice  - the ionic NIC's two ports (P4_PORT_HOST 0, P4_PORT_UPLINK 1). A program that
//              never assigns egress_spec forwards to the other port; a port the device does
//              not have is a drop.
//   kV1Model - bmv2 simple_switch's: ports 0..510, an unassigned egress_spec is port 0, 511
//              drops. The STF runner uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/extern.h"
#include "dpusim/p4/stats.h"
#include "dpusim/p4/update.h"
#include "dpusim/p4/value.h"

namespace dpusim::p4 {

inline constexpr std::uint32_t P4_PORT_HOST = 0;
inline constexpr std::uint32_t P4_PORT_UPLINK = 1;

enum class PortPolicy { kDevice, kV1Model };

// Why a frame was not forwarded.
enum class DropReason {
  kNone,
  kTooSmall,      // shorter than P4_MIN_FRAME_BYTES, or deparsed to nothing
  kTooBig,        // longer than P4_MAX_FRAME_BYTES, in or out
  kIngressDrop,   // egress_spec was the drop port (511) at the end of ingress
  kEgressDrop,    // ... at the end of egress
  kNoSuchPort,    // egress_spec names a port the device does not have
  kFault,         // a runtime fault (see Verdict::fault)
  kExternStop,    // an extern asked the pipeline to stop (metadata runs only)
};
const char* drop_reason_name(DropReason reason);

struct Verdict {
  bool dropped = false;
  DropReason reason = DropReason::kNone;
  std::uint32_t port = 0;                // egress port when forwarded
  const std::uint8_t* data = nullptr;    // the deparsed frame; valid until the next call
  std::size_t size = 0;
  const char* fault = nullptr;           // what faulted, for kFault
};

// What a control plane needs to know of a loaded program's tables and actions.
struct KeyDesc {
  std::string name;        // the name updates use
  std::string target;      // "header.field" (or "header.$valid$")
  std::string match_kind;  // exact, lpm, ternary, optional, valid
  int width = 0;
};
struct ActionDesc {
  std::string name;
  std::vector<std::pair<std::string, int>> params;  // name, width
};
// What a device needs to know of a program's headers (the RDMA path checks rdma_metadata).
struct HeaderDesc {
  std::string name;  // the instance's name
  std::string type;  // its header type's name
  bool metadata = false;
  bool emitted = false;  // the deparser emits it
  std::vector<std::pair<std::string, int>> fields;  // name, width
};
struct TableDesc {
  std::string name;
  std::string match_type;  // exact, lpm, ternary
  std::vector<KeyDesc> keys;
  std::vector<ActionDesc> actions;
  std::uint32_t max_size = 0;
  std::size_t entries = 0;
  bool immutable = false;
};

struct LoadOptions {
  PortPolicy policy = PortPolicy::kDevice;
  const ExternRegistry* externs = nullptr;  // extern types a program may use (none: refused)
};

class Engine {
 public:
  // Loads and validates a program. On refusal returns null with *error set.
  static std::unique_ptr<Engine> load(std::string_view json, const LoadOptions& options, LoadError* error);
  static std::unique_ptr<Engine> load_file(const std::string& path, const LoadOptions& options, LoadError* error);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The single path by which any control plane changes a table.
  bool update(const TableUpdate& update, UpdateError* error);

  // Runs one frame that arrived on `in_port`. The verdict's data points into the engine
  // and stays valid until the next call.
  Verdict process(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size);

  const Stats& stats() const;
  Stats& mutable_stats();  // for the attachment's own counters (to_guest, egress_errors...)
  PortPolicy policy() const;
  // "<program>: N headers, N tables (N exact, N lpm, N ternary), N actions, ..." on one line.
  std::string summary() const;
  // Tables in the JSON's order, ingress first.
  std::vector<TableDesc> describe_tables() const;
  // Header instances in the JSON's order, metadata included.
  std::vector<HeaderDesc> describe_headers() const;
  // The options the program was loaded with (which extern registry its calls go to).
  const LoadOptions& load_options() const;

  // --- The RDMA path's metadata-only run -------------------------------------------------
  // A handle for a field named "header.field" (field aliases included), or -1.
  int field_handle(const std::string& name) const;
  int field_width(int handle) const;
  // Runs the ingress pipeline with no parser and no deparser: headers invalid, metadata
  // zero except the given (handle, value) inputs. Returns the verdict of the end of
  // ingress (dropped when egress_spec is 511; kExternStop when an extern stopped it).
  Verdict run_ingress_metadata(const std::vector<std::pair<int, Value>>& inputs);
  // Reads a field as the last run left it.
  Value read_field(int handle) const;
  // The per-run context handed to extern methods (ExternCall::context).
  void set_extern_context(void* context);

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dpusim::p4
