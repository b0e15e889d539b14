// Refusals of the P4 engine: a stable code and a message naming the object, the field, the
// value and the limit. The codes are part of the interface (CLI output, tests, the device's
// log), so they are only ever added to, never renamed.
#pragma once

#include <string>

namespace dpusim::p4 {

// Why a program was refused at load.
enum class LoadCode {
  kIo,                // the file could not be read (the CLI's exit 2)
  kDocumentSize,      // larger than P4_MAX_DOCUMENT_BYTES
  kJsonCost,          // weighs more than P4_JSON_MAX_COST
  kJsonDepth,         // nested deeper than P4_JSON_MAX_DEPTH
  kJsonSyntax,        // not JSON
  kVersion,           // __meta__.version newer (or other major) than supported
  kSchema,            // a key of the wrong JSON type, or a required key missing
  kArraySize,         // an array longer than its limit
  kBadName,           // empty, overlong, or holding a control character
  kBadWidth,          // a width that is not an integer in range
  kDuplicate,         // a duplicate name or id
  kLiteralWidth,      // a literal wider than the field it is written to
  kDanglingRef,       // a reference to something that does not exist
  kPipelineCycle,     // a cycle in the pipeline graph
  kMatchType,         // a table's match_type disagrees with its keys
  kMultipleLpm,       // more than one LPM key
  kTableEntries,      // an 'entries' list the engine will not take
  kNoEgressSpec,      // no standard_metadata.egress_spec: no way to say where a frame goes
  kV1modelWidth,      // a v1model field at the wrong width
  kOperandKind,       // an operand of the wrong kind for its operator or primitive
  kSignedField,       // a signed field
  kWireBytes,         // a header that goes on a wire and is not whole bytes
  kPhvSize,           // headers need more than P4_MAX_PHV_BYTES
  kValueWidth,        // a field wider than P4_MAX_FIELD_BITS
  kEntryFieldWidth,   // a key field or action argument wider than P4_MAX_ENTRY_FIELD_BITS
  kEntryBudget,       // the tables' max_size sum exceeds P4_MAX_TABLE_ENTRIES_TOTAL
  kBadJump,           // a _jump target outside its action, or backwards
  kUnsupported,       // a known feature that is not built: "'X' is not supported yet"
  kBadValue,          // any other value out of its domain (a negative size, a bad hexstr)
  // The ionic device's RDMA path (p4/rdma): the rdma_metadata header's rules.
  kRdmaMetadataWidth, // an rdma_metadata field at a width other than its own
  kRdmaMetadataField, // an rdma_metadata field the RDMA path does not fill
  kRdmaMetadataWire,  // rdma_metadata declared as a header that can go on a wire
  kExternRegistry,    // an engine loaded with another target's externs, given to the RDMA path
  kStatefulBudget,    // counters, meters and registers ask for more cells than P4_MAX_STATEFUL_CELLS
};

// Why a table update was refused.
enum class UpdateCode {
  kUnknownTable,
  kUnknownAction,
  kBadName,          // a table, action, field or parameter name that is not printable ASCII
  kActionNotInTable,
  kKeyCount,         // match fields missing, extra, or out of key order
  kValueWidth,       // a value or mask wider than its field
  kPrefixLength,     // a prefix longer than the field
  kPrefixBits,       // a value with a bit set past its prefix
  kMaskBits,         // a value with a bit set outside its mask
  kMatchKind,        // a prefix on a field that is not LPM, a mask where none is taken...
  kPriority,         // a priority where none is taken, or a missing or invalid one
  kDuplicateEntry,
  kNoSuchEntry,
  kTableFull,
  kParams,           // action parameters missing, unknown or wider than declared
  kConstDefault,     // the default action is const
  kImmutableTable,   // the table's entries are const (an 'entries' list)
  kKeylessTable,     // a table without a key takes only a default action
  kBadRecord,        // the record itself is malformed (type, value syntax)
  // Action profiles (P4Runtime's ActionProfileMember / ActionProfileGroup).
  kUnknownProfile,   // no action profile of that name, or the table has none
  kNoSuchMember,
  kNoSuchGroup,
  kDuplicateMember,  // a member or group id already in use
  kProfileFull,      // more members or groups than the profile's max_size
  kInUse,            // a member or group still referenced (by an entry or a group)
  kIndirect,         // an action where a member or group is needed, or the other way round
  kRange,            // a range whose low end is above its high end
  // Other control-plane objects (counters, meters, registers, sessions, groups, value sets).
  kUnknownObject,    // no such counter, meter, register, value set, session or group
  kIndex,            // an index past the array's size, or a session or group id out of range
};

const char* load_code_name(LoadCode code);
const char* update_code_name(UpdateCode code);

struct LoadError {
  LoadCode code = LoadCode::kSchema;
  std::string message;
};

struct UpdateError {
  UpdateCode code = UpdateCode::kBadRecord;
  std::string message;
};

}  // namespace dpusim::p4
