// Engine's private state, shared by engine.cpp (frames, the port policies) and
// update.cpp (table updates).
#pragma once

#include <vector>

#include "dpusim/p4/engine.h"
#include "exec.h"
#include "program.h"

namespace dpusim::p4 {

// A key, mask and prefix checked against a table and put in the table's canonical form.
struct CanonicalEntry {
  std::vector<std::uint8_t> key, mask;
  int prefix_bits = -1;  // LPM tables: over the whole key (exact fields count in full)
  std::int32_t priority = 0;
  int action = -1;
  std::vector<std::uint64_t> data;
};

struct Engine::Impl {
  Program program;
  LoadOptions options;
  std::vector<TableRuntime> tables;
  std::unique_ptr<Executor> exec;
  Stats stats;

  void init_tables();
  // Installs a table's const entries (an 'entries' list) through the update path's checks.
  bool install_const_entries(LoadError* error);

  // update.cpp
  bool apply(const TableUpdate& u, UpdateError* error);
  bool canonical_key(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error) const;
  bool canonical_action(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error) const;
  // The identical entry's meta word (followed by its data), or null.
  std::uint64_t* find_entry(int table, const CanonicalEntry& e);
  bool insert_entry(int table, const CanonicalEntry& e, UpdateError* error);
};

}  // namespace dpusim::p4
