// Shared pieces of the dpusim-p4 subcommands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/errors.h"
#include "dpusim/p4/pcap.h"

namespace dpusim::p4::tool {

int cmd_run(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
int cmd_switch(const std::vector<std::string>& args);

bool read_text(const std::string& path, std::string* out);
// Prints "PROG: error[<code>]: <message>" on stderr; returns the exit status (1, or 2 for I/O).
int refused(const std::string& prog, const LoadError& error);
// A --policy argument: ernic or bmv2; anything else is said on stderr (the caller exits 2).
bool policy_from_arg(const char* command, const std::string& arg, FeaturePolicy* policy);

}  // namespace dpusim::p4::tool
