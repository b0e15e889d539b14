// The executor: runs a loaded Program over one frame (or, for the RDMA path, over metadata
// alone). It knows nothing of ports: the policy layer (engine.cpp) decides what egress_spec
// means. All per-frame state lives in FrameState, allocated once, so the hot path never
// touches the heap.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dpusim/p4/limits.h"
#include "program.h"
#include "runtime.h"
#include "tables.h"

namespace dpusim::p4 {

// The mutable half of a table: its entries, its lookup structure and its current default.
struct TableRuntime {
  RecordHash exact;                        // exact tables
  LpmTable lpm;                            // LPM tables
  EntryStore store;                        // ternary tables
  std::unique_ptr<TernaryIndex> ternary;
  DefaultEntry default_entry;
  // An LPM field's prefix of n bits is a prefix of lpm_base_bits + n bits of the whole key
  // (the exact fields before it, and the field's own byte padding, count in full).
  int lpm_base_bits = 0;
  std::size_t count = 0;
  // Every entry has a handle, bmv2's: the lowest one free. It follows the entry's runtime
  // data in its record, and indexes the entry's direct counter and meter.
  std::set<std::uint32_t> free_handles;
  std::uint32_t next_handle = 0;
  std::vector<std::uint8_t> handle_live;
  std::vector<std::int64_t> timeouts_ms;     // per handle: the entry's idle timeout (data only)
  std::vector<CounterCell> entry_counters;   // per handle (with_counters)
  MeterArrayState entry_meters;              // per handle (a direct meter)
  std::vector<std::uint8_t> range_high;      // range tables: key_bytes per store slot
};


struct FrameState {
  std::vector<std::uint64_t> phv;       // field storage (Program::phv_limbs)
  std::vector<std::uint8_t> valid;      // per header
  std::vector<std::uint8_t> valid_init; // metadata valid, headers not
  std::vector<std::uint32_t> stack_next;
  std::vector<std::uint32_t> union_stack_next;
  std::vector<std::uint16_t> vl_bits;   // per header: its varbit field's width this frame
  // Per header: where the parser extracted it from, while none of its fields has changed
  // since (the deparser then copies those bytes instead of packing the fields again).
  std::vector<const std::uint8_t*> wire_src;
  const std::uint8_t* pkt = nullptr;
  std::size_t pkt_len = 0;
  std::size_t cursor = 0;               // bytes the parser consumed
  std::uint32_t in_port = 0;
  bool exit = false;                    // the exit primitive: ends the current pipeline
  bool stop = false;                    // an extern asked the pipeline to stop
  bool egress_spec_written = false;
  const char* fault = nullptr;          // what faulted; the frame is dropped
  const char* fault_where = nullptr;
  bool parse_error_pending = false;     // a lookahead past the frame's end
  std::int64_t truncate_len = -1;       // the least length truncate asked for, or -1
  std::int64_t length_reg = 0;          // bmv2's packet length register
  // simple_switch's other packet registers (register_access.h) and packet attributes.
  std::uint64_t ingress_length = 0;     // what counters and meters count in bytes
  std::uint32_t clone_session = 0;      // bit 15 set when a clone was asked for
  std::uint32_t clone_field_list = 0;
  std::uint32_t learn_list = 0;         // generate_digest's list id, 0 none
  std::uint32_t resubmit_list = 0;      // resubmit's field list id, 0 none
  std::uint32_t recirculate_list = 0;   // recirculate's field list id, 0 none
  bool checksum_error = false;
  std::uint64_t now_us = 0;             // the engine clock in microseconds (meters, timestamps)
  std::vector<std::string>* logs = nullptr;  // where log_msg writes, or null
  const std::uint64_t* action_data = nullptr;
  std::vector<std::uint8_t> key;        // table key scratch
  std::vector<std::uint8_t> key_scratch;
  std::vector<std::uint8_t> select_key; // parser transition key scratch
  std::vector<std::uint8_t> vset_key;   // ... masked, for a value set
  std::vector<std::uint8_t> calc_buf;   // a calculation's input bytes
  std::vector<std::uint8_t> wire_window;  // a fixed header's bytes, with slack for 8-byte loads
  std::vector<Value> extern_args;
  void* extern_context = nullptr;
};

class Executor {
 public:
  Executor(const Program& program, std::vector<TableRuntime>& tables, Runtime& runtime);

  void begin_frame(const std::uint8_t* pkt, std::size_t len, std::uint32_t in_port);
  // Runs the parser and verifies the checksums; returns the parser error (core NoError
  // when none).
  std::uint64_t parse();
  void run_pipeline(const PipelineInfo& pipeline);
  // Deparses into `out`, which holds kDeparseBytes; returns the frame's size.
  static constexpr std::size_t kDeparseBytes = P4_MAX_FRAME_BYTES + P4_MAX_PHV_BYTES + 8;
  std::size_t deparse(std::uint8_t* out);

  void load_field(int field, Value& out) const;
  void store_field(int field, const Value& v);
  // store_field of a small number.
  void store_u64(int field, std::uint64_t v) {
    const FieldInfo& f = p_.fields[static_cast<std::size_t>(field)];
    if (!f.plain) return store_field(field, Value::of(v));
    st.phv[static_cast<std::size_t>(f.limb)] = v & f.width_mask;
    st.wire_src[static_cast<std::size_t>(f.header)] = nullptr;
    if (field == p_.f_egress_spec) st.egress_spec_written = true;
  }
  // The low 64 bits.
  std::uint64_t field_u64(int field) const { return st.phv[static_cast<std::size_t>(p_.fields[static_cast<std::size_t>(field)].limb)]; }
  // Zeroes every metadata header's fields (bmv2's PHV::reset_metadata).
  void reset_metadata();
  // Forgets where headers were extracted from (their fields were rewritten wholesale).
  void forget_wire() { std::fill(st.wire_src.begin(), st.wire_src.end(), nullptr); }

  // Calculations and checksums (exec_checksum.cpp).
  std::uint64_t calculation(int calc);
  void verify_checksums();
  void update_checksums();

  FrameState st;

 private:
  std::uint64_t parse_states();

  // Expressions (expr_eval.cpp). eval_bits returns how many low bits of `out` are the
  // unbounded value's, kWhole when all of it is (expr_wide.h); eval needs the whole value
  // and faults without it; store_bits writes a field, which needs only its width's bits.
  int eval_bits(int node, Value& out);
  void eval(int node, Value& out);
  void store_bits(int field, const Value& v, int bits);
  std::uint64_t eval_u64(int node);  // a node with small_bits >= 0
  bool eval_bool(int node);
  int eval_header(int node);  // header id, or -1 after a fault
  int eval_union(int node);
  int lvalue_field(int node);
  bool headers_equal(int a, int b) const;
  void fault(const char* what);

  // Headers (exec_headers.cpp).
  void set_valid(int header);
  void set_invalid(int header) { st.valid[header] = 0; }
  // The header's fields change other than through store_field.
  void touch(int header) { st.wire_src[static_cast<std::size_t>(header)] = nullptr; }
  void copy_header(int dst, int src);
  struct StackView;
  void swap_elements(const StackView& s, std::size_t i, std::size_t j);
  void push_stack(int stack_node, std::uint64_t count);
  void pop_stack(int stack_node, std::uint64_t count);
  void extract_header(int header, const std::uint8_t* at);
  void wire_span(const FieldInfo& f, int varbit_offset, int vl, std::size_t* offset, int* width) const;
  std::size_t header_bytes(int header) const {
    return static_cast<std::size_t>(p_.headers[static_cast<std::size_t>(header)].wire_bytes) + st.vl_bits[static_cast<std::size_t>(header)] / 8u;
  }
  void emit_header(int header, std::uint8_t* at) const;

  // Actions and tables (exec_actions.cpp).
  void run_action(int action, const std::uint64_t* data);
  void exec_prim(const Prim& prim);
  void exec_copy_prim(const Prim& prim);
  void exec_arith_prim(const Prim& prim);
  void exec_validity_prim(const Prim& prim);
  int apply_table(int table);
  void build_key(const TableInfo& table);
  const std::uint64_t* lookup(const TableInfo& t, TableRuntime& rt);
  // Runs an indirect table's member, or the member a group's selector picks; returns the
  // action run, or -1 (an unknown member or an empty group runs nothing).
  int run_indirect(const TableInfo& t, std::uint32_t ref);

  // simple_switch's stateful and packet-redirecting primitives (exec_extern.cpp).
  void exec_extern_prim(const Prim& prim);
  void log_message(const Prim& prim);
  bool index_of(int node, std::uint32_t size, std::uint64_t* index);

  const Program& p_;
  std::vector<TableRuntime>& tables_;
  Runtime& rt_;
  const Prim* current_prim_ = nullptr;
};

}  // namespace dpusim::p4
