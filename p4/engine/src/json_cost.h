// The weighing pass that runs before a JSON parser sees a document (see limits.h): it
// refuses a document whose values would cost too much heap to parse, or whose nesting could
// exhaust a recursive consumer's stack. It reads bytes only and allocates nothing, so an
// adversarial document costs it one linear scan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dpusim/p4/errors.h"

namespace dpusim::p4 {

struct JsonCost {
  std::uint64_t cost = 0;
  int max_depth = 0;
};

// Weighs `text` and checks it against `max_cost` and `max_depth`. On refusal fills *err
// (kJsonCost or kJsonDepth, naming the byte offset where the limit was crossed) and returns
// false. Malformed JSON is not this pass's concern: the parser refuses it afterwards.
bool weigh_json(std::string_view text, std::uint64_t max_cost, int max_depth, JsonCost* out,
                LoadError* err);

}  // namespace dpusim::p4
