// The RDMA completion and event queues on their own (models/ionic/rdma_completions.h): the
// bytes of a CQE and an EQE as Linux's ionic_fw.h lays them out, the colour per wrap, arming as
// a level, the interrupt after its EQE, and rocm-ernic's send-side completion rules. Guest
// memory is a recorder of the DMA writes the queues make, in order.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../support/event_record.h"
#include "ionic/rdma_completions.h"

namespace dpusim::ionic {
namespace {

struct Write {
  uint64_t addr;
  std::vector<uint8_t> bytes;  // empty for an interrupt
  uint32_t intr;
  bool operator==(const Write& o) const { return addr == o.addr && bytes == o.bytes && intr == o.intr; }
};
std::ostream& operator<<(std::ostream& os, const Write& w) {
  os << std::hex << "{0x" << w.addr << ",";
  for (uint8_t b : w.bytes) os << " " << unsigned(b);
  return os << ", intr " << std::dec << w.intr << "}";
}
Write dma(uint64_t addr, std::vector<uint8_t> bytes) { return Write{addr, std::move(bytes), 0}; }
Write irq(uint32_t n) { return Write{0, {}, n}; }

struct Completions : ::testing::Test {
  pcie::SimContext ctx{1};
  testing::EventRecord events{ctx.log};
  std::vector<Write> writes;
  RdmaCompletions cq{RdmaCompletions::Ports{
      ctx, "ep0",
      [this](const std::vector<BusRun>& runs, const uint8_t* bytes) {
        for (const BusRun& r : runs) {
          writes.push_back(dma(r.addr, std::vector<uint8_t>(bytes, bytes + r.len)));
          bytes += r.len;
        }
      },
      [this](uint64_t addr, const uint8_t* bytes, size_t len) { writes.push_back(dma(addr, {bytes, bytes + len})); },
      [this](uint32_t n) { writes.push_back(irq(n)); }}};

  // CQ `id` on EQ 1, a direct ring at 0x10000 of `depth` 32-byte entries.
  void usable_cq(uint32_t id, uint32_t depth) {
    RdmaCompletions::Cq& c = cq.fresh_cq(id);
    c.eq_id = 1;
    c.buf.base = 0x10000;
    c.depth = depth;
    c.stride_log2 = 5;
    c.usable = true;
  }
  // EQ 1 on interrupt 5, a ring of 2 four-byte entries at 0x20000.
  void eq() {
    RdmaQueueCmd c;
    c.qid = 1;
    c.cid = 5;
    c.dma_addr = 0x20000;
    c.depth_log2 = 1;
    c.stride_log2 = 2;
    ASSERT_EQ(cq.create_eq(c), nullptr);
  }
  // The colour word (bytes 28..31) of each CQE written so far.
  std::vector<std::vector<uint8_t>> words() {
    std::vector<std::vector<uint8_t>> out;
    for (const Write& w : writes)
      if (w.bytes.size() == 4 && w.addr >= 0x10000 && w.addr < 0x20000) out.push_back(w.bytes);
    return out;
  }
};

TEST_F(Completions, ACqeIsItsBodyThenItsColourWord) {
  usable_cq(3, 4);
  cq.post_npg(3, 7, 0x1122334455667788ull, 0);
  const std::vector<Write> want{
      dma(0x10000, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   // the body: the WQE id at 16, native
                    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
                    0, 0, 0, 0}),                                   // status_length 0 (be32)
      dma(0x1001c, {0x00, 0x00, 0x07, 0x61})};                      // qid 7 << 8 | SEND_NPG 3 << 5 | colour
  EXPECT_EQ(writes, want);
  EXPECT_EQ(cq.cqes(), 1u);
}

TEST_F(Completions, AnErrorCarriesItsStatusAndTheErrorBit) {
  usable_cq(3, 4);
  cq.post_msn(3, 9, 2, 5);  // status 5 at MSN 2
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(std::vector<uint8_t>(writes[0].bytes.begin() + 4, writes[0].bytes.begin() + 8),
            (std::vector<uint8_t>{0, 0, 0, 2}));
  EXPECT_EQ(std::vector<uint8_t>(writes[0].bytes.begin() + 24, writes[0].bytes.end()), (std::vector<uint8_t>{0, 0, 0, 5}));
  EXPECT_EQ(writes[1].bytes, (std::vector<uint8_t>{0x00, 0x00, 0x09, 0x43}));  // MSN 2 << 5 | ERROR | colour
}

TEST_F(Completions, TheColourFlipsEachTimeTheRingWraps) {
  usable_cq(3, 2);
  for (int i = 0; i < 5; ++i) cq.post_npg(3, 7, i, 0);
  const std::vector<std::vector<uint8_t>> want{{0, 0, 7, 0x61}, {0, 0, 7, 0x61}, {0, 0, 7, 0x60}, {0, 0, 7, 0x60},
                                               {0, 0, 7, 0x61}};
  EXPECT_EQ(words(), want);
  EXPECT_EQ(writes[0].addr, 0x10000u);
  EXPECT_EQ(writes[2].addr, 0x10020u);
  EXPECT_EQ(writes[4].addr, 0x10000u);
}

TEST_F(Completions, ArmingIsALevelThatFiresOnce) {
  eq();
  usable_cq(3, 8);
  ASSERT_TRUE(cq.doorbell(3, 1, 0));  // armed, nothing unread: nothing yet
  EXPECT_TRUE(writes.empty());
  cq.post_npg(3, 7, 1, 0);  // the next CQE fires it: the EQE, then the interrupt
  cq.post_npg(3, 7, 2, 0);  // disarmed: no second event
  ASSERT_EQ(writes.size(), 6u);
  EXPECT_EQ(writes[2], dma(0x20000, {0x00, 0x00, 0x03, 0x01}));  // CQ 3 << 8 | CQ_NOTIFY | TYPE_CQ | colour
  EXPECT_EQ(writes[3], irq(5));
  // Two unread (the consumer index is still 0): an arm fires at once.
  ASSERT_TRUE(cq.doorbell(3, 2, 0));
  ASSERT_EQ(writes.size(), 8u);
  EXPECT_EQ(writes[6], dma(0x20004, {0x00, 0x00, 0x03, 0x01}));
  EXPECT_EQ(writes[7], irq(5));
  // Everything read (ring 0 carries the consumer index): an arm waits for the next CQE.
  ASSERT_TRUE(cq.doorbell(3, 0, 2));
  ASSERT_TRUE(cq.doorbell(3, 1, 0));
  EXPECT_EQ(writes.size(), 8u);
  cq.post_npg(3, 7, 3, 0);
  ASSERT_EQ(writes.size(), 12u);
  EXPECT_EQ(writes[10], dma(0x20000, {0x00, 0x00, 0x03, 0x00}));  // the EQ wrapped: colour 0
  EXPECT_EQ(cq.eqes(), 3u);
  EXPECT_FALSE(cq.doorbell(4, 1, 0));  // no such CQ
}

TEST_F(Completions, WhatHasNoQueueIsLostAndLogged) {
  cq.fresh_cq(3);  // created, its ring not loaded
  cq.post_npg(3, 7, 1, 0);
  cq.post_npg(9, 7, 1, 0);
  cq.post_eqe(2, 3);
  EXPECT_TRUE(writes.empty());
  EXPECT_EQ(events.count("rdma_cqe_lost", {{"cq", 3}, {"qid", 7}}), 1u);
  EXPECT_EQ(events.count("rdma_cqe_lost", {{"cq", 9}}), 1u);
  EXPECT_EQ(events.count("rdma_eqe_lost", {{"eq", 2}, {"cq", 3}}), 1u);
  EXPECT_EQ(cq.cqes() + cq.eqes(), 0u);
}

TEST_F(Completions, AtMost32Eqs) {
  RdmaQueueCmd c;
  for (uint32_t i = 0; i < 32; ++i) {
    c.qid = i;
    ASSERT_EQ(cq.create_eq(c), nullptr);
  }
  c.qid = 32;
  EXPECT_STREQ(cq.create_eq(c), "more than 32 EQs");
  cq.clear();  // RESET_LIF
  EXPECT_EQ(cq.create_eq(c), nullptr);
}

// rocm-ernic: "REG_MR and LOCAL_INV: always an NPG CQE"; RC and UC count every WQE by a running
// MSN from 1, signalled or not; "UD/GSI: a SEND_NPG CQE only if SIG is set", unless the P4
// program refused the request.
TEST_F(Completions, SendCompletionRules) {
  usable_cq(3, 64);
  Wqe send;
  send.op = 0;  // SEND, unsignalled
  send.id = 0x40;
  Wqe signaled = send;
  signaled.flags = 0x0008;  // IONIC_V1_FLAG_SIG
  Wqe reg_mr = send;
  reg_mr.op = 8;  // REG_MR
  uint32_t msn = 0;
  cq.post_send_completion(3, true, &msn, 7, send, 0, false);
  cq.post_send_completion(3, true, &msn, 7, reg_mr, 0, false);
  cq.post_send_completion(3, true, &msn, 7, send, 0, false);
  EXPECT_EQ(msn, 2u);
  cq.post_send_completion(3, false, &msn, 8, send, 0, false);      // UD unsignalled: nothing
  cq.post_send_completion(3, false, &msn, 8, signaled, 0, false);  // UD signalled: NPG
  cq.post_send_completion(3, false, &msn, 8, send, 10, true);      // refused by the program: NPG
  const std::vector<std::vector<uint8_t>> want{{0, 0, 7, 0x41}, {0, 0, 7, 0x61}, {0, 0, 7, 0x41},
                                               {0, 0, 8, 0x61}, {0, 0, 8, 0x63}};
  EXPECT_EQ(words(), want);
  EXPECT_EQ(events.count("rdma_wc"), 6u);
}

}  // namespace
}  // namespace dpusim::ionic
