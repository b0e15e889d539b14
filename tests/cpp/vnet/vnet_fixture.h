// The bench of the virtio-net application's unit tests: the vnet family's device side
// (VnetApp with N endpoints, their links and firmware) below the host link, the root complex
// above it with a tap on every TLP that reaches the host (support/host_side.h), the event log
// in memory (support/event_record.h), and a queue to act at chosen simulated times.
//
// Each test builds one bench and runs the SystemC kernel itself (one test per process).
// Components are driven through their own interfaces (the serving process's: app.primary().status(),
// .pe1(), .slots()...) or by the host's TLPs; `bring_up` programs a device as Linux's virtio-net probe does.
#pragma once

#include <gtest/gtest.h>

#include <systemc>

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../support/event_record.h"
#include "../support/host_side.h"
#include "../support/kernel.h"
#include "tlm/pci_regs.h"
#include "tlm/timed_queue.h"
#include "vnet/switch/bridge_image.h"
#include "vnet/virtio/ep_image.h"
#include "vnet/virtio/virtio_spec.h"
#include "vnet/app/vnet_family.h"
#include "vnet/virtio/vnet_layout.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::testing {

inline constexpr uint64_t kUs = 1000000ull, kMs = 1000000000ull, kSec = 1000000000000ull;
// The features Linux's virtio-net accepts of the default offer, low word (CSUM, MTU, MAC,
// HOST_TSO4/6, STATUS, CTRL_VQ, MQ) and high word (VERSION_1, ACCESS_PLATFORM).
inline constexpr uint32_t kLinuxFeaturesLo = 0x00431829, kLinuxFeaturesHi = 0x00000003;

class VnetBench {
 public:
  VnetBench(unsigned num_ep, int hotplug_mode, unsigned max_qps = 8, const vnet::AcgSpec& acg = {})
      : inst_(std::make_unique<vnet::VnetInstance>(ctx, options(num_ep, hotplug_mode, max_qps), acg)),
        app(inst_->app()),
        host(ctx, inst_->upstream_port()) {}

  pcie::SimContext ctx{1};
  EventRecord events{ctx.log};

 private:
  std::unique_ptr<vnet::VnetInstance> inst_;

 public:
  vnet::VnetApp& app;
  HostSide host;
  pcie::TimedQueue drive{"drive"};

  static uint64_t now() { return pcie::SimContext::now_ps(); }
  uint64_t param(const pcie::TimingParam& p) const { return ctx.timing.get(p); }
  void run_for(uint64_t ps) { dpusim::testing::run_for(ctx, ps); }
  void run_to(uint64_t abs_ps) { run_for(abs_ps - now()); }
  // Runs until nothing is left to happen.
  void settle() { dpusim::testing::settle(ctx); }
  // Calls `fn` at absolute simulated time `abs_ps` (not before now).
  void at(uint64_t abs_ps, std::function<void()> fn) { drive.at(sc_core::sc_time::from_value(abs_ps - now()), std::move(fn)); }

  vnet::Controller& ctl(unsigned i) { return app.primary().state().controllers[i]; }
  vnet::VirtioPciDevice& dev(unsigned i) { return *app.primary().state().devices[i]; }
  vnet::VnetEndpoint& ep(unsigned i) { return inst_->endpoint(i); }
  pcie::Link& dsp_link(unsigned i) { return *app.primary().state().links[i]; }

  // Where enumeration puts things: USP 00:00.0, DSP i at 01:i.0 with bus 2+i below it, EP i at
  // (2+i):00.0 with its 64-bit BAR0 at bar(i).
  static uint16_t dsp_bdf(unsigned i) { return uint16_t(0x0100 | i << 3); }
  static uint16_t ep_bdf(unsigned i) { return uint16_t((2 + i) << 8); }
  static uint64_t bar(unsigned i) { return 0x4000000000ull + uint64_t(i) * 0x100000; }

  // Bus numbers as Linux assigns them, and each present endpoint's BAR0 with Memory Space and
  // Bus Master enabled, by config writes through PE1; runs until they are done.
  void enumerate() {
    const unsigned n = app.num_ep();
    std::vector<Op> ops{host.cfg_write(0x0000, 0x18, 4, (1 + n) << 16 | 1 << 8)};
    for (unsigned i = 0; i < n; ++i) ops.push_back(host.cfg_write(dsp_bdf(i), 0x18, 4, (2 + i) << 16 | (2 + i) << 8 | 1));
    for (unsigned i = 0; i < n; ++i) {
      if (!ctl(i).device_present) continue;
      ops.push_back(host.cfg_write(ep_bdf(i), 0x10, 4, uint32_t(bar(i))));
      ops.push_back(host.cfg_write(ep_bdf(i), 0x14, 4, uint32_t(bar(i) >> 32)));
      ops.push_back(host.cfg_write(ep_bdf(i), 0x04, 2, 0x0006));
    }
    run_for(kMs);
    for (const Op& op : ops) ASSERT_TRUE(op->done && op->result.outcome == pcie::Outcome::SC);
  }

  // A downstream port's Slot Control written by the host (bit 10 is the power controller: 1 off).
  Op slot_control(unsigned i, uint16_t value) {
    return host.cfg_write(dsp_bdf(i), vnet::TLP_BRIDGE_EXP_CAP + pci::PCI_EXP_SLTCTL, 2, value);
  }
  // Slot Control and Slot Status (high half) as the host reads them; run the kernel to get it.
  Op slot_registers(unsigned i) { return host.cfg_read(dsp_bdf(i), vnet::TLP_BRIDGE_EXP_CAP + pci::PCI_EXP_SLTCTL, 4); }
  // The port's MSI capability programmed and enabled by the host (as pcie_portdrv's MSI set-up).
  void enable_dsp_msi(unsigned i, uint64_t address, uint16_t data) {
    const uint16_t m = vnet::TLP_BRIDGE_MSI_CAP;
    host.cfg_write(dsp_bdf(i), m + pci::PCI_MSI_ADDRESS_LO, 4, uint32_t(address));
    host.cfg_write(dsp_bdf(i), m + pci::PCI_MSI_ADDRESS_HI, 4, uint32_t(address >> 32));
    host.cfg_write(dsp_bdf(i), m + pci::PCI_MSI_DATA_64, 2, data);
    host.cfg_write(dsp_bdf(i), m + pci::PCI_MSI_FLAGS, 2, vnet::TLP_DSP_MSI_FLAGS | pci::PCI_MSI_FLAGS_ENABLE);
    run_for(kMs);
  }

  // The outcome event of stdin command `id` ({"id", "line", "outcome", "lines"}), or null.
  Json command_result(uint64_t id) {
    const auto found = events.find("command", {{"id", id}});
    return found.empty() ? Json() : found.front();
  }

  // enumerate(), then Linux's probe of each endpoint in `eps`, run until nothing is left to do.
  void probe(std::initializer_list<unsigned> eps = {0}) {
    enumerate();
    for (unsigned i : eps) bring_up(i);
    settle();
  }
  // MSI-X enabled on endpoint i, table entry `vector` programmed with `address` and `data` and
  // unmasked (the table is firmware's: the writes pass PE1 by); run until done.
  void enable_msix(unsigned i, unsigned vector, uint64_t address, uint32_t data) {
    host.cfg_write(ep_bdf(i), vnet::VNET_EP_MSIX_CAP + pci::PCI_MSIX_FLAGS, 2, pci::PCI_MSIX_FLAGS_ENABLE);
    const uint64_t entry = bar(i) + vnet::VNET_BAR0_MSIX_TABLE + 16 * vector;
    host.mem_write32(entry, uint32_t(address));
    host.mem_write32(entry + 4, uint32_t(address >> 32));
    host.mem_write32(entry + 8, data);
    host.mem_write32(entry + 12, 0);
    run_for(kMs);
  }

  // A common-config register write of `width` bytes at `off`, as PE1 hands a DW to the status
  // machine.
  void common(unsigned i, uint16_t off, unsigned width, uint32_t value) {
    const unsigned lane = off & 3u;
    const uint8_t be = uint8_t(((1u << width) - 1) << lane);
    app.primary().status().common_write(i, uint16_t(off & ~3u), value << (8 * lane), be);
  }
  void status(unsigned i, uint8_t s) { common(i, virtio::VIRTIO_PCI_COMMON_STATUS, 1, s); }
  // A driver's reset (status 0), and the main thread run until it has finished it, as PE1 does
  // before it serves the next TLP. Not from inside the simulation (it runs the kernel).
  void reset(unsigned i) {
    status(i, 0);
    while (!app.primary().state().main_thread.idle()) run_for(kUs);
  }

  // Linux's virtio-net probe of endpoint i, every register write at once after the reset:
  // ACKNOWLEDGE, DRIVER, the features (low word, then high word), FEATURES_OK, the config
  // vector 0, every queue (all queue pairs and the control queue with MQ among the features;
  // queue pair 0 alone without) with rings in host memory and vectors q+1, DRIVER_OK. The
  // worker's items run when the kernel does.
  void bring_up(unsigned i, uint32_t features_lo = kLinuxFeaturesLo) {
    using namespace virtio;
    reset(i);
    status(i, VIRTIO_CONFIG_S_ACKNOWLEDGE);
    status(i, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
    common(i, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
    common(i, VIRTIO_PCI_COMMON_GF, 4, features_lo);
    common(i, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
    common(i, VIRTIO_PCI_COMMON_GF, 4, kLinuxFeaturesHi);
    status(i, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK);
    common(i, VIRTIO_PCI_COMMON_MSIX, 2, 0);
    const bool mq = (features_lo & bit(VIRTIO_NET_F_CTRL_VQ)) && (features_lo & bit(VIRTIO_NET_F_MQ));
    for (unsigned q = 0; q < (mq ? cvq(i) + 1 : 2); ++q) setup_queue(i, q);
    status(i, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK |
                  VIRTIO_CONFIG_S_DRIVER_OK);
  }
  unsigned cvq(unsigned i) { return 2 * dev(i).max_queue_pairs(); }

  // Queue q of endpoint i: size 256, vector q+1, its three rings allocated in host memory.
  void setup_queue(unsigned i, unsigned q) {
    using namespace virtio;
    Ring& r = rings_[{i, q}];
    r.desc = host.rc.memory.alloc(16 * kQueueSize, 16);
    r.avail = host.rc.memory.alloc(6 + 2 * kQueueSize, 2);
    r.used = host.rc.memory.alloc(6 + 8 * kQueueSize, 4);
    common(i, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
    common(i, VIRTIO_PCI_COMMON_Q_SIZE, 2, kQueueSize);
    common(i, VIRTIO_PCI_COMMON_Q_MSIX, 2, q + 1);
    for (auto [off, addr] : {std::pair{VIRTIO_PCI_COMMON_Q_DESCLO, r.desc}, std::pair{VIRTIO_PCI_COMMON_Q_AVAILLO, r.avail},
                             std::pair{VIRTIO_PCI_COMMON_Q_USEDLO, r.used}}) {
      common(i, off, 4, uint32_t(addr));
      common(i, uint16_t(off + 4), 4, uint32_t(addr >> 32));
    }
    common(i, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
  }

  // A control request on endpoint i's control queue, as virtnet_send_command() puts it: the
  // class/command header, the command data, and a one-byte ack buffer the device writes; the
  // doorbell rung by the host. Returns the ack's address (the driver initialises it to 0xFF).
  uint64_t send_ctrl(unsigned i, uint8_t cls, uint8_t cmd, const std::vector<uint8_t>& data) {
    using namespace virtio;
    const unsigned q = cvq(i);
    Ring& r = rings_.at({i, q});
    host::HostMemory& mem = host.rc.memory;
    const uint64_t hdr = mem.alloc(2, 8), payload = data.empty() ? 0 : mem.alloc(data.size(), 8), ack = mem.alloc(1, 8);
    const uint8_t hdr_bytes[2] = {cls, cmd};
    mem.write(hdr, hdr_bytes, 2);
    if (payload) mem.write(payload, data.data(), data.size());
    const uint8_t pending = 0xff;
    mem.write(ack, &pending, 1);
    std::vector<std::pair<uint64_t, uint32_t>> bufs{{hdr, 2}};
    if (payload) bufs.push_back({payload, uint32_t(data.size())});
    bufs.push_back({ack, 1});
    const uint16_t head = r.next_desc;
    for (size_t k = 0; k < bufs.size(); ++k) {
      uint8_t d[16];
      const bool last = k + 1 == bufs.size();
      put_le64(d, bufs[k].first);
      put_le32(d + 8, bufs[k].second);
      put_le16(d + 12, uint16_t((last ? VRING_DESC_F_WRITE : VRING_DESC_F_NEXT)));
      put_le16(d + 14, uint16_t(r.next_desc + 1));
      mem.write(r.desc + 16 * r.next_desc, d, 16);
      ++r.next_desc;
    }
    uint8_t entry[2];
    put_le16(entry, head);
    mem.write(r.avail + 4 + 2 * (r.avail_idx % kQueueSize), entry, 2);
    ++r.avail_idx;
    put_le16(entry, r.avail_idx);
    mem.write(r.avail + 2, entry, 2);
    host.mem_write(bar(i) + vnet::VNET_BAR0_DOORBELL + 8 * q, {uint8_t(q), uint8_t(q >> 8)});
    return ack;
  }
  // The line a queue's set_conf logs, with the registers the driver gave queue q.
  std::string vq_configured_line(unsigned i, unsigned q) {
    const vnet::VqShadow& sh = dev(i).shadow(q);
    char line[160];
    std::snprintf(line, sizeof line, "VQ%u configured: size=%u, msix=%u, desc=0x%llx, driver=0x%llx, device=0x%llx", q,
                  unsigned(sh.size), unsigned(sh.msix), (unsigned long long)sh.desc, (unsigned long long)sh.driver,
                  (unsigned long long)sh.device);
    return line;
  }
  uint8_t host_byte(uint64_t addr) {
    uint8_t b = 0;
    host.rc.memory.read(addr, &b, 1);
    return b;
  }

 private:
  static constexpr unsigned kQueueSize = 256;
  struct Ring {
    uint64_t desc = 0, avail = 0, used = 0;
    uint16_t avail_idx = 0, next_desc = 0;
  };
  static vnet::VnetOptions options(unsigned num_ep, int hotplug_mode, unsigned max_qps) {
    vnet::VnetOptions o;
    o.num_ep = int(num_ep);
    o.hotplug_mode = hotplug_mode;
    o.max_queue_pairs = int(max_qps);
    return o;
  }
  std::map<std::pair<unsigned, unsigned>, Ring> rings_;
};

}  // namespace dpusim::testing
