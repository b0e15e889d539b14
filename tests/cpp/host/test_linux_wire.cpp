// The user-mode Linux bridge's device side without a kernel (models/host/linux_wire.h,
// linux_vring.h, linux_device.h): the parsers refuse what the kernel never sends with a reason,
// and a LinuxDevice driven with the vhost-user messages virtio_uml sends (a memory table from a
// memfd, two rings, in-band kicks) answers config and BAR accesses as docs/linux.md says.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "host/host_memory.h"
#include "host/linux_device.h"

namespace uml = dpusim::host::uml;

namespace {

std::vector<uint8_t> pcidev(uint8_t op, uint8_t bar, uint32_t size, uint64_t addr, std::vector<uint8_t> data = {}) {
  std::vector<uint8_t> m(uml::kPcidevHeaderBytes, 0);
  m[0] = op;
  m[1] = bar;
  uml::put_le32(m.data() + 4, size);
  uml::put_le64(m.data() + 8, addr);
  m.insert(m.end(), data.begin(), data.end());
  return m;
}

std::vector<uint8_t> vhost(uint32_t request, std::vector<uint8_t> payload, bool need_reply = true) {
  std::vector<uint8_t> m(uml::kVhostUserHeaderBytes);
  uml::put_le32(m.data(), request);
  uml::put_le32(m.data() + 4, uml::VHOST_USER_VERSION | (need_reply ? uml::VHOST_USER_FLAG_NEED_REPLY : 0));
  uml::put_le32(m.data() + 8, uint32_t(payload.size()));
  m.insert(m.end(), payload.begin(), payload.end());
  return m;
}

std::vector<uint8_t> words(std::initializer_list<uint64_t> v, size_t width) {
  std::vector<uint8_t> out(v.size() * width);
  size_t i = 0;
  for (uint64_t x : v) {
    if (width == 4) uml::put_le32(out.data() + 4 * i++, uint32_t(x));
    else uml::put_le64(out.data() + 8 * i++, x);
  }
  return out;
}

}  // namespace

TEST(LinuxWire, ParsersRefuseWhatTheKernelNeverSendsNamingTheField) {
  std::string error;
  uml::PcidevMsg m;
  auto bad = pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 3, 0);
  EXPECT_FALSE(uml::parse_pcidev_msg(bad.data(), bad.size(), &m, &error));
  EXPECT_EQ(error, "virt-pci op 1: config access of 3 bytes (1, 2, 4 or 8)");
  bad = pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_READ, 6, 4, 0);
  EXPECT_FALSE(uml::parse_pcidev_msg(bad.data(), bad.size(), &m, &error));
  EXPECT_EQ(error, "virt-pci op 3: BAR 6 (0..5)");
  bad = pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_WRITE, 0, 4, 0, {1, 2});
  EXPECT_FALSE(uml::parse_pcidev_msg(bad.data(), bad.size(), &m, &error));
  EXPECT_EQ(error, "virt-pci op 4: 2 data bytes, 4 expected");
  bad = pcidev(uml::VIRTIO_PCIDEV_OP_MSI, 0, 4, 0, {0, 0, 0, 0});
  EXPECT_FALSE(uml::parse_pcidev_msg(bad.data(), bad.size(), &m, &error));
  EXPECT_EQ(error, "virt-pci op 7: not a request the kernel sends to a device (1..5)");
  EXPECT_FALSE(uml::parse_pcidev_msg(bad.data(), 15, &m, &error));
  EXPECT_EQ(error, "virt-pci message: 15 bytes, at least 16 expected");

  uml::VhostUserHeader h;
  auto v = vhost(uml::VHOST_USER_GET_FEATURES, {});
  v[4] = 2;  // version 2
  EXPECT_FALSE(uml::parse_vhost_user_header(v.data(), v.size(), &h, &error));
  EXPECT_EQ(error, "vhost-user header: version 2, only 1 is defined");
  v = vhost(uml::VHOST_USER_SET_VRING_NUM, {1, 2, 3});
  uml::VhostUserMsg vm;
  ASSERT_TRUE(uml::parse_vhost_user_header(v.data(), v.size(), &vm.hdr, &error));
  EXPECT_FALSE(uml::parse_vhost_user_payload(&vm, v.data() + 12, 3, &error));
  EXPECT_EQ(error, "vhost-user request 8: payload of 3 bytes, 8 expected");

  uml::TimetravelMsg t;
  const auto tb = uml::timetravel_bytes({10, 1, 0});
  EXPECT_FALSE(uml::parse_timetravel(tb.data(), tb.size(), &t, &error));
  EXPECT_EQ(error, "time-travel message: op 10 (0..9)");
}

TEST(LinuxWire, AttachedMemoryIsAllocatedAndReadAndWrittenInPlace) {
  dpusim::host::HostMemory mem;
  std::vector<uint8_t> ram(8192, 0);
  mem.attach(0x400000, ram.size(), ram.data());
  EXPECT_TRUE(mem.allocated(0x400000, 8192));
  EXPECT_FALSE(mem.allocated(0x401fff, 2));
  const uint8_t in[3] = {7, 8, 9};
  mem.write(0x400010, in, 3);
  EXPECT_EQ(ram[0x10], 7);
  EXPECT_EQ(ram[0x12], 9);
  EXPECT_FALSE(mem.free(0x400000));  // attached memory is detached, not freed
  EXPECT_THROW(mem.attach(0x401000, 16, ram.data()), std::invalid_argument);  // overlaps
  EXPECT_TRUE(mem.detach(0x400000));
  EXPECT_FALSE(mem.allocated(0x400000, 1));
  EXPECT_EQ(mem.alloc(16, 16), dpusim::host::HostMemory::kLowBase);
}

// A device with a 16 KiB 64-bit BAR 0 at 0x4000000000 whose MSI-X table (4 entries) is at 0x2000,
// its MSI-X capability at 0x60.
class LinuxDeviceTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kRam = 0x100000, kRamSize = 0x10000;
  static constexpr uint64_t kDesc = kRam, kAvail = kRam + 0x1000, kUsed = kRam + 0x2000, kBuf = kRam + 0x4000;
  static constexpr uint16_t kNum = 8;

  void SetUp() override {
    uml::LinuxDeviceSpec spec;
    spec.name = "ep0";
    spec.bdf = 0x0200;
    spec.bars = {{0, 0x4000000000ull, 0x4000, true, true}};
    spec.msix_bar = 0;
    spec.msix_offset = 0x2000;
    spec.msix_entries = msix_entries;
    spec.msix_cap = msix_cap;
    spec.held_writes = {0x4000003000ull};
    spec.ids = ids;
    uml::LinuxDeviceHost host;
    host.config_read = [this](uint16_t bdf, uint16_t off, unsigned size, uml::LinuxDeviceHost::Done done) {
      log.push_back("cfgrd " + std::to_string(bdf) + " " + std::to_string(off) + " " + std::to_string(size));
      dpusim::pcie::Result r;
      r.data.assign(size, 0);
      for (unsigned i = 0; i < size; ++i) r.data[i] = uint8_t(cfg_dword >> (8 * ((off & 3) + i)));
      pending.push_back([done, r]() mutable { done(std::move(r)); });
    };
    host.config_write = [this](uint16_t, uint16_t off, unsigned, uint32_t v) {
      log.push_back("cfgwr " + std::to_string(off) + " " + std::to_string(v));
    };
    host.mem_read = [this](uint64_t addr, size_t len, uml::LinuxDeviceHost::Done) {
      log.push_back("memrd " + std::to_string(addr) + " " + std::to_string(len));
    };
    host.mem_write = [this](uint64_t addr, std::vector<uint8_t> b) {
      uint32_t v = 0;  // the write's bytes, little-endian (a 16-bit notify write has two)
      for (size_t i = 0; i < b.size() && i < 4; ++i) v |= uint32_t(b[i]) << (8 * i);
      log.push_back("memwr " + std::to_string(addr) + " " + std::to_string(v));
    };
    host.bad_request = [this](const std::string& dev, const std::string& what) { log.push_back("bad " + dev + ": " + what); };
    dev = std::make_unique<uml::LinuxDevice>(spec, host, 0xfee00000);
    fd = memfd_create("ram", 0);
    ASSERT_EQ(ftruncate(fd, kRamSize), 0);
    ram = static_cast<uint8_t*>(mmap(nullptr, kRamSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    auto table = words({1, 0}, 4);
    auto region = words({kRam, kRamSize, kRam, 0}, 8);
    table.insert(table.end(), region.begin(), region.end());
    EXPECT_EQ(send(uml::VHOST_USER_SET_MEM_TABLE, table, {fd}), 0u);
    EXPECT_EQ(send(uml::VHOST_USER_SET_VRING_NUM, words({0, kNum}, 4)), 0u);
    auto addr = words({0, 0}, 4);
    auto a = words({kDesc, kUsed, kAvail, 0}, 8);
    addr.insert(addr.end(), a.begin(), a.end());
    EXPECT_EQ(send(uml::VHOST_USER_SET_VRING_ADDR, addr), 0u);
  }
  void TearDown() override { munmap(ram, kRamSize); }

  // The status of a request with NEED_REPLY (the REPLY_ACK answer).
  uint64_t send(uint32_t request, const std::vector<uint8_t>& payload, std::vector<int> fds = {}) {
    const auto m = vhost(request, payload);
    const auto reply = dev->on_message(m.data(), m.size(), std::move(fds));
    return reply.size() == 20 ? uml::le64(reply.data() + 12) : ~0ull;
  }
  // Posts a command (and an 8-byte writable buffer after it) and kicks; the used length.
  uint32_t command(const std::vector<uint8_t>& cmd) {
    uint8_t* d = ram + (kDesc - kRam);
    std::memcpy(ram + (kBuf - kRam), cmd.data(), cmd.size());
    std::memset(ram + (kBuf - kRam) + 256, 0xaa, 8);
    uml::put_le64(d, kBuf);
    uml::put_le32(d + 8, uint32_t(cmd.size()));
    uml::put_le16(d + 12, uml::DeviceRing::VRING_DESC_F_NEXT);
    uml::put_le16(d + 14, 1);
    uml::put_le64(d + 16, kBuf + 256);
    uml::put_le32(d + 24, 8);
    uml::put_le16(d + 28, uml::DeviceRing::VRING_DESC_F_WRITE);
    uint8_t* avail = ram + (kAvail - kRam);
    uml::put_le16(avail + 4 + 2 * (avail_idx % kNum), 0);
    uml::put_le16(avail + 2, ++avail_idx);
    EXPECT_EQ(send(uml::VHOST_USER_VRING_KICK, words({0, 0}, 4)), 0u);
    for (auto& p : pending) p();
    pending.clear();
    const uint8_t* used = ram + (kUsed - kRam);
    return uml::le32(used + 4 + 8 * ((uml::le16(used + 2) - 1) % kNum) + 4);
  }
  uint32_t result() const { return uml::le32(ram + (kBuf - kRam) + 256); }

  unsigned msix_entries = 4;  // the function's MSI-X table, its capability at 0x60
  uint16_t msix_cap = 0x60;
  uint32_t cfg_dword = 0xf4;  // what every config dword of the function reads
  uint32_t ids = 0;           // a VF's Vendor ID | Device ID << 16 (0: a PF)
  std::unique_ptr<uml::LinuxDevice> dev;
  std::vector<std::string> log;
  std::vector<std::function<void()>> pending;
  int fd = -1;
  uint8_t* ram = nullptr;
  uint16_t avail_idx = 0;
};

TEST_F(LinuxDeviceTest, ConfigReadsBecomeConfigRequestsToTheFunctionsBdf) {
  EXPECT_EQ(command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 2, 0)), 2u);
  EXPECT_EQ(result() & 0xffff, 0x00f4u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "cfgrd 512 0 2");
}

TEST_F(LinuxDeviceTest, TheKernelSizesAndAssignsBarsInItsOwnViewAndMmioGoesToDpusimsAddress) {
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_WRITE, 0, 4, 0x10, {0xff, 0xff, 0xff, 0xff}));
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x10));
  EXPECT_EQ(result(), 0xffffc00cu);  // 16 KiB, 64-bit, prefetchable
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_WRITE, 0, 4, 0x10, {0x00, 0x00, 0x00, 0xf0}));
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x10));
  EXPECT_EQ(result(), 0xf000000cu);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x14));
  EXPECT_EQ(result(), 0u);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_READ, 0, 4, 0x20));
  EXPECT_TRUE(log.empty() == false && log.back() == "memrd " + std::to_string(0x4000000020ull) + " 4");
  for (const auto& l : log) EXPECT_NE(l.rfind("cfg", 0), 0u) << l;  // BAR registers never reach the function
}

TEST_F(LinuxDeviceTest, TheMsixAddressOfVirtPciBecomesTheMsiWindow) {
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_WRITE, 0, 4, 0x2010, {0x00, 0x00, 0x0a, 0x00}));
  EXPECT_EQ(log.back(), "memwr " + std::to_string(0x4000002010ull) + " " + std::to_string(0xfee00000u));
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_WRITE, 0, 4, 0x2018, {0x00, 0x00, 0x0a, 0x00}));  // data, not address
  EXPECT_EQ(log.back(), "memwr " + std::to_string(0x4000002018ull) + " " + std::to_string(0xa0000u));
}

TEST_F(LinuxDeviceTest, AWriteTheDriverSpinsOnHoldsTheKernelOnceAndOtherWritesDoNot) {
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_WRITE, 0, 2, 0x3004, {8, 0}));
  EXPECT_FALSE(dev->take_hold());
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_WRITE, 0, 2, 0x3000, {8, 0}));
  EXPECT_TRUE(dev->take_hold());
  EXPECT_FALSE(dev->take_hold());
}

TEST_F(LinuxDeviceTest, BadAccessesAreAnsweredAsPcieWouldAndLogged) {
  EXPECT_EQ(command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 4094)), 4u);
  EXPECT_EQ(result(), 0xffffffffu);
  EXPECT_EQ(log.back(), "bad ep0: config read of 4 bytes at 4094: past the 4 KiB config space");
  EXPECT_EQ(command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_READ, 2, 4, 0)), 4u);
  EXPECT_EQ(result(), 0xffffffffu);
  EXPECT_EQ(log.back(), "bad ep0: MMIO read of 4 bytes at BAR 2 offset 0: the function has no such BAR");
  command(pcidev(uml::VIRTIO_PCIDEV_OP_MMIO_READ, 0, 8, 0x3ffc));
  EXPECT_EQ(log.back(), "bad ep0: MMIO read of 8 bytes at BAR 0 offset 16380: beyond the BAR's 16384 bytes");
  EXPECT_EQ(command(pcidev(uml::VIRTIO_PCIDEV_OP_PME, 0, 0, 0)), 8u);  // malformed: all ones
  EXPECT_EQ(log.back(), "bad ep0: virt-pci op 8: not a request the kernel sends to a device (1..5)");
  EXPECT_EQ(send(99, {}), 1u);  // an unknown vhost-user request: an error status
  EXPECT_EQ(log.back(), "bad ep0: vhost-user request 99 is not supported");
}

// The vnet application's function: its MSI-X table has 256 entries. The kernel sees
// a Table Size of 64 (kMaxMsixEntries - 1 in the field); the other bits and registers are the
// function's.
class LinuxDeviceMsixTest : public LinuxDeviceTest {
 protected:
  LinuxDeviceMsixTest() {
    msix_entries = 256;
    cfg_dword = 0xc0ff7011;  // MSI-X Enable, Function Mask, Table Size 255; next 0x70; ID 0x11
  }
};

TEST_F(LinuxDeviceMsixTest, TheKernelSeesATableOfAtMost64Entries) {
  static_assert(uml::LinuxDevice::kMaxMsixEntries == 64);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 2, 0x62));
  EXPECT_EQ(result() & 0xffff, 0xc03fu);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x60));
  EXPECT_EQ(result(), 0xc03f7011u);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 1, 0x63));  // not the whole field: as it is
  EXPECT_EQ(result() & 0xff, 0xc0u);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x64));  // the Table Offset register
  EXPECT_EQ(result(), 0xc0ff7011u);
  EXPECT_EQ(log.back(), "cfgrd 512 100 4");
}

TEST_F(LinuxDeviceTest, ATableOf64EntriesOrFewerIsShownAsItIs) {
  cfg_dword = 0x00037011;  // Table Size 3: the fixture's 4 entries, shown as they are
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0x60));
  EXPECT_EQ(result(), 0x00037011u);
}

// An SR-IOV VF: its Vendor and Device ID read FFFFh from the function (PCIe r6.0 §9.3.4.1.1),
// so the kernel is shown the PF's (spec.ids); every other register is the function's.
class LinuxDeviceVfTest : public LinuxDeviceTest {
 protected:
  LinuxDeviceVfTest() {
    ids = 0x10411af4;
    cfg_dword = 0xffffffff;
  }
};

TEST_F(LinuxDeviceVfTest, TheKernelSeesTheVendorAndDeviceIdOfThePf) {
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 0));
  EXPECT_EQ(result(), 0x10411af4u);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 2, 2));
  EXPECT_EQ(result() & 0xffff, 0x1041u);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 1, 1));
  EXPECT_EQ(result() & 0xff, 0x1au);
  command(pcidev(uml::VIRTIO_PCIDEV_OP_CFG_READ, 0, 4, 4));  // Command/Status: the function's
  EXPECT_EQ(result(), 0xffffffffu);
  EXPECT_EQ(log.back(), "cfgrd 512 4 4");
}
