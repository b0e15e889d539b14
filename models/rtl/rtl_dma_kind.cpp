// The rtl_dma slot kind (rtl_dma_kind.h). Compiled with DPUSIM_HAVE_RTL where the build has the
// verilated block; without it, the kind refuses itself with the reason.
#include "rtl/rtl_dma_kind.h"

#include <nlohmann/json.hpp>

#include "device/doc_error.h"
#include "device/doc_json.h"

#if DPUSIM_HAVE_RTL
#include "rtl/dma/rtl_dma_endpoint.h"
#endif

namespace dpusim::rtl {

namespace {

#if DPUSIM_HAVE_RTL
class RtlDmaInstance : public platform::EndpointInstance {
 public:
  RtlDmaInstance(pcie::SimContext& ctx, const std::string& name) : ep_(new dma::RtlDmaEndpoint(name.c_str(), ctx)) {}
  pcie::EndpointBase& endpoint() override { return *ep_; }
  void trace(sc_core::sc_trace_file* vcd) override { ep_->trace(vcd); }
  // Verilator's trace of the whole block beside the run's VCD: "waves.ep0.vcd" by "waves.vcd".
  void trace_beside(const std::string& vcd_path) override {
    ep_->open_rtl_trace(vcd_path + "." + ep_->basename() + ".vcd");
  }
  void shutdown(const std::function<void(const std::function<bool()>&)>&) override { ep_->close_rtl_trace(); }

 private:
  dma::RtlDmaEndpoint* ep_;  // a SystemC module: it lives until the process exits
};

class RtlDmaConfig : public platform::EndpointConfig {
 public:
  std::unique_ptr<platform::EndpointInstance> build(pcie::SimContext& ctx, const std::string& name) const override {
    return std::make_unique<RtlDmaInstance>(ctx, name);
  }
  std::string describe() const override { return "rtl_dma"; }
  const char* lt_refusal() const override { return TlpStreamEndpoint::kNoLtMode; }
};
#endif

}  // namespace

platform::EndpointKind rtl_dma_kind() {
  return platform::EndpointKind{
      "rtl_dma", "a DMA copy engine in SystemVerilog, verilated, behind a hard IP core (docs/cosim.md)",
      [](const nlohmann::json& slot, const std::string& path,
         const platform::DocContext&) -> std::shared_ptr<const platform::EndpointConfig> {
#if DPUSIM_HAVE_RTL
        platform::only_keys(slot, path, {"kind"});
        return std::make_shared<RtlDmaConfig>();
#else
        throw platform::DocError(path + ".kind",
                                 "endpoint kind 'rtl_dma' needs the RTL co-simulation, which this build lacks: it was "
                                 "configured with DPUSIM_RTL=OFF (verilator missing or switched off); install verilator "
                                 "(./dpusim setup) and reconfigure with -DDPUSIM_RTL=ON");
#endif
      }};
}

}  // namespace dpusim::rtl
