#include "testep/testep_kind.h"

#include <nlohmann/json.hpp>

#include "device/doc_json.h"
#include "testep/test_endpoint.h"

namespace dpusim::testep {

namespace {

class TestInstance : public platform::EndpointInstance {
 public:
  TestInstance(pcie::SimContext& ctx, const std::string& name) : ep_(new TestEndpoint(name.c_str(), ctx)) {}
  pcie::EndpointBase& endpoint() override { return *ep_; }

 private:
  TestEndpoint* ep_;  // a SystemC module: it lives until the process exits
};

class TestConfig : public platform::EndpointConfig {
 public:
  std::unique_ptr<platform::EndpointInstance> build(pcie::SimContext& ctx, const std::string& name) const override {
    return std::make_unique<TestInstance>(ctx, name);
  }
  std::string describe() const override { return "test"; }
};

}  // namespace

platform::EndpointKind test_endpoint_kind() {
  return platform::EndpointKind{
      "test", "the test endpoint: registers, MSI-X, a DMA engine (docs/architecture.md)",
      [](const nlohmann::json& slot, const std::string& path,
         const platform::DocContext&) -> std::shared_ptr<const platform::EndpointConfig> {
        platform::only_keys(slot, path, {"kind"});
        return std::make_shared<TestConfig>();
      }};
}

}  // namespace dpusim::testep
