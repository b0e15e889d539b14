// The command planner (devcmd.h): which handler each opcode reaches on the devcmd window and
// on the admin queue, with the P4 control surface registered or not (rocm-ernic's
// process_devcmd and process_adminq_cmd), and the doorbell decode.
#include <gtest/gtest.h>

#include <array>

#include "ionic/devcmd.h"
#include "ionic/le_bytes.h"

using namespace dpusim::ionic;

namespace {

CmdKind kind(uint8_t op, CmdPath path, bool p4 = false) {
  std::array<uint8_t, 64> cmd{};
  cmd[0] = op;
  return plan_command(cmd.data(), path, p4).kind;
}

}  // namespace

TEST(Devcmd, WindowOpcodes) {
  for (uint8_t op : {0, 2, 3, 4, 5, 12, 13, 14, 41}) EXPECT_EQ(kind(op, CmdPath::kDevcmd), CmdKind::kSuccess) << int(op);
  EXPECT_EQ(kind(1, CmdPath::kDevcmd), CmdKind::kIdentify);
  // rocm-ernic: "PORT_IDENTIFY | 10 | dev | success, zero data".
  EXPECT_EQ(kind(10, CmdPath::kDevcmd), CmdKind::kPortIdentify);
  EXPECT_EQ(kind(10, CmdPath::kAdminq), CmdKind::kSuccess);
  EXPECT_EQ(kind(11, CmdPath::kDevcmd), CmdKind::kPortInit);
  EXPECT_EQ(kind(20, CmdPath::kDevcmd), CmdKind::kLifIdentify);
  EXPECT_EQ(kind(21, CmdPath::kDevcmd), CmdKind::kLifInit);
  EXPECT_EQ(kind(22, CmdPath::kDevcmd), CmdKind::kLifReset);
  EXPECT_EQ(kind(39, CmdPath::kDevcmd), CmdKind::kQIdentify);
  for (uint8_t op : {50, 51, 52, 53}) EXPECT_EQ(kind(op, CmdPath::kDevcmd), CmdKind::kRdma);
  for (int op = 0; op < 256; ++op) {
    const bool handled = (op <= 5) || (op >= 10 && op <= 14) || (op >= 20 && op <= 24) || (op >= 39 && op <= 41) ||
                         (op >= 50 && op <= 53);
    if (!handled) {
      EXPECT_EQ(kind(uint8_t(op), CmdPath::kDevcmd), CmdKind::kUnknown) << op;
    }
  }
}

TEST(Devcmd, AdminqOpcodes) {
  EXPECT_EQ(kind(40, CmdPath::kAdminq), CmdKind::kQInit);
  EXPECT_EQ(kind(23, CmdPath::kAdminq), CmdKind::kLifGetattr);
  EXPECT_EQ(kind(24, CmdPath::kAdminq), CmdKind::kLifSetattr);
  for (int op = 0; op < 256; ++op) {
    const CmdKind k = kind(uint8_t(op), CmdPath::kAdminq);
    if (op == 40 || op == 23 || op == 24 || (op >= 50 && op <= 53)) continue;
    EXPECT_EQ(k, CmdKind::kSuccess) << op;  // never kUnknown on the admin queue
  }
}

TEST(Devcmd, P4OpcodesOnlyWhenRegistered) {
  for (uint8_t op : {70, 71, 72}) {
    EXPECT_EQ(kind(op, CmdPath::kDevcmd, true), CmdKind::kP4);
    EXPECT_EQ(kind(op, CmdPath::kAdminq, true), CmdKind::kP4);
    EXPECT_EQ(kind(op, CmdPath::kDevcmd, false), CmdKind::kUnknown);
    EXPECT_EQ(kind(op, CmdPath::kAdminq, false), CmdKind::kSuccess);
  }
}

TEST(Devcmd, QInitFieldsAndStorableRule) {
  std::array<uint8_t, 64> cmd{};
  cmd[0] = IONIC_CMD_Q_INIT;
  cmd[Q_INIT_TYPE] = IONIC_QTYPE_TXQ;
  put_le32(&cmd[Q_INIT_INDEX], 3);
  put_le16(&cmd[Q_INIT_INTR_INDEX], 7);
  put_le16(&cmd[Q_INIT_FLAGS], IONIC_QINIT_F_IRQ | IONIC_QINIT_F_SG);
  cmd[Q_INIT_RING_SIZE] = 10;
  put_le64(&cmd[Q_INIT_RING_BASE], 0x1000);
  put_le64(&cmd[Q_INIT_CQ_RING_BASE], 0x2000);
  put_le64(&cmd[Q_INIT_SG_RING_BASE], 0x3000);
  const CmdPlan p = plan_command(cmd.data(), CmdPath::kAdminq, false);
  ASSERT_EQ(p.kind, CmdKind::kQInit);
  EXPECT_EQ(p.q.type, IONIC_QTYPE_TXQ);
  EXPECT_EQ(p.q.index, 3u);
  EXPECT_EQ(p.q.intr_index, 7);
  EXPECT_EQ(p.q.ring_base, 0x1000u);
  EXPECT_EQ(p.q.cq_ring_base, 0x2000u);
  EXPECT_EQ(p.q.sg_ring_base, 0x3000u);
  std::string reason;
  EXPECT_TRUE(p.q.storable(&reason));
  QInit q = p.q;
  q.ring_size = 16;
  EXPECT_FALSE(q.storable(&reason));
  EXPECT_EQ(reason, "ring_size 16 is not below 16");
  q = p.q;
  q.type = 5;
  EXPECT_FALSE(q.storable(&reason));
  EXPECT_EQ(reason, "queue type 5 is not an Ethernet type (0..4)");
}

TEST(Devcmd, Doorbell) {
  const Doorbell d = decode_doorbell(2 * IONIC_DB_PAGE_SIZE + 8 * IONIC_QTYPE_TXQ, 0x0000'0012'0301'002aull);
  EXPECT_EQ(d.qtype, IONIC_QTYPE_TXQ);
  EXPECT_EQ(d.pid, 2u);
  EXPECT_EQ(d.p_index, 0x2a);
  EXPECT_EQ(d.ring, 1);
  EXPECT_EQ(d.qid, 0x1203u);  // [31:24] | [47:32] << 8
}
