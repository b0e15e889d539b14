// Harness: the user-mode Linux bridge's message parsers (models/host/linux_wire.h), which take
// what a kernel sends on its vhost-user and time-travel sockets and in virt-pci's command ring.
// The first byte picks the parser; any bytes either parse into a message whose fields respect
// the documented limits, or are refused with a message; nothing crashes.
// link: dpusim_host
#include <cstdint>
#include <cstdlib>
#include <string>

#include "host/linux_wire.h"

extern "C" int sc_main(int, char**) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace uml = dpusim::host::uml;
  if (size == 0) return 0;
  const uint8_t which = data[0] % 3;
  ++data;
  --size;
  std::string error;
  bool ok = false;
  if (which == 0) {
    uml::VhostUserMsg m;
    ok = uml::parse_vhost_user_header(data, size, &m.hdr, &error);
    if (ok) {
      if (m.hdr.size > uml::kVhostUserMaxPayload) std::abort();
      const size_t n = size - uml::kVhostUserHeaderBytes;
      ok = uml::parse_vhost_user_payload(&m, data + uml::kVhostUserHeaderBytes, n, &error);
      if (ok && m.regions.size() > uml::kMaxMemRegions) std::abort();
      if (ok && size_t(m.cfg_size) + 12 > n && (m.hdr.request == uml::VHOST_USER_GET_CONFIG ||
                                                m.hdr.request == uml::VHOST_USER_SET_CONFIG))
        std::abort();
    }
  } else if (which == 1) {
    uml::PcidevMsg m;
    ok = uml::parse_pcidev_msg(data, size, &m, &error);
    if (ok && (m.size == 0 || m.size > uml::kPcidevMaxSize || m.op < 1 || m.op > 5)) std::abort();
    if (ok && m.op == uml::VIRTIO_PCIDEV_OP_MMIO_WRITE && m.data.size() != m.size) std::abort();
  } else {
    uml::TimetravelMsg m;
    ok = uml::parse_timetravel(data, size, &m, &error);
    if (ok && uml::timetravel_bytes(m) != std::vector<uint8_t>(data, data + size)) std::abort();
  }
  if (!ok && error.empty()) std::abort();  // a refusal must say why
  return 0;
}
