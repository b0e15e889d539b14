// The registered device families (family.h). A new family adds its registration here.
#include "device/family.h"
#include "vnet/vnet_family.h"

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

}  // namespace dpusim::platform
