// The bmv2 JSON loader: turns an untrusted document into a Program or a refusal.
//
// The loader is split by the sections of JSON_format.md (headers, expressions, actions,
// parser, pipelines); the pieces share this class. A refusal is thrown as a Refusal and
// caught once at the top (load_program), so each check reads as a single line at the point
// that knows the object, the field and the value it names.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/extern.h"
#include "program.h"

namespace dpusim::p4 {

using Json = nlohmann::json;

struct Refusal {
  LoadError error;
};

[[noreturn]] void refuse(LoadCode code, const std::string& message);
// "'<feature>' is not supported yet" with the object that uses it.
[[noreturn]] void refuse_feature(const std::string& feature, const std::string& where);

// Loads `text` into *program. On refusal returns false with *error filled.
bool load_program(std::string_view text, const ExternRegistry* externs, Program* program,
                  LoadError* error);

// The tables' and conditionals' names, one namespace across pipelines (as in bmv2, where a
// next table and a table update reach only the first of a name): name -> (node, pipeline).
struct PipelineNodes {
  std::map<std::string, std::pair<int, int>> by_name;
  // A next-node reference (null: none, -1), refused when it names no node or one of another
  // pipeline.
  int ref(const Json* v, int pipeline, const std::string& where) const;
};

class Loader;
// One table of a pipeline (loader_tables.cpp): its implementation, keys and match_type, key
// layout, actions and next nodes, default and constant entries; `budget` counts the entries all
// tables ask for, against P4_MAX_TABLE_ENTRIES_TOTAL.
void load_table(Loader& loader, const Json& t, TableInfo& tab, const PipelineNodes& nodes, std::uint64_t* budget);

class Loader {
 public:
  Loader(const Json& doc, const ExternRegistry* externs, Program* p)
      : doc_(doc), externs_(externs), p_(*p) {}
  void load();

  // --- JSON accessors (loader_util.cpp) -----------------------------------------------
  static const Json* find(const Json& obj, const char* key);
  static const Json& member(const Json& obj, const char* key, const std::string& where);
  // An array member (missing or null reads as empty when `optional`), checked against limit.
  static const Json& array(const Json& obj, const char* key, std::size_t limit,
                           const std::string& where, bool optional = true);
  static void check_array(const Json& arr, std::size_t limit, const std::string& what);
  static std::string string(const Json& obj, const char* key, const std::string& where);
  static std::string name(const Json& obj, const std::string& where);  // "name", checked
  static void check_name(const std::string& name, const std::string& where);
  static std::int64_t integer(const Json& obj, const char* key, const std::string& where,
                              std::int64_t min, std::int64_t max);
  static std::int64_t as_integer(const Json& v, const std::string& what, std::int64_t min,
                                 std::int64_t max);
  static bool boolean(const Json& obj, const char* key, const std::string& where, bool dflt);
  // An object's "name" and "id", each refused when it repeats one of its kind (`names` may
  // be null where bmv2 lets names repeat). Returns the id; *where names the object.
  struct Identity {
    std::string name, where;
    int id;
  };
  static Identity identify(const Json& obj, const std::string& kind, std::set<std::int64_t>* ids,
                           std::map<std::string, int>* names, int index);
  // bmv2 hexstr, negative ones in two's complement; one wider than P4_MAX_FIELD_BITS is
  // not a value this engine can carry.
  static Value hexstr(const Json& v, const std::string& where);
  // Whether a literal can be written to a field of `width` bits without losing bits (a
  // negative one: its magnitude).
  static bool literal_fits(const Value& v, int width);
  // A hexstr that must fit `width` bits ("literal wider than its field"), as its `width`
  // low bits.
  static Value hexstr_fitting(const Json& v, int width, const std::string& where);
  // A byte string of exactly nbytes (transition values and masks, key masks).
  static std::vector<std::uint8_t> hexbytes(const Json& v, int nbytes, const std::string& where);

  // --- headers, metadata, aliases (loader_headers.cpp) --------------------------------
  void load_header_types();
  void load_headers();
  void load_stacks_and_unions();
  void load_errors();
  void load_field_aliases();
  void resolve_v1model_fields();
  void layout_phv();
  int field_ref(const Json& v, const std::string& where);  // ["header", "field"]
  int header_ref(const std::string& name, const std::string& where);

  // --- expressions and operands (loader_expr.cpp) -------------------------------------
  struct ExprScope {
    int num_params = -1;       // action parameters ("local", "runtime_data"); -1: none
    const std::vector<ActionParam>* params = nullptr;
    bool parser = false;       // lookahead allowed
  };
  int expr(const Json& v, const ExprScope& scope, const std::string& where);
  int expr_of_kind(const Json& v, ExprKind kind, const ExprScope& scope,
                   const std::string& where);
  int lvalue(const Json& v, const ExprScope& scope, const std::string& where);
  int as_lvalue(int node, const std::string& where);  // checks a compiled node is a field
  int header_operand(const Json& v, const ExprScope& scope, const std::string& where);
  int add_node(ExprOp op, ExprKind kind, int a = -1, int b = -1, int c = -1);
  int small_bits(const ExprNode& n) const;
  int add_const(const Value& v);
  // The static width of a data node when known (a field, a parameter), else -1.
  int static_width(int node) const;

  // --- actions (loader_actions.cpp) ---------------------------------------------------
  void load_externs();
  void load_actions();
  // One primitive of an action (loader_primitives.cpp: a handler per op name).
  Prim primitive(const Json& prim, const ExprScope& scope, const std::string& where,
                 std::size_t index, std::size_t count);
  // What a primitive's handler is given: its parameters, the action's scope, its op, where it
  // is (for messages), and how many primitives the action has (jump targets).
  struct PrimCall {
    const Json& params;
    const ExprScope& scope;
    const std::string& op;
    const std::string& where;
    std::size_t count;
  };

  // --- parser and deparser (loader_parser.cpp) ----------------------------------------
  void load_parser();
  void load_deparser();

  // --- calculations, checksums, stateful arrays, lists, value sets (loader_stateful.cpp)
  std::vector<CalcInput> calc_inputs(const Json& arr, const std::string& where, bool fields_only);
  int add_calculation(const std::string& name, int id, const std::string& algo, std::vector<CalcInput> inputs,
                      const std::string& where);
  void load_calculations();
  void load_checksums();
  void load_stateful_arrays();
  std::uint32_t stateful_size(const Json& obj, const std::string& where);
  void load_field_lists();
  void load_parse_vsets();
  void bind_direct_resources();
  // A primitive operand naming an object of a kind ("counter_array", "calculation"...).
  int named_operand(const Json& v, const char* type, const std::map<std::string, int>& names, const std::string& where);
  // A field list (or learn list) id operand; a constant one must name a list.
  int field_list_operand(const Json& v, const ExprScope& scope, const std::string& where, bool learn);
  bool direct_counter_named(int counter) const;

  // --- pipelines (loader_pipeline.cpp) ------------------------------------------------
  void load_pipelines();
  void load_action_profiles(const Json& pipeline, const std::string& where);
  void check_cycles();
  std::vector<std::uint64_t> action_data(const Json& arr, int action, const std::string& where);

  const Json& doc_;
  const ExternRegistry* externs_;
  Program& p_;
  // The field_aliases map: target's expected name -> field id.
  std::map<std::string, int> aliases_;
  // Action names shared by several actions (found by id, or within one table, only).
  std::set<std::string> duplicate_action_names_;
  // Direct counters and meters, bound to their tables once the tables are known.
  struct DirectBinding {
    std::string table;
    int index;
    bool meter;
    std::string where;
  };
  std::vector<DirectBinding> direct_bindings_;
  std::uint64_t stateful_cells_ = 0;
  std::set<std::int64_t> action_profile_ids_;
};

}  // namespace dpusim::p4
