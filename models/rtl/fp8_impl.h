// The fp8 unit's implementations by name, as option `fp8-impl` names them: `cpp`, the C++
// codec (p4/formats, no simulated time), and `rtl`, the verilated SystemVerilog unit
// (models/rtl/fp8, docs/cosim.md), which only a build with DPUSIM_RTL has. A device (an
// ionic slot key) or a tool turns its option into an Fp8Backend for the RDMA path here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "dpusim/p4/rdma/fp8_backend.h"

namespace dpusim::pcie {
class TimingProfile;
}

namespace dpusim::rtl {

inline constexpr const char* kFp8ImplCpp = "cpp";  // the default
inline constexpr const char* kFp8ImplRtl = "rtl";

struct Fp8ImplOptions {
  // The RTL unit's clock period in ps; 0 takes the timing parameter rtl.fp8.clock_ps from
  // `timing`, or its default without one. Only `rtl` has a clock: a nonzero value with `cpp`
  // is refused.
  std::uint64_t clock_ps = 0;
  // A platform's timing profile (a device's unit follows the document's "timing" overrides).
  const pcie::TimingProfile* timing = nullptr;
  // The SystemC name of the RTL unit's top module, unique among the platform's modules
  // (a device's: "<device>_fp8_rtl", a top-level module, whose name has no dots).
  std::string name = "fp8_rtl";
};

// Whether this build has the implementation (`rtl` needs DPUSIM_RTL).
bool fp8_impl_available(std::string_view impl);

// A backend for `impl`, or null with *error saying what is wrong with which value (an unknown
// name, `rtl` in a build without it, a clock out of range). `rtl` creates SystemC modules:
// call it during elaboration (rtl_backend.h says how the backend then finds simulated time).
std::unique_ptr<p4::rdma::Fp8Backend> make_fp8_backend(std::string_view impl, const Fp8ImplOptions& options,
                                                       std::string* error);

}  // namespace dpusim::rtl
