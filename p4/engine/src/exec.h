// The executor: runs a loaded Program over one frame (or, for the RDMA path, over metadata
// alone). It knows nothing of ports: the policy layer (engine.cpp) decides what egress_spec
// means. All per-frame state lives in FrameState, allocated once, so the hot path never
// touches the heap.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "program.h"
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
};

struct FrameState {
  std::vector<std::uint64_t> phv;       // field storage (Program::phv_limbs)
  std::vector<std::uint8_t> valid;      // per header
  std::vector<std::uint8_t> valid_init; // metadata valid, headers not
  std::vector<std::uint32_t> stack_next;
  std::vector<std::uint32_t> union_stack_next;
  std::vector<std::uint16_t> vl_bits;   // per header: its varbit field's width this frame
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
  std::int64_t truncate_len = -1;
  std::int64_t length_reg = 0;          // bmv2's packet length register
  const std::uint64_t* action_data = nullptr;
  std::vector<std::uint8_t> key;        // table key scratch
  std::vector<std::uint8_t> key_scratch;
  std::vector<std::uint8_t> select_key; // parser transition key scratch
  std::vector<std::uint8_t> out;        // the deparsed frame
  std::vector<Value> extern_args;
  void* extern_context = nullptr;
};

class Executor {
 public:
  Executor(const Program& program, std::vector<TableRuntime>& tables);

  void begin_frame(const std::uint8_t* pkt, std::size_t len, std::uint32_t in_port);
  // Runs the parser; returns the parser error (core NoError when none).
  std::uint64_t parse();
  void run_pipeline(const PipelineInfo& pipeline);
  // Deparses into FrameState::out; returns the frame's size.
  std::size_t deparse();

  void load_field(int field, Value& out) const;
  void store_field(int field, const Value& v);
  std::uint64_t field_u64(int field) const;  // the low 64 bits

  FrameState st;

 private:
  // Expressions (expr_eval.cpp).
  void eval(int node, Value& out);
  bool eval_bool(int node);
  int eval_header(int node);  // header id, or -1 after a fault
  int eval_union(int node);
  int lvalue_field(int node);
  bool headers_equal(int a, int b) const;
  void fault(const char* what);

  // Headers (exec_headers.cpp).
  void set_valid(int header);
  void set_invalid(int header) { st.valid[header] = 0; }
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
  int apply_table(int table);
  void build_key(const TableInfo& table);

  const Program& p_;
  std::vector<TableRuntime>& tables_;
  const Prim* current_prim_ = nullptr;
};

}  // namespace dpusim::p4
