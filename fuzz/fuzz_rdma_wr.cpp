// Harness: the RDMA path's untrusted inputs, a guest's memory-region table and send work
// requests, against the worked example fp8_policy with fuzz-chosen table entries (any op and
// format byte, valid or not). Every request gets one of the four outcomes with the status the
// outcome promises; memory changes only when the fp8 unit did the operation, and then only
// inside the destination region from the remote address on; nothing crashes.
// link: dpusim_p4_rdma dpusim_formats
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/path.h"

using namespace dpusim::p4;
using namespace dpusim::p4::rdma;

namespace {

constexpr std::uint64_t kBase = 0x100000;
constexpr std::size_t kWindow = 0x4000;

struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint64_t take(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      v = v << 8 | (n != 0 ? *p : 0);
      if (n != 0) ++p, --n;
    }
    return v;
  }
};

Engine* policy() {
  static std::unique_ptr<Engine> engine = [] {
    LoadError error;
    auto e = load_device_program_file(std::string(DPUSIM_SOURCE_DIR) + "/tests/data/p4/fp8_policy.json", &error);
    if (!e) std::abort();  // the worked example must load
    return e;
  }();
  return engine.get();
}

void set_entry(Engine& e, std::uint8_t opcode, std::uint8_t kind, std::uint8_t op, std::uint8_t fmt) {
  TableUpdate u;
  u.table = "ingress.rdma_policy";
  u.match.push_back({"meta.rdma_metadata.opcode", std::to_string(opcode), std::nullopt, std::nullopt, std::nullopt});
  UpdateError err;
  u.type = UpdateType::kDelete;
  e.update(u, &err);  // absent is fine
  if (kind % 3 == 0) return;
  u.type = UpdateType::kInsert;
  u.action = kind % 3 == 1 ? "ingress.reduce" : "ingress.deny";
  if (kind % 3 == 1) u.params = {{"op", std::to_string(op)}, {"fmt", std::to_string(fmt)}};
  if (!e.update(u, &err)) std::abort();  // 8-bit values always fit
}

// An address near the window, or (rarely) anywhere.
std::uint64_t address(Reader& r) {
  const std::uint8_t mode = static_cast<std::uint8_t>(r.take(1));
  return mode < 0xf0 ? kBase - 0x100 + r.take(2) % (kWindow + 0x200) : r.take(8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader r{data, size};
  Engine& e = *policy();
  for (std::uint8_t opcode : {IONIC_V1_OP_RDMA_WRITE, IONIC_V1_OP_SEND}) {
    // One after the other: the order of a call's arguments' evaluation is unspecified.
    const auto kind = static_cast<std::uint8_t>(r.take(1));
    const auto op = static_cast<std::uint8_t>(r.take(1));
    const auto fmt = static_cast<std::uint8_t>(r.take(1));
    set_entry(e, opcode, kind, op, fmt);
  }
  std::string error;
  auto mem = FlatMemory::create(kBase, kWindow, &error);
  static const std::vector<std::uint8_t> pattern = [] {
    std::vector<std::uint8_t> p(kWindow);
    for (std::size_t i = 0; i < kWindow; ++i) p[i] = static_cast<std::uint8_t>(i * 131 + 7);
    return p;
  }();
  mem->poke(kBase, pattern.data(), kWindow);
  const std::size_t nregions = r.take(1) % 8;
  for (std::size_t i = 0; i < nregions; ++i) {
    MemoryRegion reg;
    reg.key = static_cast<std::uint32_t>(r.take(1) % 16);
    const std::uint8_t flags = static_cast<std::uint8_t>(r.take(1));
    reg.owner = (flags & 0x80) != 0 ? RegionOwner::kPeer : RegionOwner::kLocal;
    reg.access = flags & 0x1f;
    reg.addr = address(r);
    reg.length = r.take(2) + 1;
    mem->add_region(reg, &error);  // one outside the window is refused: fine
  }
  RdmaPath path([](std::uint64_t, const std::string& line) {
    if (line.empty()) std::abort();
  });
  LoadError lerr;
  if (!path.attach(&e, &lerr)) std::abort();
  std::uint64_t now = r.take(4);
  for (int k = 0; k < 8 && r.n != 0; ++k) {
    SendWr wr;
    wr.opcode = static_cast<std::uint8_t>(r.take(1) % 12);
    wr.qp_num = static_cast<std::uint32_t>(r.take(1) == 0xff ? r.take(4) : r.take(3));
    wr.imm_data = static_cast<std::uint32_t>(r.take(4));
    wr.rkey = static_cast<std::uint32_t>(r.take(1) % 16);
    wr.remote_addr = address(r);
    const std::size_t nsge = r.take(1) % 5;
    for (std::size_t i = 0; i < nsge; ++i) {
      Sge s;
      s.addr = address(r);
      const std::uint8_t big = static_cast<std::uint8_t>(r.take(1));
      s.length = static_cast<std::uint32_t>(big == 0xff ? r.take(4) : r.take(1) % 96);
      s.lkey = static_cast<std::uint32_t>(r.take(1) % 16);
      wr.length += s.length;
      wr.sgl.push_back(s);
    }
    now += r.take(5);
    std::vector<std::uint8_t> before(kWindow), after(kWindow);
    mem->peek(kBase, before.data(), kWindow);
    const Decision d = path.post_send(wr, now, *mem);
    mem->peek(kBase, after.data(), kWindow);
    const bool ok_status = d.status == WcStatus::IBV_WC_SUCCESS;
    if ((d.action == Action::kDispatch || d.action == Action::kDone) != ok_status) std::abort();
    if (d.action == Action::kDeny && d.status != WcStatus::IBV_WC_LOC_QP_OP_ERR) std::abort();
    if (d.action == Action::kFail && (d.reason == FailReason::kNone || d.message.empty())) std::abort();
    if (d.action != Action::kDone) {
      if (before != after) std::abort();
      continue;
    }
    const MemoryRegion* dst = mem->find(wr.rkey);
    if (dst == nullptr || dst->owner != RegionOwner::kLocal || (dst->access & IB_ACCESS_REMOTE_WRITE) == 0) std::abort();
    for (std::size_t i = 0; i < kWindow; ++i)
      if (before[i] != after[i] && (kBase + i < wr.remote_addr || !region_covers(*dst, kBase + i, 1))) std::abort();
  }
  path.flush_log(UINT64_MAX);
  return 0;
}
