// Harness: the ionic NIC's device-command decoder (models/ionic/devcmd.h) and the doorbell
// decode, on the bytes a guest writes. The input is a run of 64-byte commands, each planned on
// both paths with the P4 surface registered and not, and each 8 bytes after the first command
// also read as a doorbell at a fuzz-chosen BAR2 offset. Rules: the admin queue never plans an
// unknown opcode; the devcmd window plans one exactly for the opcodes rocm-ernic does not
// handle; a Q_INIT plan carries the command's fields; the identity builders stay in their
// buffers; nothing crashes.
// link: dpusim_ionic
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ionic/devcmd.h"
#include "ionic/le_bytes.h"

extern "C" int sc_main(int, char**) { return 0; }

namespace {

using namespace dpusim::ionic;

bool window_handles(uint8_t op, bool p4) {
  return op <= 5 || (op >= 10 && op <= 14) || (op >= 20 && op <= 24) || (op >= 39 && op <= 41) ||
         (op >= 50 && op <= 53) || (p4 && op >= 70 && op <= 72);
}

void check(const uint8_t* cmd) {
  for (bool p4 : {false, true}) {
    const CmdPlan w = plan_command(cmd, CmdPath::kDevcmd, p4);
    const CmdPlan a = plan_command(cmd, CmdPath::kAdminq, p4);
    if (a.kind == CmdKind::kUnknown) std::abort();
    if ((w.kind == CmdKind::kUnknown) == window_handles(cmd[0], p4)) std::abort();
    if (w.opcode != cmd[0] || a.opcode != cmd[0]) std::abort();
    if (w.kind == CmdKind::kQInit) {
      if (w.q.index != get_le32(cmd + Q_INIT_INDEX) || w.q.ring_base != get_le64(cmd + Q_INIT_RING_BASE)) std::abort();
      std::string reason;
      const bool ok = w.q.storable(&reason);
      if (ok != (w.q.type < IONIC_QTYPE_ETH_MAX && w.q.index < IONIC_ETH_QCOUNT && w.q.ring_size < 16)) std::abort();
      if (!ok && reason.empty()) std::abort();
    }
  }
  // The identity builders fill their blocks and nothing past them.
  std::array<uint8_t, DEV_CMD_DATA_BYTES + 16> data;
  data.fill(0x5a);
  std::array<uint8_t, 6> mac;
  std::memcpy(mac.data(), cmd + 8, 6);
  build_lif_identity(data.data(), mac, get_le64(cmd + 16));
  build_dev_identity(data.data());
  build_q_identity(data.data(), cmd[Q_IDENTIFY_QTYPE]);
  for (size_t i = DEV_CMD_DATA_BYTES; i < data.size(); ++i)
    if (data[i] != 0x5a) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::array<uint8_t, IONIC_CMD_BYTES> cmd{};
  for (size_t off = 0; off < size; off += IONIC_CMD_BYTES) {
    cmd.fill(0);
    std::memcpy(cmd.data(), data + off, std::min<size_t>(IONIC_CMD_BYTES, size - off));
    check(cmd.data());
    const uint64_t at = get_le32(cmd.data() + 4) % IONIC_BAR2_SIZE;
    const Doorbell d = decode_doorbell(at, get_le64(cmd.data() + 8));
    if (d.qtype >= IONIC_DB_PAGE_SIZE / 8 || d.pid >= IONIC_BAR2_SIZE / IONIC_DB_PAGE_SIZE || d.qid >= (1u << 24))
      std::abort();
  }
  return 0;
}
