#include "host_script.h"

#include "tlm/pci_regs.h"
#include "tlm/timing.h"

namespace dpusim::test {

using namespace sc_core;
using namespace dpusim::pci;

HostScript::HostScript(sc_module_name name, pcie::SimContext& ctx, pcie::EndpointBase& ep, const host::HostSpec& spec)
    : sc_module(name),
      host("host", ctx, spec),
      link("link", ctx, pcie::timing::link_dsp_gen, pcie::timing::link_dsp_width, [] { return 0; }) {
  host.requester.checker_id = int(ctx.checker.register_requester("host"));
  ep.dma().checker_id = int(ctx.checker.register_requester(ep.name()));
  link.connect(host.port, ep.port, host.requester.checker_id, ep.dma().checker_id);
  host.on_msi = [this](const host::MsiEvent&) { msi_.notify(SC_ZERO_TIME); };
  SC_THREAD(thread);
}

void HostScript::run(std::function<void()> script) {
  script_ = std::move(script);
  finished_ = false;
  go_.notify(SC_ZERO_TIME);
}

// A script set before the first sc_start is found when the thread first runs (SystemC triggers
// delta notifications made during elaboration before it runs any process, so go_ alone would be
// missed); a later one wakes it by go_.
void HostScript::thread() {
  for (;;) {
    while (!script_) wait(go_);
    const std::function<void()> script = std::move(script_);
    script_ = nullptr;
    script();
    finished_ = true;
  }
}

pcie::Result HostScript::wait_for(const std::function<void(host::RootComplex::Done)>& issue) {
  pcie::Result out;
  bool done = false;
  issue([&](pcie::Result&& r) {
    out = std::move(r);
    done = true;
    completed_.notify(SC_ZERO_TIME);
  });
  while (!done) wait(completed_);
  return out;
}

uint32_t HostScript::cfg_read(uint16_t off, unsigned size) {
  const pcie::Result r = wait_for([&](host::RootComplex::Done d) { host.config_read(kBdf, off, size, std::move(d)); });
  uint32_t v = 0;
  for (size_t i = 0; i < r.data.size() && i < 4; ++i) v |= uint32_t(r.data[i]) << (8 * i);
  return v;
}

void HostScript::cfg_write(uint16_t off, uint32_t value, unsigned size) {
  wait_for([&](host::RootComplex::Done d) { host.config_write(kBdf, off, size, value, std::move(d)); });
}

pcie::Result HostScript::mem_read(uint64_t addr, size_t len) {
  return wait_for([&](host::RootComplex::Done d) { host.mem_read(addr, len, std::move(d)); });
}

uint32_t HostScript::read32(uint64_t addr) {
  const pcie::Result r = mem_read(addr, 4);
  return uint32_t(r.data[0]) | uint32_t(r.data[1]) << 8 | uint32_t(r.data[2]) << 16 | uint32_t(r.data[3]) << 24;
}

void HostScript::write32(uint64_t addr, uint32_t value) {
  write(addr, {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)});
}

void HostScript::write(uint64_t addr, std::vector<uint8_t> bytes) {
  wait_for([&](host::RootComplex::Done d) { host.mem_write(addr, std::move(bytes), std::move(d)); });
}

void HostScript::sleep(uint64_t ps) { wait(sc_time::from_value(ps)); }

bool HostScript::wait_msis(size_t count, uint64_t timeout_ps) {
  const uint64_t end = sc_time_stamp().value() + timeout_ps;
  while (host.msis().size() < count) {
    const uint64_t now = sc_time_stamp().value();
    if (now >= end) return false;
    wait(sc_time::from_value(end - now), msi_);
  }
  return true;
}

uint16_t HostScript::find_cap(uint8_t id) {
  uint16_t pos = uint16_t(cfg_read(PCI_CAPABILITY_LIST, 1) & ~3u);
  for (int hops = 0; pos >= 0x40 && hops < 48; ++hops) {
    const uint32_t v = cfg_read(pos, 2);
    if ((v & 0xff) == id) return pos;
    pos = uint16_t((v >> 8) & ~3u);
  }
  return 0;
}

static uint32_t encode_size(unsigned bytes) {
  uint32_t code = 0;
  while ((128u << code) < bytes) ++code;
  return code;
}

void HostScript::enable(uint32_t bar0, unsigned mps, unsigned mrrs, bool msix) {
  cfg_write(PCI_BASE_ADDRESS_0, bar0);
  const uint16_t exp = find_cap(PCI_CAP_ID_EXP);
  const uint32_t devctl = cfg_read(exp + PCI_EXP_DEVCTL, 2) & ~uint32_t(PCI_EXP_DEVCTL_PAYLOAD | PCI_EXP_DEVCTL_READRQ);
  cfg_write(exp + PCI_EXP_DEVCTL, devctl | encode_size(mps) << 5 | encode_size(mrrs) << 12, 2);
  cfg_write(PCI_COMMAND, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, 2);
  if (!msix) return;
  const uint16_t cap = find_cap(PCI_CAP_ID_MSIX);
  const uint32_t table = cfg_read(cap + PCI_MSIX_TABLE);
  const uint64_t entry = bar0 + (table & ~7u);  // BIR 0
  write32(entry + PCI_MSIX_ENTRY_LOWER_ADDR, uint32_t(kMsiAddress));
  write32(entry + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
  write32(entry + PCI_MSIX_ENTRY_DATA, uint32_t(kMsiData));
  write32(entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
  cfg_write(cap + PCI_MSIX_FLAGS, PCI_MSIX_FLAGS_ENABLE, 2);
}

}  // namespace dpusim::test
