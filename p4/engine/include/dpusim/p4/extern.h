// Extern types a loaded program may instantiate and call.
//
// bmv2 turns a call `inst.method(x, y)` on an extern instance of type T into the primitive
// `_T_method` whose first parameter is {"type": "extern", "value": "inst"} (JSON_format.md,
// "extern instance methods"). The loader allow-lists types through this registry: a program
// instantiating or calling an extern the registry does not hold is refused by name, never
// loaded with a call that goes nowhere. The engine itself registers none; a device that
// provides one (the fp8 unit of the RDMA path) registers it and passes the registry to
// Engine::load.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dpusim/p4/value.h"

namespace dpusim::p4 {

struct ExternInstance {
  std::string name;
  std::string type;
  int id = 0;
  // attribute_values of type hexstr, by attribute name (others are kept as text).
  std::map<std::string, Value> int_attributes;
  std::map<std::string, std::string> text_attributes;
};

// What a method call asks of the pipeline after it returns.
enum class ExternResult {
  kContinue,      // go on with the action
  kStopPipeline,  // stop the current pipeline here (decisions made before the call stand)
  kFault,         // a runtime fault: the frame (or operation) is dropped and counted
};

struct ExternCall {
  const ExternInstance* instance = nullptr;  // null for an extern function
  Value* args = nullptr;        // the call's arguments after the instance, evaluated; an
                                // extern function's out arguments are written back
  int nargs = 0;
  void* context = nullptr;      // the caller's per-run context (Engine::set_extern_context)
};

struct ExternMethod {
  std::string name;
  int min_args = 0;
  int max_args = 0;
  ExternResult (*invoke)(ExternCall& call) = nullptr;
};

struct ExternType {
  std::string name;
  std::vector<ExternMethod> methods;
  // Optional check of an instance's attributes at load; false refuses the program with
  // *error as the message.
  bool (*validate)(const ExternInstance& instance, std::string* error) = nullptr;
};

// A free extern function (what simple_switch loads with --load-modules, bmv2's
// BM_REGISTER_EXTERN_FUNCTION): p4c emits a call to `f(a, b)` as the primitive `f`. The
// arguments listed in out_args must be fields; what the function leaves in them is
// written back, truncated to the field, after it returns.
struct ExternFunction {
  std::string name;
  int min_args = 0;
  int max_args = 0;
  std::vector<int> out_args;
  ExternResult (*invoke)(ExternCall& call) = nullptr;
};

class ExternRegistry {
 public:
  void add(ExternType type) { types_[type.name] = std::move(type); }
  void add_function(ExternFunction f) { functions_[f.name] = std::move(f); }
  const ExternType* find(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? nullptr : &it->second;
  }
  const ExternFunction* find_function(const std::string& name) const {
    auto it = functions_.find(name);
    return it == functions_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, ExternType>& types() const { return types_; }

 private:
  std::map<std::string, ExternType> types_;
  std::map<std::string, ExternFunction> functions_;
};

}  // namespace dpusim::p4
