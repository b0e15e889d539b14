#include "vnet/app/vnet_options.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <set>

#include "device/doc_error.h"
#include "vnet/sriov/sriov_limits.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/virtio/vnet_layout.h"

namespace dpusim::vnet {

using nlohmann::json;
using platform::DocError;
using namespace dpusim::virtio;

namespace {

// DOCA's sizes (doca_dev.h): the buffers include the terminating NUL.
constexpr int DOCA_DEVINFO_PCI_ADDR_SIZE = 13;
constexpr int DOCA_DEVINFO_IBDEV_NAME_SIZE = 64;
constexpr size_t MAC_ADDR_STR_MAX = 17;
constexpr int MAX_CORE_INDEX = 1023;

std::string fmt(const char* f, long long a, long long b = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

// An integer option as the command line takes it: a JSON integer or a decimal string.
int int_option(const json& v, const std::string& path) {
  if (v.is_number_integer()) {
    const long long x = v.get<long long>();
    if (x < INT32_MIN || x > INT32_MAX) throw DocError(path, "integer " + v.dump() + " outside the C int range");
    return int(x);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    size_t pos = 0;
    long long x = 0;
    try {
      x = std::stoll(s, &pos, 10);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos == 0 || pos != s.size() || x < INT32_MIN || x > INT32_MAX)
      throw DocError(path, "'" + s + "' is not an integer");
    return int(x);
  }
  throw DocError(path, "must be an integer (a JSON integer or a decimal string), not " + std::string(v.type_name()));
}

std::string string_option(const json& v, const std::string& path) {
  if (!v.is_string()) throw DocError(path, "must be a string, not " + std::string(v.type_name()));
  return v.get<std::string>();
}

bool flag_option(const json& v, const std::string& path) {
  if (!v.is_boolean()) throw DocError(path, "is a flag: true or false, not " + v.dump());
  return v.get<bool>();
}

void check_core(int core, const std::string& path, const char* which) {
  if (core < -1 || core > MAX_CORE_INDEX)
    throw DocError(path, "Invalid " + std::string(which) + " core index: " + std::to_string(core) +
                             ". Use -1 for auto or 0.." + std::to_string(MAX_CORE_INDEX));
}

}  // namespace

uint64_t vnet_default_features() {
  return bit(VIRTIO_NET_F_MAC) | bit(VIRTIO_NET_F_STATUS) | bit(VIRTIO_NET_F_CSUM) | bit(VIRTIO_NET_F_MTU) |
         bit(VIRTIO_NET_F_SPEED_DUPLEX) | bit(VIRTIO_NET_F_HOST_TSO4) | bit(VIRTIO_NET_F_HOST_TSO6);
}

uint64_t vnet_always_added_features() {
  return bit(VIRTIO_F_VERSION_1) | bit(VIRTIO_F_ACCESS_PLATFORM) | bit(VIRTIO_NET_F_CTRL_VQ) | bit(VIRTIO_NET_F_MQ);
}

uint64_t VnetOptions::device_features() const {
  uint64_t f = vnet_default_features() | vnet_always_added_features();
  const std::pair<bool, unsigned> flags[] = {
      {guest_csum, VIRTIO_NET_F_GUEST_CSUM}, {guest_tso4, VIRTIO_NET_F_GUEST_TSO4},
      {guest_tso6, VIRTIO_NET_F_GUEST_TSO6}, {guest_ecn, VIRTIO_NET_F_GUEST_ECN},
      {guest_ufo, VIRTIO_NET_F_GUEST_UFO},   {host_ecn, VIRTIO_NET_F_HOST_ECN},
      {host_ufo, VIRTIO_NET_F_HOST_UFO},     {mrg_rxbuf, VIRTIO_NET_F_MRG_RXBUF},
  };
  for (const auto& [on, b] : flags)
    if (on) f |= bit(b);
  return f;
}

Mac VnetOptions::ep_mac(unsigned i) const {
  Mac m = mac;
  m[5] = uint8_t(m[5] + i);
  return m;
}

Mac VnetOptions::vf_mac(unsigned g) const {
  Mac m = mac;
  const unsigned low16 = (unsigned(m[4]) << 8 | m[5]) + unsigned(num_ep) + g;  // checked at start
  m[4] = uint8_t(low16 >> 8);
  m[5] = uint8_t(low16);
  return m;
}

std::string mac_str(const Mac& m) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return buf;
}

bool parse_mac(const std::string& text, Mac& out, std::string* error) {
  unsigned v[6];
  char tail;
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6) {
    *error = "Invalid MAC address format: " + text;
    return false;
  }
  for (unsigned i = 0; i < 6; ++i) {
    if (v[i] > 255) {
      *error = "Invalid MAC address byte value: " + std::to_string(v[i]);
      return false;
    }
    out[i] = uint8_t(v[i]);
  }
  return true;
}

std::string VnetOptions::describe() const {
  std::string s = "vnet num-ep=" + std::to_string(num_ep) + " hotplug-mode=" + std::to_string(hotplug_mode) +
                  " max-queue-pairs=" + std::to_string(max_queue_pairs) + " queue-size=" + std::to_string(queue_size) +
                  " mac-addr=" + mac_str(mac) + " mtu=" + std::to_string(mtu) + " speed=" + std::to_string(speed);
  if (mrg_rxbuf) s += " mrg-rxbuf";
  if (lu_mode != "none") s += " lu-mode=" + lu_mode;
  if (total_vfs) s += " total-vfs=" + std::to_string(total_vfs);
  return s;
}

VnetOptions parse_vnet_options(const json& options, const std::string& path) {
  VnetOptions o;
  std::map<std::string, bool*> flags = {
      {"guest-csum", &o.guest_csum}, {"guest-tso4", &o.guest_tso4}, {"guest-tso6", &o.guest_tso6},
      {"guest-ecn", &o.guest_ecn},   {"guest-ufo", &o.guest_ufo},   {"host-ecn", &o.host_ecn},
      {"host-ufo", &o.host_ufo},     {"mrg-rxbuf", &o.mrg_rxbuf},
  };
  const std::map<std::string, int*> ints = {
      {"mtu", &o.mtu},           {"speed", &o.speed},         {"duplex", &o.duplex},
      {"max-queue-pairs", &o.max_queue_pairs}, {"queue-size", &o.queue_size}, {"num-ep", &o.num_ep},
      {"hotplug-mode", &o.hotplug_mode}, {"tlp-core", &o.tlp_core}, {"worker-core", &o.worker_core},
      {"mq-core", &o.mq_core},   {"total-vfs", &o.total_vfs},
  };
  const std::map<std::string, std::string*> strings = {
      {"pci-addr", &o.pci_addr}, {"ibdev-name", &o.ibdev_name}, {"mac-addr", &o.mac_addr}, {"lu-mode", &o.lu_mode}};
  for (auto it = options.begin(); it != options.end(); ++it) {
    const std::string p = path + "." + it.key();
    if (auto f = flags.find(it.key()); f != flags.end()) {
      *f->second = flag_option(it.value(), p);
    } else if (auto i = ints.find(it.key()); i != ints.end()) {
      *i->second = int_option(it.value(), p);
    } else if (auto s = strings.find(it.key()); s != strings.end()) {
      *s->second = string_option(it.value(), p);
    } else {
      std::set<std::string> known;
      for (const auto& m : flags) known.insert(m.first);
      for (const auto& m : ints) known.insert(m.first);
      for (const auto& m : strings) known.insert(m.first);
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw DocError(p, "unknown option of the vnet_pci_dev application (known: " + list + ")");
    }
  }
  auto at = [&](const char* key) { return path + "." + key; };
  // The application's ARGP callbacks, in its registration order (vnet_pci_dev.c).
  if (o.pci_addr.size() >= size_t(DOCA_DEVINFO_PCI_ADDR_SIZE))
    throw DocError(at("pci-addr"), fmt("Entered device PCI address exceeding the maximum size of %d",
                                       DOCA_DEVINFO_PCI_ADDR_SIZE - 1));
  if (o.ibdev_name.size() >= size_t(DOCA_DEVINFO_IBDEV_NAME_SIZE))
    throw DocError(at("ibdev-name"), fmt("IB device name exceeding the maximum size of %d",
                                         DOCA_DEVINFO_IBDEV_NAME_SIZE - 1));
  if (o.mac_addr.size() > MAC_ADDR_STR_MAX)
    throw DocError(at("mac-addr"), fmt("Entered MAC address exceeding the maximum size of %lld", MAC_ADDR_STR_MAX));
  if (o.mtu < 68 || o.mtu > 9000) throw DocError(at("mtu"), "MTU must be between 68 and 9000");
  if (o.speed <= 0) throw DocError(at("speed"), "Speed must be a positive value");
  if (o.duplex != 0 && o.duplex != 1) throw DocError(at("duplex"), "Duplex must be 0 (half) or 1 (full)");
  if (o.max_queue_pairs < 1 || o.max_queue_pairs > int(VNET_MAX_QUEUE_PAIRS))
    throw DocError(at("max-queue-pairs"), fmt("Maximum queue pairs must be between 1 and %lld", VNET_MAX_QUEUE_PAIRS));
  if (o.queue_size < int(VNET_MIN_QUEUE_SIZE) || o.queue_size > int(VNET_MAX_QUEUE_SIZE))
    throw DocError(at("queue-size"), fmt("Queue size must be between %lld and %lld", VNET_MIN_QUEUE_SIZE, VNET_MAX_QUEUE_SIZE));
  if (o.queue_size & (o.queue_size - 1))
    throw DocError(at("queue-size"), "Queue size must be a power of 2 (e.g., 256, 512, 1024)");
  if (o.num_ep < 1 || o.num_ep > int(MAX_NUM_EP))
    throw DocError(at("num-ep"), fmt("Invalid num_ep value: %lld. Must be between 1 and MAX_NUM_EP(%lld)", o.num_ep, MAX_NUM_EP));
  if (o.hotplug_mode != 0 && o.hotplug_mode != 1)
    throw DocError(at("hotplug-mode"),
                   fmt("Invalid hotplug mode value: %lld. Must be 0 (static) or 1 (hotplug)", o.hotplug_mode));
  check_core(o.tlp_core, at("tlp-core"), "TLP");
  check_core(o.worker_core, at("worker-core"), "worker");
  check_core(o.mq_core, at("mq-core"), "MQ");
  if (o.lu_mode != "none" && o.lu_mode != "active" && o.lu_mode != "standby")
    throw DocError(at("lu-mode"), "Invalid --lu-mode value: '" + o.lu_mode + "' (expected: none, active, standby)");
  // Cross-checks after parsing.
  if (o.tlp_core >= 0 && o.tlp_core == o.worker_core)
    throw DocError(at("worker-core"), fmt("tlp-core (%lld) must not equal worker-core (%lld)", o.tlp_core, o.worker_core));
  if (o.mq_core >= 0 && o.mq_core == o.tlp_core)
    throw DocError(at("mq-core"), fmt("mq-core (%lld) must not equal tlp-core (%lld)", o.mq_core, o.tlp_core));
  if (options.contains("total-vfs")) {
    if (o.lu_mode != "none") throw DocError(at("total-vfs"), VNET_SRIOV_LU_EXCLUSIVE);
  }
  // Run-time checks of the application's startup, which abort it.
  std::string error;
  if (!parse_mac(o.mac_addr, o.mac, &error))
    throw DocError(at("mac-addr"), error + "; Failed to parse MAC address: " + o.mac_addr);
  if (unsigned(o.mac[5]) + unsigned(o.num_ep - 1) > 255) {
    const unsigned bad = 256 - o.mac[5];
    char buf[160];
    std::snprintf(buf, sizeof buf, "MAC address overflow for device %u (base mac[5]=%u + index=%u > 255)", bad,
                  unsigned(o.mac[5]), bad);
    throw DocError(at("mac-addr"), std::string(buf) + "; Rolling back " + std::to_string(bad) +
                                       " already-initialized device(s)");
  }
  if (options.contains("total-vfs")) {
    SriovRequest r;
    r.total_vfs = o.total_vfs;
    r.num_ep = unsigned(o.num_ep);
    r.max_queue_pairs = unsigned(o.max_queue_pairs);
    r.mac_low16 = unsigned(o.mac[4]) << 8 | o.mac[5];
    if (auto error = sriov_validate_caps(r)) throw DocError(at("total-vfs"), *error);
  }
  return o;
}

}  // namespace dpusim::vnet
