// The application's command-line options (vnet_pci_dev.c's ARGP options; the DOCA guide's "Command-line parameters"), as a platform
// document gives them: under their long names without dashes, values as the command line (or
// DOCA ARGP's JSON mode) takes them: integers as JSON integers or decimal strings, strings as
// strings, flags as booleans. Each is validated with the application's rule and refused with
// its message.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace dpusim::vnet {

using Mac = std::array<uint8_t, 6>;

struct VnetOptions {
  std::string pci_addr = "0000:03:00.0";
  std::string ibdev_name;
  std::string mac_addr = "52:54:00:12:34:56";
  Mac mac{0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
  int mtu = 1500;
  int speed = 100000;  // Mb/s
  int duplex = 1;
  int max_queue_pairs = 8;
  int queue_size = 1024;
  int num_ep = 1;
  int hotplug_mode = 1;  // the application's default: hotplug
  int tlp_core = -1, worker_core = -1, mq_core = -1;
  std::string lu_mode = "none";
  int total_vfs = 0;  // --total-vfs: VFs per PF (SR-IOV), 0 = off
  // Optional feature flags (the DOCA guide's optional feature flags).
  bool guest_csum = false, guest_tso4 = false, guest_tso6 = false, guest_ecn = false, guest_ufo = false;
  bool host_ecn = false, host_ufo = false, mrg_rxbuf = false;

  bool static_mode() const { return hotplug_mode == 0; }
  // Features offered (vnet_pci_dev_core.h's default feature mask): the default set, the ones always added, the flags' ones.
  uint64_t device_features() const;
  // EP i's MAC: the base MAC with the last octet + i, no carry.
  Mac ep_mac(unsigned i) const;
  bool sriov() const { return total_vfs > 0; }
  // VF g's MAC (g = pf_index x total-vfs + slot): the base MAC's low 16 bits + num_ep + g.
  Mac vf_mac(unsigned g) const;
  // "num-ep=4 hotplug-mode=0 ..." for the log.
  std::string describe() const;
};

// The default advertised set (VIRTIO_NET_F_{CSUM, MTU, MAC, HOST_TSO4, HOST_TSO6, STATUS,
// SPEED_DUPLEX}) and the bits device initialisation always adds (VIRTIO_F_VERSION_1,
// VIRTIO_F_ACCESS_PLATFORM, VIRTIO_NET_F_CTRL_VQ, VIRTIO_NET_F_MQ): 0x8000000300431829.
uint64_t vnet_default_features();
uint64_t vnet_always_added_features();

// Parses the options object at JSON path `path`; throws platform::DocError with the path of the
// offending option and the application's message.
VnetOptions parse_vnet_options(const nlohmann::json& options, const std::string& path);

// "52:54:00:12:34:56" as the application parses it; returns the error message on failure.
bool parse_mac(const std::string& text, Mac& out, std::string* error);
std::string mac_str(const Mac& mac);

}  // namespace dpusim::vnet
