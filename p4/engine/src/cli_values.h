// Numbers as simple_switch_CLI reads them (runtime_CLI.py's parse_param): Python's int(x, 0)
// (0x, 0o, 0b or decimal, underscores between digits), and for a 32-, 48- or 128-bit field
// also a dotted IPv4 address, a colon-separated MAC address or an IPv6 address. Shared by
// the CLI and the STF runner.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/value.h"

namespace dpusim::p4 {

// A non-negative integer of at most 512 bits; false when the text is not one.
bool parse_cli_integer(const std::string& text, Value* out);
// A value for a field of `width` bits; false with *error naming the problem.
bool parse_cli_param(const std::string& text, int width, Value* out, std::string* error);
// A meter rate "<units per microsecond>:<burst units>".
bool parse_cli_rate(const std::string& text, double* rate, std::uint64_t* burst);

// The argument checks of the CLI's commands (cli.cpp, cli_objects.cpp); each returns false
// with *error set to the line simple_switch_CLI would print.
namespace cli_args {
// Whether a command has lo..hi arguments.
bool count(const std::vector<std::string>& args, std::size_t lo, std::size_t hi, std::string* error);
// An engine refusal as "error[<code>]: <message>"; always false.
bool engine_error(const UpdateError& e, std::string* error);
// A handle or index argument: a number that fits 32 bits.
bool handle_arg(const std::string& word, const char* what, std::uint32_t* out, std::string* error);
}  // namespace cli_args

}  // namespace dpusim::p4
