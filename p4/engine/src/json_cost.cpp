#include "json_cost.h"

#include <string>

#include "dpusim/p4/limits.h"

namespace dpusim::p4 {

bool weigh_json(std::string_view text, std::uint64_t max_cost, int max_depth, JsonCost* out,
                LoadError* err) {
  std::uint64_t cost = 0;
  int depth = 0, deepest = 0;
  std::size_t i = 0, n = text.size();
  auto refuse_cost = [&](std::size_t at) {
    err->code = LoadCode::kJsonCost;
    err->message = "document weighs more than " + std::to_string(max_cost) +
                   " (object 8, array 2, other values 1) by byte offset " + std::to_string(at) +
                   ": refused before parsing";
    return false;
  };
  while (i < n) {
    char c = text[i];
    switch (c) {
      case '{':
      case '[':
        cost += c == '{' ? P4_JSON_COST_OBJECT : P4_JSON_COST_ARRAY;
        if (++depth > max_depth) {
          err->code = LoadCode::kJsonDepth;
          err->message = "document nests deeper than " + std::to_string(max_depth) +
                         " levels at byte offset " + std::to_string(i);
          return false;
        }
        if (depth > deepest) deepest = depth;
        ++i;
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;
        ++i;
        break;
      case '"': {
        // A string, object keys included, weighs 1; skip it honouring escapes.
        cost += P4_JSON_COST_OTHER;
        ++i;
        while (i < n && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
        ++i;
        break;
      }
      case ',':
      case ':':
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        ++i;
        break;
      default:
        // A number or literal: one value, however long its text.
        cost += P4_JSON_COST_OTHER;
        while (i < n) {
          char d = text[i];
          if (d == ',' || d == ':' || d == ']' || d == '}' || d == '{' || d == '[' ||
              d == '"' || d == ' ' || d == '\t' || d == '\n' || d == '\r')
            break;
          ++i;
        }
        break;
    }
    if (cost > max_cost) return refuse_cost(i);
  }
  out->cost = cost;
  out->max_depth = deepest;
  return true;
}

}  // namespace dpusim::p4
