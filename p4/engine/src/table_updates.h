// Table and action profile updates (update.cpp, update_profile.cpp): the one path by which a
// control plane (Engine::update) or a program's const entries change a table, held to
// P4Runtime's rules.
#pragma once

#include <cstdint>
#include <vector>

#include "dpusim/p4/errors.h"
#include "dpusim/p4/update.h"
#include "exec.h"
#include "program.h"
#include "runtime.h"

namespace dpusim::p4 {

// A key, mask and prefix checked against a table and put in the table's canonical form.
struct CanonicalEntry {
  std::vector<std::uint8_t> key, mask;
  std::vector<std::uint8_t> high;  // range tables: each range field's end (start in key)
  int prefix_bits = -1;  // LPM tables: over the whole key (exact fields count in full)
  std::int32_t priority = 0;
  int action = -1;       // simple tables: the action; indirect ones: the member or group reference
  std::vector<std::uint64_t> data;
};

class TableUpdates {
 public:
  TableUpdates(const Program& program, std::vector<TableRuntime>& tables, Runtime& runtime)
      : program(program), tables(tables), runtime(runtime) {}

  // A table entry's insert, modify, delete or default action; an insert's handle to *handle.
  bool apply(const TableUpdate& u, UpdateError* error, std::uint32_t* handle);
  // An action profile's member or group.
  bool apply_profile(const TableUpdate& u, UpdateError* error);
  // Installs the tables' const entries (their 'entries' lists) through the update path's checks.
  bool install_const_entries(LoadError* error);

 private:
  bool canonical_key(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error) const;
  bool canonical_action(const TableInfo& t, const TableUpdate& u, CanonicalEntry* e, UpdateError* error);
  // The identical entry's meta word (followed by its data and handle), or null.
  std::uint64_t* find_entry(int table, const CanonicalEntry& e);
  bool insert_entry(int table, const CanonicalEntry& e, UpdateError* error, std::uint32_t* handle);
  void erase_entry(int table, const CanonicalEntry& e, std::uint64_t* meta);
  // Member and group references of an indirect entry (kept for the in_use rule).
  void reference(const TableInfo& t, std::uint32_t ref, int delta);

  const Program& program;
  std::vector<TableRuntime>& tables;
  Runtime& runtime;
};

}  // namespace dpusim::p4
