// The RDMA admin queues on their own (models/ionic/rdma_admin.h), over a fake device whose
// guest memory is a byte window and whose time is a queue the test runs: creation by devcmds,
// the WQE strides, each opcode's answer (rocm-ernic's ionic_adminq.c) and the admin CQE's bytes,
// followed by its EQE and interrupt.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "fake_device_io.h"
#include "ionic/rdma_admin.h"

namespace dpusim::ionic {
namespace {

constexpr uint64_t kBase = 0x100000;

// The admin queue's ring at kBase (16 strides), its CQ at kBase + 0x1000 (16 entries), EQ 2 at
// kBase + 0x2000 on interrupt 7.
constexpr uint64_t kRing = kBase, kCqRing = kBase + 0x1000, kEq = kBase + 0x2000;

struct Admin : RdmaPartTest<kBase> {
  RdmaAdmin admin{RdmaAdmin::Ports{{ctx, "ep0", dev, res, cq},
                                   [](const std::array<uint8_t, 16>&, uint32_t* node) {
                                     *node = UINT32_MAX;
                                     return true;
                                   }}};
  uint32_t prod = 0;

  static RdmaQueueCmd queue(uint32_t qid, uint32_t cid, uint64_t dma, uint8_t depth_log2) {
    RdmaQueueCmd c;
    c.qid = qid;
    c.cid = cid;
    c.dma_addr = dma;
    c.depth_log2 = depth_log2;
    return c;
  }
  void SetUp() override {
    RdmaQueueCmd eq = queue(2, 7, kEq, 4);
    eq.stride_log2 = 2;
    ASSERT_EQ(cq.create_eq(eq), nullptr);
    admin.hold_cq(queue(0, 2, kCqRing, 4));  // CQ 0, notifying EQ 2
    ASSERT_EQ(admin.create(queue(0, 0, kRing, 4)), nullptr);
  }
  // Posts a WQE (op, body) at the producer and rings the doorbell for it.
  void post(uint8_t op, const std::vector<uint8_t>& body) {
    const unsigned strides = unsigned((4 + body.size() + 63) / 64);
    std::vector<uint8_t> wqe(64 * strides, 0);
    wqe[0] = op;
    wqe[2] = uint8_t(body.size());
    wqe[3] = uint8_t(body.size() >> 8);
    if (!body.empty()) std::memcpy(&wqe[4], body.data(), body.size());
    for (unsigned i = 0; i < strides; ++i) std::memcpy(dev.at(kRing + 64 * ((prod + i) % 16)), &wqe[64 * i], 64);
    prod = (prod + strides) % 16;
    ASSERT_TRUE(admin.doorbell(0, uint16_t(prod)));
    dev.run();
  }
  std::vector<uint8_t> cqe(unsigned slot) { return {dev.at(kCqRing + 32 * slot), dev.at(kCqRing + 32 * slot) + 32}; }
};

std::vector<uint8_t> le(uint64_t v, int n) {
  std::vector<uint8_t> out;
  for (int i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
  return out;
}

TEST_F(Admin, AQueueNeedsAHeldCqAndThereAreAtMostFour) {
  RdmaAdmin fresh{RdmaAdmin::Ports{{ctx, "ep0", dev, res, cq}, nullptr}};
  EXPECT_STREQ(fresh.create(queue(0, 0, kRing, 4)), "no CREATE_CQ before it");
  for (int i = 1; i < 4; ++i) {
    admin.hold_cq(queue(uint32_t(i), 2, kCqRing, 4));
    ASSERT_EQ(admin.create(queue(uint32_t(i), 0, kRing, 4)), nullptr);
  }
  admin.hold_cq(queue(4, 2, kCqRing, 4));
  EXPECT_STREQ(admin.create(queue(4, 0, kRing, 4)), "more than 4 admin queues");
  EXPECT_FALSE(fresh.doorbell(0, 1));  // no such queue
}

TEST_F(Admin, ACommandIsAnsweredByItsCqeThenTheEqeAndTheInterrupt) {
  post(IONIC_V1_ADMIN_NOOP, {});
  const std::vector<uint8_t> want = {0, 0, 0 /* NOOP */, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* status_length */
                                     0x00, 0x00, 0x00, 0x01 /* aq 0 << 8 | ADMIN << 5 | colour */};
  EXPECT_EQ(cqe(0), want);
  EXPECT_EQ(dev.trace, (std::vector<std::string>{"write 4096+32", "write 8192+4", "irq 7"}));
  EXPECT_EQ(admin.commands(), 1u);
  EXPECT_EQ(events.count("rdma_admin", {{"aq", 0}, {"slot", 0}, {"op", "NOOP"}, {"strides", 1}, {"status", 0}}), 1u);
}

TEST_F(Admin, AMemoryRegionIsCreatedAndAnUnknownOneFailsItsDestroy) {
  // struct ionic_v1_admin_create_mr: va, length, pd, id_ver, 4 reserved, map_count, dma_addr,
  // dbid_flags (access), 2 reserved, page_size_log2.
  std::vector<uint8_t> body;
  for (const auto& part : {le(0x7f0000001000, 8), le(0x2000, 8), le(0, 4), le(0x5a000001, 4), le(0, 4), le(1, 4),
                           le(kBase + 0x4000, 8), le(0x000f, 2), le(0, 2), le(12, 1)})
    body.insert(body.end(), part.begin(), part.end());
  post(IONIC_V1_ADMIN_CREATE_MR, body);
  const MemRegion* mr = res.mrs.find(0x5a000001);
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(mr->va, 0x7f0000001000u);
  EXPECT_EQ(mr->length, 0x2000u);
  EXPECT_EQ(mr->buf.base, kBase + 0x4000);
  post(IONIC_V1_ADMIN_DESTROY_MR, le(0x5a000002, 4));  // no such key: status 1 (a leak)
  const auto c = cqe(1);
  EXPECT_EQ(std::vector<uint8_t>(c.begin() + 24, c.end()),
            (std::vector<uint8_t>{0x01, 0, 0, 0 /* status 1 << 24 */, 0x00, 0x00, 0x00, 0x03 /* ERROR | colour */}));
  EXPECT_EQ(c[2], IONIC_V1_ADMIN_DESTROY_MR);
  EXPECT_EQ(c[1], 1);  // the slot, be16
}

TEST_F(Admin, AWqeSpansTheStridesItsLengthNeedsAndUnknownOpcodesFail) {
  post(IONIC_V1_ADMIN_NOOP, std::vector<uint8_t>(100, 0));  // ceil((4 + 100) / 64) = 2 strides
  post(0x7f, {});                                          // unknown: status 1
  EXPECT_EQ(events.count("rdma_admin", {{"slot", 0}, {"strides", 2}}), 1u);
  EXPECT_EQ(events.count("rdma_admin", {{"slot", 2}, {"status", 1}}), 1u);
  EXPECT_EQ(cqe(1)[1], 2);  // the second CQE names slot 2
}

}  // namespace
}  // namespace dpusim::ionic
