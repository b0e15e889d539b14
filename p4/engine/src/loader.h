// The bmv2 JSON loader: turns an untrusted document into a Program or a refusal.
//
// One loader per section of JSON_format.md, each given the JSON and the narrow context it
// needs: header types, headers, stacks, unions, errors and field aliases (loader_headers.cpp);
// expressions and operands (ExprCompiler, loader_expr.cpp); extern instances and actions
// (loader_actions.cpp) with their primitives (loader_primitives.cpp: a handler per op name);
// calculations and checksums, counter, meter and register arrays, field lists and parse value
// sets (loader_stateful.cpp); the parser and deparser (loader_parser.cpp); pipelines
// (loader_pipeline.cpp) and their tables (loader_tables.cpp). The fields of every object are
// read through json_fields.h. `Loader` keeps the order of the sections, and load_program the
// target's feature policy. A refusal is thrown as a Refusal and caught once, in load_program,
// so each check reads as a single line at the point that knows the object, the field and the
// value it names.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/errors.h"
#include "dpusim/p4/extern.h"
#include "json_fields.h"
#include "program.h"

namespace dpusim::p4 {

// Loads `text` into *program and checks it against v1model and the target's feature policy.
// On refusal returns false with *error filled.
bool load_program(std::string_view text, const ExternRegistry* externs, FeaturePolicy features, Program* program,
                  LoadError* error);

// --- expressions and operands (loader_expr.cpp; references: loader_headers.cpp) ----------
struct ExprScope {
  int num_params = -1;  // action parameters ("local", "runtime_data"); -1: none
  const std::vector<ActionParam>* params = nullptr;
  bool parser = false;  // lookahead allowed
};

// Compiles JSON expressions and operands into the program's expression nodes, and resolves
// the names of headers, fields (through the field_aliases) and named objects.
class ExprCompiler {
 public:
  explicit ExprCompiler(Program& program) : p(program) {}

  int field_ref(const Json& v, const std::string& where);  // ["header", "field"]
  int header_ref(const std::string& name, const std::string& where);
  int expr(const Json& v, const ExprScope& scope, const std::string& where);
  int expr_of_kind(const Json& v, ExprKind kind, const ExprScope& scope, const std::string& where);
  int lvalue(const Json& v, const ExprScope& scope, const std::string& where);
  int as_lvalue(int node, const std::string& where);  // checks a compiled node is a field
  int header_operand(const Json& v, const ExprScope& scope, const std::string& where);
  int add_node(ExprOp op, ExprKind kind, int a = -1, int b = -1, int c = -1);
  int small_bits(const ExprNode& n) const;
  int add_const(const Value& v);
  // The static width of a data node when known (a field, a parameter), else -1.
  int static_width(int node) const;
  // A primitive operand naming an object of a kind ("counter_array", "calculation"...).
  int named_operand(const Json& v, const char* type, const std::map<std::string, int>& names, const std::string& where);
  // A field list (or learn list) id operand; a constant one must name a list.
  int field_list_operand(const Json& v, const ExprScope& scope, const std::string& where, bool learn);

  Program& p;
  // The field_aliases section: target's expected name -> field id (load_field_aliases).
  std::map<std::string, int> aliases;
};

// --- header_types, headers, header_stacks, header_unions, errors, field_aliases ----------
// (loader_headers.cpp), in this order: each reads what the ones before it built.
std::vector<HeaderTypeInfo> load_header_types(const Json& doc);
void load_headers(const Json& doc, Program& p);
void load_stacks_and_unions(const Json& doc, Program& p);
void load_errors(const Json& doc, Program& p);
void load_field_aliases(const Json& doc, ExprCompiler& ex);
// The standard_metadata (and intrinsic and queueing metadata) fields simple_switch reads.
void resolve_v1model_fields(Program& p, const std::map<std::string, int>& aliases);
// Each field's place in the packet header vector.
void layout_phv(Program& p);

// --- calculations and checksums (loader_stateful.cpp) -----------------------------------
class Calculations {
 public:
  explicit Calculations(ExprCompiler& ex) : ex_(ex), p_(ex.p) {}
  std::vector<CalcInput> calc_inputs(const Json& arr, const std::string& where, bool fields_only);
  // Adds a calculation (a selector's too) and returns its index.
  int add_calculation(const std::string& name, int id, const std::string& algo, std::vector<CalcInput> inputs,
                      const std::string& where);
  void load_calculations(const Json& doc);
  void load_checksums(const Json& doc);

 private:
  ExprCompiler& ex_;
  Program& p_;
};

// --- counter_arrays, meter_arrays, register_arrays (loader_stateful.cpp) ----------------
// Their cells are counted against P4_MAX_STATEFUL_CELLS; direct counters and meters are bound
// to their tables once the pipelines are loaded.
class StatefulArrays {
 public:
  explicit StatefulArrays(ExprCompiler& ex) : ex_(ex), p_(ex.p) {}
  void load(const Json& doc);
  void bind_direct_resources();
  bool direct_counter_named(int counter) const;

 private:
  std::uint32_t stateful_size(const Json& obj, const std::string& where);
  struct DirectBinding {
    std::string table;
    int index;
    bool meter;
    std::string where;
  };
  ExprCompiler& ex_;
  Program& p_;
  std::vector<DirectBinding> direct_bindings_;
  std::uint64_t stateful_cells_ = 0;
};

// --- field_lists, learn_lists, parse_vsets (loader_stateful.cpp) ------------------------
void load_field_lists(const Json& doc, ExprCompiler& ex);
void load_parse_vsets(const Json& doc, Program& p);

// --- extern_instances, actions and their primitives (loader_actions.cpp,
// loader_primitives.cpp) ------------------------------------------------------------------
void load_externs(const Json& doc, const ExternRegistry* externs, Program& p);
// What a primitive is compiled against: the expressions, the target's extern types, the
// stateful arrays (a direct counter cannot be counted by index).
struct PrimitiveContext {
  ExprCompiler& ex;
  const ExternRegistry* externs;
  const StatefulArrays& stateful;
};
// One primitive of an action, the parser or the deparser (a handler per op name).
Prim load_primitive(const PrimitiveContext& ctx, const Json& prim, const ExprScope& scope, const std::string& where,
                    std::size_t index, std::size_t count);
// Returns the action names shared by several actions (found by id, or within one table, only).
std::set<std::string> load_actions(const Json& doc, const PrimitiveContext& ctx);

// --- parsers, deparsers (loader_parser.cpp) ---------------------------------------------
// The parser and the deparser simple_switch runs (named "parser" and "deparser"); one that is
// missing is recorded in Program::not_v1model and read as empty.
ParserInfo load_parser(const Json& doc, const PrimitiveContext& ctx);
DeparserInfo load_deparser(const Json& doc, const PrimitiveContext& ctx);

// --- pipelines (loader_pipeline.cpp) and their tables (loader_tables.cpp) ---------------
// The tables' and conditionals' names, one namespace across pipelines (as in bmv2, where a
// next table and a table update reach only the first of a name): name -> (node, pipeline).
struct PipelineNodes {
  std::map<std::string, std::pair<int, int>> by_name;
  // A next-node reference (null: none, -1), refused when it names no node or one of another
  // pipeline.
  int ref(const Json* v, int pipeline, const std::string& where) const;
};
// What a table is loaded against: expressions, the calculations (an action selector's),
// the action names that need an id to find.
struct TableContext {
  ExprCompiler& ex;
  Calculations& calcs;
  const std::set<std::string>& duplicate_action_names;
};
void load_pipelines(const Json& doc, const TableContext& ctx);
// One table of a pipeline: its implementation, keys and match_type, key layout, actions and
// next nodes, default and constant entries; `budget` counts the entries all tables ask for,
// against P4_MAX_TABLE_ENTRIES_TOTAL.
void load_table(const TableContext& ctx, const Json& t, TableInfo& tab, const PipelineNodes& nodes, std::uint64_t* budget);
// An action's arguments (hexstrs, each fitting its parameter) as its runtime data limbs.
std::vector<std::uint64_t> action_data(const Program& p, const Json& arr, int action, const std::string& where);
// Refuses a pipeline whose next-node graph has a cycle.
void check_cycles(const Program& p);

// The order of the sections: each is loaded after the ones it refers to.
class Loader {
 public:
  Loader(const Json& doc, const ExternRegistry* externs, Program* p) : doc_(doc), externs_(externs), p_(*p) {}
  void load();

 private:
  void check_version();

  const Json& doc_;
  const ExternRegistry* externs_;
  Program& p_;
};

}  // namespace dpusim::p4
