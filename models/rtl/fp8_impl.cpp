// The fp8 unit's implementations by name (fp8_impl.h). Compiled with DPUSIM_HAVE_RTL where the
// build has the verilated unit; without it, `rtl` is refused with the reason.
#include "rtl/fp8_impl.h"

#include <stdexcept>

#if DPUSIM_HAVE_RTL
#include <cstdlib>

#include "rtl/fp8/fp8_timing.h"
#include "rtl/fp8/rtl_backend.h"
#include "tlm/timing.h"
#endif

namespace dpusim::rtl {

bool fp8_impl_available(std::string_view impl) {
  if (impl == kFp8ImplCpp) return true;
  return impl == kFp8ImplRtl && DPUSIM_HAVE_RTL;
}

std::unique_ptr<p4::rdma::Fp8Backend> make_fp8_backend(std::string_view impl, const Fp8ImplOptions& options,
                                                       std::string* error) {
  const std::string quoted = "'" + std::string(impl) + "'";
  if (impl == kFp8ImplCpp) {
    if (options.clock_ps != 0) {
      *error = "fp8-impl cpp has no clock (the C++ codec takes no simulated time); a clock period applies to fp8-impl rtl";
      return nullptr;
    }
    return std::make_unique<p4::rdma::CodecFp8Backend>();
  }
  if (impl != kFp8ImplRtl) {
    *error = "fp8-impl " + quoted + " is not an implementation; the implementations are cpp (the C++ codec) and rtl (the verilated RTL unit)";
    return nullptr;
  }
#if DPUSIM_HAVE_RTL
  pcie::TimingProfile profile;
  std::uint64_t clock_ps = (options.timing ? *options.timing : profile).get(fp8::timing::clock_ps);
  if (options.clock_ps != 0) {
    try {
      profile.set(fp8::timing::clock_ps.name(), options.clock_ps);
    } catch (const std::invalid_argument& e) {
      *error = e.what();
      return nullptr;
    }
    clock_ps = options.clock_ps;
  }
  // SystemC prints its banner on stdout when its kernel is first touched; a tool's stdout is
  // its own output.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return std::make_unique<RtlFp8Backend>(clock_ps, options.name);
#else
  *error = "fp8-impl rtl needs the RTL co-simulation, which this build lacks: it was configured with DPUSIM_RTL=OFF "
           "(verilator missing or switched off); install verilator (./dpusim setup) and reconfigure with -DDPUSIM_RTL=ON";
  return nullptr;
#endif
}

}  // namespace dpusim::rtl
