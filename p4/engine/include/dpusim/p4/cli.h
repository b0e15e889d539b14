// simple_switch_CLI's commands (bmv2's tools/runtime_CLI.py and targets/simple_switch/
// sswitch_CLI.py) over an Engine, so that a user's existing commands files run unchanged:
// table_add, table_set_default, table_modify, table_delete, table_clear, table_set_timeout,
// the act_prof_* and table_indirect_* commands, mirroring_add(_mc), mirroring_delete, the
// mc_* commands, counter_read/write/reset, register_read/write/reset, meter_set_rates,
// meter_array_set_rates, pvs_add/remove/clear and set_crc16/32_parameters.
//
// As the CLI does: tables, actions, profiles, counters, meters, registers and value sets
// may be named by any unique suffix of their dotted name; values are numbers (0x, 0o, 0b or
// decimal), dotted IPv4 addresses for 32-bit fields, colon MAC addresses for 48-bit ones and
// IPv6 addresses for 128-bit ones; match fields are v (exact), v/len (lpm), v&&&m (ternary),
// a->b (range) and 0 or 1 (valid); a ternary or range table's priority is the last word,
// lower wins; entries, members, groups and multicast nodes are known by the handles the
// CLI prints. Every command goes through the engine's own checks (Engine::update and the
// runtime calls). Blank lines and lines starting with '#' do nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/engine.h"

namespace dpusim::p4 {

class SwitchCli {
 public:
  explicit SwitchCli(Engine& engine);

  // Runs one command line. What simple_switch_CLI prints for a read (counter_read,
  // register_read, table_num_entries...) is appended to *out. A refusal returns false with
  // *error naming the command and the problem; a command the CLI does not have is refused
  // by name.
  bool execute(std::string_view line, std::string* out, std::string* error);
  // Runs a commands file line by line; stops at the first refused line ("line N: ...").
  bool run(std::string_view text, std::string* out, std::string* error);

 private:
  struct Entry {
    TableUpdate key;  // the match fields and priority: enough to modify or delete it
  };
  bool table_add(const std::vector<std::string>& args, bool indirect, bool group, std::string* error);
  bool table_set_default(const std::vector<std::string>& args, std::string* error);
  bool table_modify(const std::vector<std::string>& args, std::string* error);
  bool table_delete(const std::vector<std::string>& args, std::string* error);
  bool table_clear(const std::vector<std::string>& args, std::string* error);
  bool profile_command(const std::string& cmd, const std::vector<std::string>& args, std::string* error);
  bool mc_command(const std::string& cmd, const std::vector<std::string>& args, std::string* error);
  bool object_command(const std::string& cmd, const std::vector<std::string>& args, std::string* out, std::string* error);

  const TableDesc* table(const std::string& name, std::string* error) const;
  const ActionDesc* action(const TableDesc& t, const std::string& name, std::string* error) const;
  const ObjectDesc* object(const std::string& kind, const std::string& name, std::string* error) const;
  const TableDesc* profile_table(const std::string& profile, std::string* error) const;
  bool params(const ActionDesc& a, const std::vector<std::string>& words, TableUpdate* u, std::string* error) const;
  bool match_key(const TableDesc& t, const std::vector<std::string>& words, TableUpdate* u, std::string* error) const;

  Engine& engine_;
  std::vector<TableDesc> tables_;
  std::vector<ObjectDesc> objects_;
  std::map<std::string, std::map<std::uint32_t, Entry>> entries_;      // table -> handle -> entry
  std::map<std::string, std::vector<std::uint32_t>> profile_members_;  // profile -> member handles
  std::map<std::string, std::map<std::uint32_t, std::vector<std::uint32_t>>> profile_groups_;
};

}  // namespace dpusim::p4
