// Registration of the extension module's submodules.
//
// Each binding file defines `DPUSIM_PYBIND(name) { ... }`; the module init runs them in name
// order, each on its own submodule `_dpusim.<name>`. Static registration keeps binding files
// independent of each other; sorting by name keeps the module's layout deterministic whatever
// order the linker runs static initialisers in.
#pragma once

#include <pybind11/pybind11.h>

namespace dpusim::pybind {

using Binder = void (*)(pybind11::module_&);

struct Registrar {
  Registrar(const char* name, Binder binder);
};

}  // namespace dpusim::pybind

#define DPUSIM_PYBIND(name)                                                          \
  static void dpusim_bind_##name(pybind11::module_& m);                              \
  static const ::dpusim::pybind::Registrar dpusim_registrar_##name(#name,            \
                                                                   &dpusim_bind_##name); \
  static void dpusim_bind_##name(pybind11::module_& m)
