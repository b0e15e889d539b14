// dpusim's P4 match-action engine: loads a bmv2 JSON program (p4c's v1model output), takes
// table updates shaped like P4Runtime's, and runs frames through parser, ingress, egress and
// deparser with bmv2 simple_switch's semantics. Plain C++17, no SystemC, no threads, no
// clock: the same program, entries and frames always give the same bytes.
//
// Packets flow as in simple_switch (targets/simple_switch/simple_switch.cpp): parser and
// checksum verification, ingress, then ingress clones, digests, resubmit, multicast or
// unicast; egress, egress clones, checksum update and deparser, recirculation. One input
// frame runs to completion (every packet it causes) before the next.
//
// Two port policies sit on top of one port-agnostic executor:
//   kDevice  - the ionic NIC's two ports (P4_PORT_HOST 0, P4_PORT_UPLINK 1). A program that
//              never assigns egress_spec forwards to the other port; a port the device does
//              not have is a drop.
//   kV1Model - bmv2 simple_switch's: ports 0..510, an unassigned egress_spec is port 0, 511
//              drops. The STF runner uses it.
//
// Two feature policies say which of the engine's features a program may use (FeaturePolicy).
// Under both, a program is a v1model program or is refused: one without v1model's parser,
// deparser, ingress and egress pipelines or standard_metadata.egress_spec is refused naming
// what it lacks (and PNA or PSA when it was written for one), never run with a block empty.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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

// The engine's feature policies:
//   kErnic - exactly what the P4 engine of rocm-ernic runs (its guide, "Status" and "Loading
//            a program"): "checksums and calculations; negative literals in actions; and
//            counters, meters, registers and action profiles. Each is refused by name rather
//            than ignored", and signed fields ("refused as a signed field anyway"). The ionic
//            device's default.
//   kBmv2  - everything the engine builds (bmv2 simple_switch's features): the default of the
//            engine itself, of `p4 switch` and of the STF runner.
enum class FeaturePolicy { kErnic, kBmv2 };
inline constexpr FeaturePolicy kFeaturePolicies[] = {FeaturePolicy::kErnic, FeaturePolicy::kBmv2};
const char* feature_policy_name(FeaturePolicy policy);  // "ernic", "bmv2"
bool feature_policy_from_name(const std::string& name, FeaturePolicy* policy);

// Why a frame was not forwarded.
enum class DropReason {
  kNone,
  kTooSmall,      // shorter than P4_MIN_FRAME_BYTES, or deparsed to nothing on a device
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

// A packet that left the switch (Engine::run).
struct OutputPacket {
  std::uint32_t port = 0;
  const std::uint8_t* data = nullptr;  // valid until the next run or process
  std::size_t size = 0;
  std::uint32_t instance_type = 0;     // v1model's: 0 normal, 1 ingress clone, 2 egress clone,
                                       // 4 recirculated, 5 replicated, 6 resubmitted
};

// A learn list sampled at the end of ingress (generate_digest, v1model's digest()).
struct DigestMessage {
  std::string list;                                  // the learn list's name
  std::vector<std::pair<std::string, Value>> fields;  // "header.field", value, in list order
};

// Everything one input frame caused: the packets that left (clones, multicast copies and
// recirculated packets included), in the order they left, digests, log_msg lines, and the
// packet instances that ended without leaving.
struct RunResult {
  std::vector<OutputPacket> outputs;
  std::vector<DigestMessage> digests;
  std::vector<std::string> logs;
  std::uint32_t drops = 0;
  DropReason first_drop = DropReason::kNone;  // why the first instance that did not leave ended
  const char* fault = nullptr;                // what faulted, for kFault
};

// A mirroring session (simple_switch's mirroring_add / mirroring_add_mc).
struct MirrorConfig {
  bool port_valid = false;
  std::uint32_t port = 0;
  bool mgid_valid = false;
  std::uint32_t mgid = 0;
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
  std::string match_type;  // exact, lpm, ternary, range
  std::vector<KeyDesc> keys;
  std::vector<ActionDesc> actions;
  std::uint32_t max_size = 0;
  std::size_t entries = 0;
  bool immutable = false;
  std::string action_profile;  // indirect tables: the profile their entries name members of
  bool selector = false;       // ... whose groups a hash chooses from
  std::string direct_counter;  // a direct counter array's name, if any
  std::string direct_meter;    // a direct meter array's name, if any
};

// A program's other control-plane objects, by name.
struct ObjectDesc {
  std::string name;
  std::string kind;        // counter, meter, register, action_profile, parse_vset, learn_list
  std::uint32_t size = 0;  // cells (counters, meters, registers), max_size (profiles, value sets)
  int width = 0;           // registers: bits; parse value sets: compressed bits
  std::string table;       // direct counters and meters: their table
};

struct LoadOptions {
  PortPolicy policy = PortPolicy::kDevice;
  const ExternRegistry* externs = nullptr;  // extern types a program may use (none: refused)
  FeaturePolicy features = FeaturePolicy::kBmv2;
};

// The engine's state (src/engine_impl.h) and the objects that reach parts of it.
struct EngineState;
class RuntimeObjects;
class Replication;
class MetadataRun;

class Engine {
 public:
  // Loads and validates a program. On refusal returns null with *error set.
  static std::unique_ptr<Engine> load(std::string_view json, const LoadOptions& options, LoadError* error);
  static std::unique_ptr<Engine> load_file(const std::string& path, const LoadOptions& options, LoadError* error);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The single path by which any control plane changes a table or an action profile. An
  // insert's entry handle (bmv2's: the lowest free) goes to *handle when given.
  bool update(const TableUpdate& update, UpdateError* error, std::uint32_t* handle = nullptr);

  // Runs one frame that arrived on `in_port` at engine time `time_ns` (the clock of meters
  // and timestamps; nondecreasing from call to call), with simple_switch's flow: ingress,
  // clones, resubmit, multicast, egress, recirculation, until every packet it caused has
  // left or ended. The result stays valid until the next run or process.
  const RunResult& run(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size, std::uint64_t time_ns = 0);
  // run() for callers that expect one packet out: the first one that left, or the reason
  // the frame went nowhere. The verdict's data stays valid until the next call.
  Verdict process(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size);

  // bmv2's runtime objects besides tables, as simple_switch_CLI reaches them.
  RuntimeObjects& objects();
  const RuntimeObjects& objects() const;
  // Mirroring sessions and the packet replication engine's multicast groups.
  Replication& replication();
  // The RDMA path's metadata-only run of the ingress pipeline.
  MetadataRun& metadata();
  const MetadataRun& metadata() const;
  // Seeds random() (modify_field_rng_uniform); a run's seed gives its numbers.
  void set_seed(std::uint64_t seed);

  const Stats& stats() const;
  Stats& mutable_stats();  // for the attachment's own counters (to_guest, egress_errors...)
  PortPolicy policy() const;
  FeaturePolicy features() const;
  // "<program>: N headers, N tables (N exact, N lpm, N ternary), N actions, ..." on one line.
  std::string summary() const;
  // Tables in the JSON's order, ingress first.
  std::vector<TableDesc> describe_tables() const;
  // Header instances in the JSON's order, metadata included.
  std::vector<HeaderDesc> describe_headers() const;
  // Counters, meters, registers, action profiles, parse value sets and learn lists.
  std::vector<ObjectDesc> describe_objects() const;
  // The options the program was loaded with (which extern registry its calls go to).
  const LoadOptions& load_options() const;

 private:
  explicit Engine(std::unique_ptr<EngineState> state);
  std::unique_ptr<EngineState> impl_;
};

// Counters, meters, registers, parse value sets, entry timeouts and custom CRC parameters
// (simple_switch_CLI's commands; bmv2's runtime interface). Every name and index is checked;
// nothing out of range is clamped.
class RuntimeObjects {
 public:
  explicit RuntimeObjects(EngineState& state) : m_(state) {}
  // Counters (direct ones by their table's entry handle).
  bool counter_read(const std::string& name, std::uint32_t index, std::uint64_t* bytes, std::uint64_t* packets,
                    UpdateError* error) const;
  bool counter_write(const std::string& name, std::uint32_t index, std::uint64_t bytes, std::uint64_t packets,
                     UpdateError* error);
  bool counter_reset(const std::string& name, UpdateError* error);
  // Meters: rates in units per microsecond and bursts in units, slowest first ({CIR, PIR}).
  bool meter_set_rates(const std::string& name, std::uint32_t index,
                       const std::vector<std::pair<double, std::uint64_t>>& rates, UpdateError* error);
  bool register_read(const std::string& name, std::uint32_t index, Value* value, UpdateError* error) const;
  bool register_write(const std::string& name, std::uint32_t index, const Value& value, UpdateError* error);
  bool register_reset(const std::string& name, UpdateError* error);
  // Parse value sets: values at the set's compressed width.
  bool pvs_add(const std::string& name, const Value& value, UpdateError* error);
  bool pvs_remove(const std::string& name, const Value& value, UpdateError* error);
  bool pvs_clear(const std::string& name, UpdateError* error);
  // An entry's idle timeout, kept as data (bmv2's table_set_timeout); nothing expires.
  bool set_entry_timeout(const std::string& table, std::uint32_t handle, std::uint64_t timeout_ms, UpdateError* error);
  // A crc16_custom or crc32_custom calculation's parameters (set_crc16/32_parameters).
  bool set_crc_parameters(const std::string& calculation, int width, std::uint64_t poly, std::uint64_t init,
                          std::uint64_t xor_out, bool reflect_in, bool reflect_out, UpdateError* error);

 private:
  EngineState& m_;
};

// Mirroring sessions 0..32767 and the packet replication engine: groups of nodes, a node a
// replication id and ports (simple_switch's mirroring_add, mc_mgrp_create, mc_node_create...).
class Replication {
 public:
  explicit Replication(EngineState& state) : m_(state) {}
  bool mirroring_add(std::uint32_t session, const MirrorConfig& config, UpdateError* error);
  bool mirroring_delete(std::uint32_t session, UpdateError* error);
  bool mc_group_create(std::uint32_t group, UpdateError* error);
  bool mc_group_destroy(std::uint32_t group, UpdateError* error);
  bool mc_node_create(std::uint32_t rid, const std::vector<std::uint32_t>& ports, std::uint32_t* handle, UpdateError* error);
  bool mc_node_update(std::uint32_t handle, const std::vector<std::uint32_t>& ports, UpdateError* error);
  bool mc_node_destroy(std::uint32_t handle, UpdateError* error);
  bool mc_node_associate(std::uint32_t group, std::uint32_t handle, UpdateError* error);
  bool mc_node_dissociate(std::uint32_t group, std::uint32_t handle, UpdateError* error);

 private:
  EngineState& m_;
};

// The RDMA path's metadata-only run: the ingress pipeline over metadata fields, no parser and
// no deparser.
class MetadataRun {
 public:
  explicit MetadataRun(EngineState& state) : m_(state) {}
  // A handle for a field named "header.field" (field aliases included), or -1.
  int field_handle(const std::string& name) const;
  int field_width(int handle) const;
  // Runs the ingress pipeline: headers invalid, metadata zero except the given (handle,
  // value) inputs. Returns the verdict of the end of ingress (dropped when egress_spec is
  // 511; kExternStop when an extern stopped it).
  Verdict run(const std::vector<std::pair<int, Value>>& inputs);
  // Reads a field as the last run left it.
  Value read_field(int handle) const;
  // The per-run context handed to extern methods (ExternCall::context).
  void set_extern_context(void* context);

 private:
  EngineState& m_;
};

}  // namespace dpusim::p4
