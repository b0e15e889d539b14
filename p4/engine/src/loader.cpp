// Top level of the loader: size and weight before parsing, the format version, the
// sections in dependency order, then v1model's and the target's feature policy.
#include "loader.h"

#include "dpusim/p4/limits.h"
#include "feature_policy.h"
#include "json_cost.h"

namespace dpusim::p4 {

void Loader::check_version() {
  if (!doc_.is_object()) refuse(LoadCode::kSchema, "document is a JSON " + std::string(doc_.type_name()) + ", not an object");
  if (const Json* meta = jf::find(doc_, "__meta__"); meta != nullptr && !meta->is_null()) {
    const Json& ver = jf::member(*meta, "version", "__meta__");
    if (!ver.is_array() || ver.size() < 2) refuse(LoadCode::kSchema, "__meta__ version is not a [major, minor] pair");
    std::int64_t major = jf::as_integer(ver[0], "__meta__ major version", 0, INT32_MAX);
    std::int64_t minor = jf::as_integer(ver[1], "__meta__ minor version", 0, INT32_MAX);
    if (major != P4_JSON_VERSION_MAJOR || minor > P4_JSON_VERSION_MINOR_MAX)
      refuse(LoadCode::kVersion, "bmv2 JSON format version " + std::to_string(major) + "." + std::to_string(minor) +
                                     " is not supported (this engine reads " + std::to_string(P4_JSON_VERSION_MAJOR) + ".0 to " +
                                     std::to_string(P4_JSON_VERSION_MAJOR) + "." + std::to_string(P4_JSON_VERSION_MINOR_MAX) + ")");
  }
}

void Loader::load() {
  check_version();
  if (const Json* prog = jf::find(doc_, "program"); prog != nullptr && prog->is_string()) {
    p_.name = prog->get<std::string>();
    jf::check_name(p_.name, "program");
  }
  ExprCompiler ex(p_);
  load_externs(doc_, externs_, p_);
  p_.header_types = load_header_types(doc_);
  load_headers(doc_, p_);
  load_stacks_and_unions(doc_, p_);
  load_errors(doc_, p_);
  load_field_aliases(doc_, ex);
  resolve_v1model_fields(p_, ex.aliases);
  layout_phv(p_);
  Calculations calcs(ex);
  calcs.load_calculations(doc_);
  StatefulArrays stateful(ex);
  stateful.load(doc_);
  load_field_lists(doc_, ex);
  load_parse_vsets(doc_, p_);
  const PrimitiveContext prims{ex, externs_, stateful};
  const std::set<std::string> duplicate_action_names = load_actions(doc_, prims);
  p_.parser = load_parser(doc_, prims);
  p_.deparser = load_deparser(doc_, prims);
  load_pipelines(doc_, TableContext{ex, calcs, duplicate_action_names});
  stateful.bind_direct_resources();
  calcs.load_checksums(doc_);
  check_cycles(p_);
}

bool load_program(std::string_view text, const ExternRegistry* externs, FeaturePolicy features, Program* program,
                  LoadError* error) {
  if (text.size() > P4_MAX_DOCUMENT_BYTES) {
    *error = {LoadCode::kDocumentSize, "document is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                                           std::to_string(P4_MAX_DOCUMENT_BYTES) + " (4 MiB)"};
    return false;
  }
  JsonCost cost;
  if (!weigh_json(text, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, error)) return false;
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Find where it breaks, for the message: nlohmann's exception says.
    std::string why = "not valid JSON";
    try {
      Json again = Json::parse(text.begin(), text.end());
    } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number too large
      why = e.what();
    }
    *error = {LoadCode::kJsonSyntax, why.substr(0, 300)};
    return false;
  }
  try {
    Loader loader(doc, externs, program);
    loader.load();
  } catch (const Refusal& r) {
    *error = r.error;
    return false;
  } catch (const Json::exception& e) {
    // Every access is type-checked first; this is the backstop that keeps a JSON shape the
    // checks missed a refusal rather than a crash.
    *error = {LoadCode::kSchema, std::string("malformed program: ") + e.what()};
    return false;
  }
  return check_v1model(*program, error) && check_feature_policy(*program, features, error);
}

}  // namespace dpusim::p4
