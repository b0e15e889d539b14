// The registered device families (device/family.h) and endpoint kinds
// (device/endpoint_kind.h). A new device adds its registration here.
#include "device/endpoint_kind.h"
#include "device/family.h"
#include "ionic/ionic_kind.h"
#include "rtl/rtl_dma_kind.h"
#include "testep/testep_kind.h"
#include "vnet/app/vnet_family.h"

namespace dpusim::platform {

const std::vector<DeviceFamily>& device_families() {
  static const std::vector<DeviceFamily> families = {vnet::vnet_family()};
  return families;
}

const DeviceFamily* find_family(const std::string& name) {
  for (const DeviceFamily& f : device_families())
    if (name == f.name) return &f;
  return nullptr;
}

const std::vector<EndpointKind>& endpoint_kinds() {
  static const std::vector<EndpointKind> kinds = {ionic::ionic_kind(), rtl::rtl_dma_kind(), testep::test_endpoint_kind()};
  return kinds;
}

const EndpointKind* find_endpoint_kind(const std::string& name) {
  for (const EndpointKind& k : endpoint_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace dpusim::platform
