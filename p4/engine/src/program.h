// The loaded form of a bmv2 JSON program: everything resolved to indices, every width and
// reference checked, so the executor never looks a name up or meets a malformed object.
// Names follow bmv2's JSON_format.md. A Program is immutable once loaded; table entries
// live beside it (tables.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/extern.h"
#include "dpusim/p4/value.h"

namespace dpusim::p4 {

struct FieldInfo {
  std::string name;  // "header.field"
  int header = -1;
  int offset = 0;    // index among the header's fields
  int width = 0;     // bits
  int bit_offset = 0;  // from the start of the header on the wire
  int limb = 0;      // first 64-bit limb in the frame state's field storage
  int nlimbs = 0;
  bool varbit = false;  // the header's variable-length field (bmv2 "*")
  bool is_signed = false;   // int<N>: read back sign-extended from its width
  bool saturating = false;  // a write clamps to the field's range instead of wrapping
  bool plain = false;       // unsigned, wrapping, one limb: a 64-bit store under width_mask
  std::uint64_t width_mask = 0;
};

inline constexpr std::uint8_t kFieldSigned = 1;
inline constexpr std::uint8_t kFieldSaturating = 2;

struct HeaderTypeInfo {
  std::string name;
  int id = 0;
  std::vector<std::pair<std::string, int>> fields;  // name, width (varbit: max width)
  std::vector<std::uint8_t> field_flags;            // per field: kFieldSigned | kFieldSaturating
  int fixed_bits = 0;  // sum of the fixed-width fields (a varbit field counts as empty)
  int varbit_field = -1;
  int max_bytes = 0;   // varbit headers: bmv2's max_length
};

struct HeaderInfo {
  std::string name;
  int id = 0;
  int type = 0;
  bool metadata = false;
  int first_field = 0;
  int nfields = 0;
  int wire_bytes = 0;   // packed size of the fixed fields in bytes
  int phv_bytes = 0;    // bytes it takes in the packet header vector
  int stack = -1;       // the stack it is an element of
  int union_index = -1; // the union it is a member of
  int union_member = 0;
  int limb = 0;         // the header's fields occupy limbs [limb, limb + nlimbs)
  int nlimbs = 0;
  int varbit_field = -1;  // field id of its variable-length field
  bool narrow = false;    // fixed, every field at most 64 bits: field k in limb `limb + k`
  std::vector<std::uint8_t> widths;  // narrow headers: the fields' widths
};

struct StackInfo {
  std::string name;
  int id = 0;
  int type = 0;
  std::vector<int> headers;
};

struct UnionInfo {
  std::string name;
  int id = 0;
  std::vector<int> headers;
  std::vector<std::string> members;  // member names, from the union type
  int union_stack = -1;
};

struct UnionStackInfo {
  std::string name;
  int id = 0;
  std::vector<int> unions;
};

// What an expression node produces, as bmv2 types them.
enum class ExprKind : std::uint8_t { kData, kBool, kHeader, kStack, kUnion, kUnionStack };

enum class ExprOp : std::uint8_t {
  // leaves
  kField,           // a = field id
  kValidField,      // a = header id: the read-only hidden field `$valid$`
  kConst,           // a = index into Program::consts
  kLocal,           // a = action parameter index, b = its first limb, c = its limbs
  kBoolConst,       // a = 0 or 1
  kHeader,          // a = header id
  kStack,           // a = header stack id
  kUnion,           // a = header union id
  kUnionStack,      // a = header union stack id
  kStackLastField,  // a = stack id, b = field offset: the last extracted element's field
  kUnionStackLastField,  // a = union stack id, b = member, c = field offset (parser keys)
  kLookahead,       // a = bit offset, b = width (parser only)
  // data
  kAdd, kSub, kMul, kDiv, kMod, kShl, kShr, kBitAnd, kBitOr, kBitXor, kBitNeg,
  kUsatCast, kSatCast, kTwoCompMod,  // a = value, b = width (immediate)
  kB2D, kLastStackIndex, kSizeStack,
  kAccessField,     // a = header node, b = field offset (immediate)
  // bool
  kEq, kNe, kLt, kLe, kGt, kGe,  // data operands
  kEqBool, kNeBool, kEqHeader, kNeHeader, kEqUnion, kNeUnion,
  kAnd, kOr, kNot, kValid, kValidUnion, kD2B,
  // headers
  kDerefStack,         // a = stack node, b = index node
  kDerefUnionStack,    // a = union stack node, b = index node
  kAccessUnionHeader,  // a = union node, b = member offset (immediate)
  // any kind
  kTernary,            // c = condition, a = if true, b = if false
};

struct ExprNode {
  ExprOp op;
  ExprKind kind;
  std::int32_t a = -1, b = -1, c = -1;
  // For data nodes: the most bits the value can have when it is never negative and fits
  // in kSmallBits (the executor then computes it in a 64-bit word), else -1.
  std::int16_t small_bits = -1;
};
inline constexpr int kSmallBits = 63;

enum class PrimOp : std::uint8_t {
  kAssign,            // a = lvalue node, b = value node
  kAssignVL,          // a, b = varbit field ids (value and current width)
  kAssignHeader,      // a = dst header node, b = src header node
  kAssignUnion,       // a, b = union nodes
  kAssignHeaderStack, // a, b = stack ids
  kAssignUnionStack,  // a, b = union stack ids
  kAddToField,        // a = lvalue, b = value
  kSubtractFromField,
  kAdd, kSubtract, kBitAnd, kBitOr, kBitXor, kShiftLeft, kShiftRight,  // a = dst, b, c
  kAddHeader,         // a = header node
  kRemoveHeader,
  kPush, kPop,        // a = stack node (header or union stack), b = count node
  kMarkToDrop,        // a = egress_spec field := 511, b = mcast_grp field (or -1) := 0
  kExit,
  kNoOp,
  kJump,              // a = target index
  kJumpIfZero,        // a = condition node, b = target index
  kTruncate,          // a = length node
  kAssert,            // a = bool node; a false one faults the frame (bmv2 aborts)
  kExtern,            // a = extern instance, b = index in Program::extern_calls, args = value nodes
  kExternFunction,    // a = index in Program::extern_functions, args = value nodes (out ones lvalues)
  // simple_switch's v1model primitives (targets/simple_switch/primitives.cpp).
  kDrop,              // legacy drop: as kMarkToDrop, with intrinsic_metadata.mcast_grp
  kCount,             // a = counter array, b = index node
  kExecuteMeter,      // a = meter array, b = index node, c = destination lvalue
  kRegisterRead,      // a = destination lvalue, b = register array, c = index node
  kRegisterWrite,     // a = register array, b = index node, c = value node
  kCloneI2E,          // a = session node, b = field list node
  kCloneE2E,          // a = session node, b = field list node
  kResubmit,          // a = field list node
  kRecirculate,       // a = field list node
  kGenerateDigest,    // a = receiver node, b = learn list node
  kHashOffset,        // a = destination lvalue, b = base node, c = calculation, args[0] = size node
  kRandom,            // a = destination lvalue, b = low node, c = high node
  kLogMsg,            // a = index in Program::log_formats, args = value nodes
};

struct Prim {
  explicit Prim(PrimOp o = PrimOp::kNoOp) : op(o) {}
  PrimOp op;
  std::int32_t a = -1, b = -1, c = -1;
  std::vector<std::int32_t> args;
  std::string where;  // source fragment, for fault messages
};

struct ActionParam {
  std::string name;
  int width = 0;
  int limb = 0;  // offset in the action's runtime data
  int nlimbs = 0;
};

struct ActionInfo {
  std::string name;
  int id = 0;
  std::vector<ActionParam> params;
  int data_limbs = 0;
  std::vector<Prim> prims;
};

enum class MatchKind : std::uint8_t { kExact, kLpm, kTernary, kValid, kOptional, kRange };
// A table's implementation (JSON_format.md "type"): its own actions, an action profile's
// members, or members and groups chosen by a selector hash.
enum class TableImpl : std::uint8_t { kSimple, kIndirect, kIndirectWs };
enum class TableMatchType : std::uint8_t { kExact, kLpm, kTernary, kRange };

struct KeyField {
  std::string name;  // as in the JSON ("name", or the target joined with '.')
  std::string target_name;  // the target joined with '.' ("hdr.f", "hdr.$valid$")
  MatchKind kind = MatchKind::kExact;
  int field = -1;    // field id, or -1 when the key is a header's validity
  int header = -1;   // for validity keys (match kind valid, or target "$valid$")
  int width = 0;
  int nbytes = 0;
  int offset = 0;    // byte offset in the table's key
  std::vector<std::uint8_t> mask;  // p4c's `field & constant`, nbytes long, or empty
};

// One step of building a table's key from the packet header vector, in offset order.
struct KeyStep {
  int limb = -1;     // the field's first limb, or -1 for a validity key
  int nlimbs = 0;
  int header = -1;   // validity keys
  int nbytes = 0;
  int offset = 0;    // byte offset in the table's key
  int key = 0;       // index in TableInfo::keys (its mask)
  bool masked = false;
};

struct DefaultEntry {
  bool present = false;
  int action = -1;               // simple tables; indirect ones: -1 with member or group set
  std::int64_t member = -1;      // indirect tables: the action profile member run on a miss
  std::int64_t group = -1;       // ... or the group chosen from
  std::vector<std::uint64_t> data;
  bool action_const = false;
  bool entry_const = false;
};

struct ConstEntry {
  std::vector<std::uint8_t> key, mask;  // key_bytes each
  std::vector<std::uint8_t> high;       // range tables: each range key's end, key_bytes (start in key)
  int prefix_len = -1;
  int priority = 0;                     // higher wins (converted from bmv2's lower-wins)
  int action = -1;
  std::vector<std::uint64_t> data;
};

struct TableInfo {
  std::string name;
  int id = 0;
  int pipeline = 0;
  TableMatchType match_type = TableMatchType::kExact;
  std::vector<KeyField> keys;
  std::vector<int> key_order;       // key indices by offset in the table's key
  std::vector<KeyStep> key_plan;    // the same keys as build_key reads them
  int key_bytes = 0;
  int lpm_key = -1;
  std::vector<int> actions;         // action ids this table may run
  std::vector<int> next_by_action;  // indexed by action id; -1 = end of pipeline
  bool hit_miss = false;            // next_tables keyed by __HIT__ / __MISS__
  int next_hit = -1, next_miss = -1;
  int base_default_next = -1;
  DefaultEntry default_entry;
  std::uint32_t max_size = 0;
  int data_limbs = 0;               // widest runtime data of its actions
  bool immutable = false;           // an 'entries' list: the entries are const
  std::vector<ConstEntry> const_entries;
  TableImpl impl = TableImpl::kSimple;
  int profile = -1;                 // indirect tables: the action profile
  bool with_counters = false;       // a packet and byte counter per entry
  int direct_counter = -1;          // the counter array that names them, if any
  int direct_meter = -1;            // a meter array bound to the table (direct_meters)
  bool support_timeout = false;     // entries carry an idle timeout (kept as data)
  bool has_range = false;           // some key is a range
  bool needs_priority() const {
    return match_type == TableMatchType::kTernary || match_type == TableMatchType::kRange;
  }
};

struct ConditionalInfo {
  std::string name;
  int id = 0;
  int pipeline = 0;
  int expr = -1;
  int true_next = -1, false_next = -1;
};

struct PipelineInfo {
  std::string name;
  int init_node = -1;  // table index, or tables.size() + conditional index; -1: empty
};

enum class ParseOpKind : std::uint8_t {
  kExtract,       // a = header id
  kExtractStack,  // a = stack id
  kExtractUnionStack,  // a = union stack id, b = member offset
  kExtractVL,     // a = header id or stack id (c = 1 for a stack), b = length in bits
  kSet,           // a = lvalue node, b = value node
  kVerify,        // a = bool node, b = error value node
  kAdvance,       // a = bit count node
  kPrimitive,     // prim
};

struct ParseOp {
  ParseOpKind kind = ParseOpKind::kExtract;
  std::int32_t a = -1, b = -1, c = -1;
  Prim prim;
};

struct KeyPart {
  int expr = -1;
  int width = 0;
  int nbytes = 0;
};

struct Transition {
  std::vector<std::uint8_t> value, mask;  // key_bytes each (mask all ones when absent)
  int next = -1;                          // parse state, or -1 to accept
  int vset = -1;                          // a parse value set's members instead of value (mask applies)
  int vset_case = -1;                     // index in Program::vset_cases
};

// Where a parse value set is used: its members are expanded to that state's key layout.
struct VsetCase {
  int vset = -1, state = -1, transition = -1;
};

struct ParseState {
  std::string name;
  int id = 0;
  std::vector<ParseOp> ops;
  std::vector<KeyPart> key;
  int key_bytes = 0;
  int lookahead_bytes = 0;  // bytes the key reads past the cursor
  std::vector<Transition> transitions;
  int default_next = -1;
};

struct ParserInfo {
  std::string name;
  int init_state = -1;
  std::vector<ParseState> states;
};

struct DeparserInfo {
  std::string name;
  std::vector<int> order;  // header ids
  std::vector<Prim> prims;
};

// Hash algorithms of bmv2's calculations (src/bm_sim/calculations.cpp) that this engine
// computes; simple_switch registers these names.
enum class HashAlgo : std::uint8_t {
  kCrc16, kCrc32, kCrcCcitt, kCrc8Custom, kCrc16Custom, kCrc32Custom, kCrc64Custom,
  kCsum16, kCksum16, kIdentity, kXor16, kXor32, kRoundRobin,
};

// One input of a calculation: a field, a constant of `bits` bits, a whole header, or the
// payload after the parsed headers.
struct CalcInput {
  enum class Kind : std::uint8_t { kField, kConst, kHeader, kPayload } kind = Kind::kField;
  int a = -1;      // field id, index in Program::consts, or header id
  int bits = 0;    // constants
  // Fields: where the field lives, so that a frame's calculation reads no FieldInfo.
  int limb = 0, width = 0, header = -1;
  bool varbit = false;
};

// Consecutive inputs that are one fixed header's consecutive fields, whole bytes from a
// byte boundary: while the header is as the parser extracted it, they are its bytes.
struct CalcRun {
  int header = -1;
  int inputs = 0;      // how many inputs it covers
  int byte_offset = 0;
  int bytes = 0;
};

struct CalculationInfo {
  std::string name;
  int id = 0;
  HashAlgo algo = HashAlgo::kCrc16;
  std::vector<CalcInput> inputs;
  std::vector<std::int32_t> run_at;  // per input: the run starting there, or -1
  std::vector<CalcRun> runs;
  int max_bytes = 0;  // the most input bytes it can build
};

struct ChecksumInfo {
  std::string name;
  int id = 0;
  int target = -1;          // field id
  int calc = -1;            // calculation index (generic checksums)
  bool ipv4 = false;        // bmv2's built-in "ipv4" type: the header's own csum16
  bool verify = true, update = true;
  int cond = -1;            // bool node, or -1 for always
};

struct CounterInfo {
  std::string name;
  int id = 0;
  std::uint32_t size = 0;
  int direct_table = -1;    // direct counters live with the table's entries
};

struct MeterInfo {
  std::string name;
  int id = 0;
  bool packets = true;      // type "packets", else "bytes"
  int rate_count = 2;
  std::uint32_t size = 0;
  int direct_table = -1;
  int result_field = -1;    // direct meters: where the colour goes
};

struct RegisterInfo {
  std::string name;
  int id = 0;
  std::uint32_t size = 0;
  int width = 0;
  int nlimbs = 0;
};

// field_lists (clone, resubmit, recirculate) and learn_lists (digests).
struct FieldListInfo {
  std::string name;
  int id = 0;
  std::vector<int> fields;
};

struct ParseVsetInfo {
  std::string name;
  int id = 0;
  int bitwidth = 0;         // compressed_bitwidth
  std::uint32_t max_size = 0;
};

struct ActionProfileInfo {
  std::string name;
  int id = 0;
  std::uint32_t max_size = 0;
  int selector = -1;        // calculation index of the selector's hash, or -1
};

// The error constants v1model's parser raises, by their values in this program.
struct CoreErrors {
  std::uint64_t no_error = 0, packet_too_short = 1, no_match = 2, stack_out_of_bounds = 3,
                header_too_short = 4, parser_timeout = 5, parser_invalid_argument = 6;
};

struct Program {
  std::string name;  // the JSON's "program", when present
  std::vector<HeaderTypeInfo> header_types;
  std::vector<HeaderInfo> headers;
  std::vector<FieldInfo> fields;
  std::vector<StackInfo> stacks;
  std::vector<UnionInfo> unions;
  std::vector<UnionStackInfo> union_stacks;
  std::vector<std::pair<std::string, std::uint64_t>> errors;
  CoreErrors core_errors;
  std::vector<Value> consts;
  std::vector<ExprNode> exprs;
  std::vector<ActionInfo> actions;
  std::vector<TableInfo> tables;
  std::vector<ConditionalInfo> conditionals;
  PipelineInfo ingress, egress;
  ParserInfo parser;
  DeparserInfo deparser;
  std::vector<ExternInstance> externs;
  std::vector<CalculationInfo> calculations;  // named ones first, then selectors' hashes
  std::vector<ChecksumInfo> checksums;
  std::vector<CounterInfo> counters;
  std::vector<MeterInfo> meters;
  std::vector<RegisterInfo> registers;
  std::vector<FieldListInfo> field_lists;
  std::vector<FieldListInfo> learn_lists;
  std::vector<ParseVsetInfo> parse_vsets;
  std::vector<VsetCase> vset_cases;
  std::vector<ActionProfileInfo> action_profiles;
  std::vector<std::string> log_formats;
  // Extern functions the program calls (extern_func), resolved against the registry.
  std::vector<const ExternFunction*> extern_functions;
  bool verify_checksums = false, update_checksums = false;
  // The methods the program calls, resolved once against the registry at load.
  std::vector<ExternResult (*)(ExternCall&)> extern_calls;

  int phv_limbs = 0;
  int phv_bytes = 0;
  std::uint64_t entries_budget_used = 0;

  // v1model's standard metadata, resolved through field_aliases; -1 when absent.
  int f_ingress_port = -1, f_egress_spec = -1, f_egress_port = -1, f_packet_length = -1,
      f_instance_type = -1, f_parser_error = -1, f_checksum_error = -1, f_mcast_grp = -1,
      f_egress_rid = -1, f_priority = -1, f_qid = -1, f_enq_timestamp = -1, f_enq_qdepth = -1,
      f_deq_timedelta = -1, f_deq_qdepth = -1, f_ingress_global_timestamp = -1,
      f_egress_global_timestamp = -1;
  // The field mark_to_drop zeroes beside egress_spec: mcast_grp of the same header.
  int f_mark_to_drop_mcast = -1;
  bool queueing_metadata = false;  // all four enq_/deq_ fields exist (simple_switch's rule)
  // What simple_switch requires and the program lacks (no parser 'parser', deparser
  // 'deparser', pipeline 'ingress' or 'egress'; no standard_metadata.egress_spec), in the
  // order found. Every feature policy refuses such a program, naming each (load_program,
  // check_v1model).
  std::vector<std::pair<LoadCode, std::string>> not_v1model;
  // Where an action's first negative literal is, or empty (the ernic feature set refuses it).
  std::string negative_literal_at;

  std::map<std::string, int> header_by_name, field_by_name, stack_by_name, union_by_name,
      union_stack_by_name, action_by_name, table_by_name, conditional_by_name,
      extern_by_name, calculation_by_name, counter_by_name, meter_by_name, register_by_name,
      parse_vset_by_name, action_profile_by_name, learn_list_by_name;

  bool is_table_node(int node) const { return node >= 0 && node < static_cast<int>(tables.size()); }
  int conditional_node(int index) const { return static_cast<int>(tables.size()) + index; }
};

}  // namespace dpusim::p4
