#include "dpusim/p4/errors.h"

namespace dpusim::p4 {

const char* load_code_name(LoadCode code) {
  switch (code) {
    case LoadCode::kIo: return "io";
    case LoadCode::kDocumentSize: return "document_size";
    case LoadCode::kJsonCost: return "json_cost";
    case LoadCode::kJsonDepth: return "json_depth";
    case LoadCode::kJsonSyntax: return "json_syntax";
    case LoadCode::kVersion: return "version";
    case LoadCode::kSchema: return "schema";
    case LoadCode::kArraySize: return "array_size";
    case LoadCode::kBadName: return "bad_name";
    case LoadCode::kBadWidth: return "bad_width";
    case LoadCode::kDuplicate: return "duplicate";
    case LoadCode::kLiteralWidth: return "literal_width";
    case LoadCode::kDanglingRef: return "dangling_ref";
    case LoadCode::kPipelineCycle: return "pipeline_cycle";
    case LoadCode::kMatchType: return "match_type";
    case LoadCode::kMultipleLpm: return "multiple_lpm";
    case LoadCode::kTableEntries: return "table_entries";
    case LoadCode::kNoEgressSpec: return "no_egress_spec";
    case LoadCode::kV1modelWidth: return "v1model_width";
    case LoadCode::kOperandKind: return "operand_kind";
    case LoadCode::kSignedField: return "signed_field";
    case LoadCode::kWireBytes: return "wire_bytes";
    case LoadCode::kPhvSize: return "phv_size";
    case LoadCode::kValueWidth: return "value_width";
    case LoadCode::kEntryFieldWidth: return "entry_field_width";
    case LoadCode::kEntryBudget: return "entry_budget";
    case LoadCode::kBadJump: return "bad_jump";
    case LoadCode::kUnsupported: return "unsupported";
    case LoadCode::kBadValue: return "bad_value";
    case LoadCode::kRdmaMetadataWidth: return "rdma_metadata_width";
    case LoadCode::kRdmaMetadataField: return "rdma_metadata_field";
    case LoadCode::kRdmaMetadataWire: return "rdma_metadata_wire";
    case LoadCode::kExternRegistry: return "extern_registry";
    case LoadCode::kStatefulBudget: return "stateful_budget";
  }
  return "unknown";
}

const char* update_code_name(UpdateCode code) {
  switch (code) {
    case UpdateCode::kUnknownTable: return "unknown_table";
    case UpdateCode::kUnknownAction: return "unknown_action";
    case UpdateCode::kBadName: return "bad_name";
    case UpdateCode::kActionNotInTable: return "action_not_in_table";
    case UpdateCode::kKeyCount: return "key_count";
    case UpdateCode::kValueWidth: return "value_width";
    case UpdateCode::kPrefixLength: return "prefix_length";
    case UpdateCode::kPrefixBits: return "prefix_bits";
    case UpdateCode::kMaskBits: return "mask_bits";
    case UpdateCode::kMatchKind: return "match_kind";
    case UpdateCode::kPriority: return "priority";
    case UpdateCode::kDuplicateEntry: return "duplicate_entry";
    case UpdateCode::kNoSuchEntry: return "no_such_entry";
    case UpdateCode::kTableFull: return "table_full";
    case UpdateCode::kParams: return "params";
    case UpdateCode::kConstDefault: return "const_default";
    case UpdateCode::kImmutableTable: return "immutable_table";
    case UpdateCode::kKeylessTable: return "keyless_table";
    case UpdateCode::kBadRecord: return "bad_record";
    case UpdateCode::kUnknownProfile: return "unknown_profile";
    case UpdateCode::kNoSuchMember: return "no_such_member";
    case UpdateCode::kNoSuchGroup: return "no_such_group";
    case UpdateCode::kDuplicateMember: return "duplicate_member";
    case UpdateCode::kProfileFull: return "profile_full";
    case UpdateCode::kInUse: return "in_use";
    case UpdateCode::kIndirect: return "indirect";
    case UpdateCode::kRange: return "range";
    case UpdateCode::kUnknownObject: return "unknown_object";
    case UpdateCode::kIndex: return "index";
  }
  return "unknown";
}

}  // namespace dpusim::p4
