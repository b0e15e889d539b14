// Limits of the P4 engine. Every program, table entry and frame is untrusted input, so each
// of these is enforced by a refusal that names the object, the value and the limit: nothing
// is clamped or truncated. docs/p4.md lists them for users.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpusim::p4 {

// A bmv2 JSON document larger than this is refused before any byte of it is parsed.
inline constexpr std::size_t P4_MAX_DOCUMENT_BYTES = 4u * 1024u * 1024u;  // 4 MiB

// A JSON parser spends far more heap on a value than the value takes as text (an object
// node is a map), so the document is weighed first: object 8, array 2, anything else 1
// (object keys included). This bounds the parse to tens of MiB whatever the text.
inline constexpr std::uint64_t P4_JSON_COST_OBJECT = 8;
inline constexpr std::uint64_t P4_JSON_COST_ARRAY = 2;
inline constexpr std::uint64_t P4_JSON_COST_OTHER = 1;
inline constexpr std::uint64_t P4_JSON_MAX_COST = 524288;
// Nesting is checked in the same pass, so a recursive consumer can never overflow its stack.
inline constexpr int P4_JSON_MAX_DEPTH = 256;

// Every header and metadata instance occupies whole bytes of one packet header vector.
inline constexpr int P4_MAX_PHV_BYTES = 1024;
// Values are carried at this width: the widest field the loader accepts.
inline constexpr int P4_MAX_FIELD_BITS = 512;
// A table entry carries at most this much of a key field or an action argument.
inline constexpr int P4_MAX_ENTRY_FIELD_BITS = 128;
// The sum of every table's max_size: max_size is the only number in a program that names a
// large allocation without the document's own size bounding it.
inline constexpr std::uint64_t P4_MAX_TABLE_ENTRIES_TOTAL = 1u << 20;  // 1048576

// Counter, meter and register cells of all arrays together (size is another number a
// program names without its own size bounding it). Direct counters and meters take a cell
// per table entry, inside the entry budget.
inline constexpr std::uint64_t P4_MAX_STATEFUL_CELLS = 1u << 21;  // 2097152
// Rates of one meter (a trTCM has 2).
inline constexpr int P4_MAX_METER_RATES = 8;
// Mirroring session ids (simple_switch's MAX_MIRROR_SESSION_ID) and multicast groups.
inline constexpr std::uint32_t P4_MAX_MIRROR_SESSION = 32767;
inline constexpr std::uint32_t P4_MAX_MC_GROUP = 65535;
inline constexpr std::size_t P4_MAX_MC_NODES = 65536;
// Values of one parse value set.
inline constexpr std::size_t P4_MAX_VSET_VALUES = 65536;
// Pipeline passes (ingress or egress) one input frame may cause through clones, resubmits,
// recirculations and multicast copies: bmv2 would recirculate a packet forever.
inline constexpr int P4_MAX_PIPELINE_PASSES = 4096;

// Frames the engine runs; outside this range a frame is dropped and counted, never
// forwarded unexamined.
inline constexpr std::size_t P4_MIN_FRAME_BYTES = 1;
inline constexpr std::size_t P4_MAX_FRAME_BYTES = 16384;

// Parser state visits per frame: a parse graph may loop (header stacks), and a loop that
// consumes nothing would otherwise spin forever on one frame.
inline constexpr int P4_MAX_PARSER_STEPS = 4096;

// Primitives one action invocation may run: p4c compiles loops in actions to backward
// _jump primitives, and a loop that never ends would otherwise spin on one frame.
inline constexpr int P4_MAX_ACTION_STEPS = 65536;

// An LPM table takes a 2^16-slot root (about a megabyte) once it holds more entries than
// this; below, a 2^8-slot one.
inline constexpr std::uint32_t P4_LPM_WIDE_ROOT_AT = 1024;

// Array sizes in a program (an "oversized array" is refused by name and number).
inline constexpr std::size_t P4_MAX_HEADER_TYPES = 4096;
inline constexpr std::size_t P4_MAX_HEADERS = 4096;
inline constexpr std::size_t P4_MAX_FIELDS_PER_HEADER = 1024;
inline constexpr std::size_t P4_MAX_HEADER_STACKS = 1024;
inline constexpr std::size_t P4_MAX_STACK_DEPTH = 256;
inline constexpr std::size_t P4_MAX_UNIONS = 1024;
inline constexpr std::size_t P4_MAX_ERRORS = 1024;
inline constexpr std::size_t P4_MAX_PARSE_STATES = 4096;
inline constexpr std::size_t P4_MAX_PARSER_OPS = 1024;
inline constexpr std::size_t P4_MAX_TRANSITIONS = 4096;
inline constexpr std::size_t P4_MAX_ACTIONS = 8192;
inline constexpr std::size_t P4_MAX_PRIMITIVES = 4096;
inline constexpr std::size_t P4_MAX_ACTION_PARAMS = 64;
inline constexpr std::size_t P4_MAX_TABLES = 4096;
inline constexpr std::size_t P4_MAX_CONDITIONALS = 8192;
inline constexpr std::size_t P4_MAX_KEY_FIELDS = 64;
inline constexpr std::size_t P4_MAX_FIELD_ALIASES = 1024;
inline constexpr std::size_t P4_MAX_CONST_ENTRIES = 65536;
inline constexpr std::size_t P4_MAX_NAME_BYTES = 1024;
inline constexpr std::size_t P4_MAX_CALCULATIONS = 4096;
inline constexpr std::size_t P4_MAX_CALC_INPUTS = 1024;
inline constexpr std::size_t P4_MAX_STATEFUL_ARRAYS = 4096;  // counters, meters, registers each
inline constexpr std::size_t P4_MAX_FIELD_LISTS = 4096;      // field lists, learn lists each
inline constexpr std::size_t P4_MAX_FIELD_LIST_FIELDS = 1024;

// bmv2 JSON format versions this loader reads (bmv2 1.15 reads up to 2.24).
inline constexpr int P4_JSON_VERSION_MAJOR = 2;
inline constexpr int P4_JSON_VERSION_MINOR_MAX = 24;

// v1model port numbers.
inline constexpr std::uint32_t P4_V1MODEL_DROP_PORT = 511;
inline constexpr int P4_V1MODEL_PORT_BITS = 9;

}  // namespace dpusim::p4
