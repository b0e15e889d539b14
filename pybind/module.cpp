// The `_dpusim` extension module: runs every registered binder on its own submodule.
#include <cstdlib>
#include <map>
#include <string>

#include "module_registry.h"
#include "rtl/fp8_impl.h"

namespace dpusim::pybind {
namespace {
std::map<std::string, Binder>& registry() {
  static std::map<std::string, Binder> binders;
  return binders;
}
}  // namespace

Registrar::Registrar(const char* name, Binder binder) { registry().emplace(name, binder); }

}  // namespace dpusim::pybind

// Debian's libsystemc references sc_main from its own main(); an extension module that links
// it must define the symbol or the import fails. The simulator never enters it.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 0; }

PYBIND11_MODULE(_dpusim, m) {
  // SystemC prints its banner on stdout when its kernel starts; a run's stdout is its own.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  m.doc() = "dpusim native core (SystemC/TLM platform, P4 engine, numeric formats)";
  // The CMake options this build was configured with that change what exists (tests skip on them).
  pybind11::dict options;
  options["DPUSIM_RTL"] = dpusim::rtl::fp8_impl_available(dpusim::rtl::kFp8ImplRtl);
  m.attr("build_options") = options;
  for (const auto& [name, bind] : dpusim::pybind::registry()) {
    auto sub = m.def_submodule(name.c_str());
    bind(sub);
  }
}
