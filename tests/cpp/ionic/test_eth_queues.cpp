// The ionic NIC's Ethernet queues on their own (models/ionic/eth_queues.h), over a fake device
// whose guest memory is a byte window: a transmit descriptor with its scatter-gather list sent
// as one frame, the completion's index and colour per wrap (Linux ionic_if.h: struct
// ionic_txq_desc, ionic_txq_sg_elem, ionic_rxq_desc, ionic_rxq_comp), the received frame in
// its buffer with its length in the completion, the inbox's limit and the too-small buffer as
// counted drops, and a bad descriptor answered with a completion and no frame (rocm-ernic's
// eth_txq_service / eth_rxq_service).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../support/event_record.h"
#include "fake_device_io.h"
#include "ionic/eth_queues.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {
namespace eth_queues_test {

constexpr uint64_t kBase = 0x100000;
// TX queue 0 (4 descriptors, interrupt 3): ring, completion ring, scatter-gather lists.
constexpr uint64_t kTxRing = kBase, kTxCq = kBase + 0x1000, kTxSg = kBase + 0x2000;
// RX queue 0 (4 descriptors, interrupt 4): ring, completion ring; buffers from kBuf.
constexpr uint64_t kRxRing = kBase + 0x3000, kRxCq = kBase + 0x3800, kBuf = kBase + 0x4000;
constexpr uint64_t kNowhere = 0x90000000;  // no guest memory there

std::vector<uint8_t> pattern(size_t n, uint8_t first) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(first + i);
  return v;
}

// A completion as the driver reads it: status 0, comp_index, the RX length, the colour bit.
std::vector<uint8_t> comp(uint16_t index, bool color, uint16_t rx_len = 0) {
  std::vector<uint8_t> c(16, 0);
  put_le16(&c[COMP_INDEX], index);
  put_le16(&c[RXQ_COMP_LEN], rx_len);
  c[COMP_COLOR] = color ? IONIC_COMP_COLOR_MASK : 0;
  return c;
}

struct EthQueuesTest : ::testing::Test {
  pcie::SimContext ctx{1};
  testing::EventRecord events{ctx.log};
  FakeDeviceIo dev{kBase};
  std::vector<std::vector<uint8_t>> sent;
  EthQueues eth{EthQueues::Ports{ctx, "ep0", dev, [this](NicFrame f) { sent.push_back(std::move(f.bytes)); },
                                 [this](uint32_t n) { dev.trace.push_back("credit " + std::to_string(n)); },
                                 [this](uint32_t n) { dev.trace.push_back("irq " + std::to_string(n)); }}};

  Comp init(uint8_t type, uint32_t index, uint16_t intr, uint64_t ring, uint64_t cq, uint64_t sg) {
    QInit q;
    q.type = type;
    q.index = index;
    q.intr_index = intr;
    q.ring_size = 2;  // 4 descriptors
    q.ring_base = ring;
    q.cq_ring_base = cq;
    q.sg_ring_base = sg;
    Comp c{};
    eth.q_init(q, c);
    return c;
  }
  void SetUp() override {
    init(IONIC_QTYPE_TXQ, 0, 3, kTxRing, kTxCq, kTxSg);
    init(IONIC_QTYPE_RXQ, 0, 4, kRxRing, kRxCq, 0);
  }
  // struct ionic_txq_desc in slot `slot`: cmd = addr << 12 | nsge << 8, len.
  void tx_desc(unsigned slot, uint64_t addr, unsigned nsge, uint16_t len, uint64_t ring = kTxRing) {
    uint8_t* d = dev.at(ring + 16 * slot);
    put_le64(d, addr << IONIC_TXQ_DESC_ADDR_SHIFT | uint64_t(nsge) << IONIC_TXQ_DESC_NSGE_SHIFT);
    put_le16(d + TXQ_DESC_LEN, len);
  }
  // struct ionic_txq_sg_elem `i` of the descriptor in `slot`.
  void sg_elem(unsigned slot, unsigned i, uint64_t addr, uint16_t len) {
    uint8_t* e = dev.at(kTxSg + TXQ_SG_DESC_BYTES * slot + TXQ_SG_ELEM_BYTES * i);
    put_le64(e, addr);
    put_le16(e + TXQ_SG_ELEM_LEN, len);
  }
  // struct ionic_rxq_desc in slot `slot`: a buffer of `cap` bytes at `addr`.
  void rx_desc(unsigned slot, uint64_t addr, uint16_t cap) {
    uint8_t* d = dev.at(kRxRing + 16 * slot);
    put_le16(d + RXQ_DESC_LEN, cap);
    put_le64(d + RXQ_DESC_ADDR, addr);
  }
  void put(uint64_t addr, const std::vector<uint8_t>& bytes) { std::copy(bytes.begin(), bytes.end(), dev.at(addr)); }
  std::vector<uint8_t> tx_comp(unsigned slot) { return dev.bytes(kTxCq + 16 * slot, 16); }
  std::vector<uint8_t> rx_comp(unsigned slot) { return dev.bytes(kRxCq + 16 * slot, 16); }
  void receive(std::vector<uint8_t> frame, bool from_wire = false) {
    eth.to_guest(NicFrame{std::move(frame), from_wire ? 1u : 0u, from_wire});
    dev.run();
  }
};

TEST_F(EthQueuesTest, ADescriptorWithScatterGatherIsSentAsOneFrame) {
  // 20 bytes: 6 at the descriptor's address, then 10 and 4 from its list (an empty element
  // between them is skipped).
  const auto head = pattern(6, 0x10), a = pattern(10, 0x40), b = pattern(4, 0x80);
  put(kBuf, head);
  put(kBuf + 0x100, a);
  put(kBuf + 0x200, b);
  tx_desc(0, kBuf, 3, 20);
  sg_elem(0, 0, kBuf + 0x100, 10);
  sg_elem(0, 1, kBuf + 0x300, 0);
  sg_elem(0, 2, kBuf + 0x200, 4);
  eth.ring_tx(0, 1);
  dev.run();
  std::vector<uint8_t> want = head;
  want.insert(want.end(), a.begin(), a.end());
  want.insert(want.end(), b.begin(), b.end());
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], want);
  EXPECT_EQ(tx_comp(0), comp(0, true));
  EXPECT_EQ(dev.trace, (std::vector<std::string>{"write 4096+16", "credit 3", "irq 3"}));
  EXPECT_EQ(eth.counters().tx_frames, 1u);
  EXPECT_EQ(eth.counters().tx_errors, 0u);
  EXPECT_EQ(events.count("tx_frame", {{"qid", 0}, {"index", 0}, {"len", 20}}), 1u);
}

TEST_F(EthQueuesTest, CompletionsCarryTheirIndexAndTheColourFlipsAtTheWrap) {
  for (unsigned i = 0; i < 4; ++i) {
    put(kBuf + 0x100 * i, pattern(60, uint8_t(i)));
    tx_desc(i, kBuf + 0x100 * i, 0, 60);
  }
  eth.ring_tx(0, 2);  // two descriptors in one pass: two completions, one interrupt
  dev.run();
  EXPECT_EQ(dev.trace, (std::vector<std::string>{"write 4096+16", "credit 3", "write 4112+16", "credit 3", "irq 3"}));
  eth.ring_tx(0, 3);
  dev.run();
  eth.ring_tx(0, 4);  // producer 0: the ring wrapped
  dev.run();
  eth.ring_tx(0, 5);  // slot 0 again, its completion in slot 0 with colour 0
  dev.run();
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[4], pattern(60, 0));
  EXPECT_EQ(tx_comp(0), comp(0, false));
  EXPECT_EQ(tx_comp(1), comp(1, true));
  EXPECT_EQ(tx_comp(3), comp(3, true));
  EXPECT_EQ(eth.queue(IONIC_QTYPE_TXQ, 0).head, 1u);
}

TEST_F(EthQueuesTest, BadDescriptorsAreCompletedWithoutAFrame) {
  tx_desc(0, kBuf, 0, IONIC_ETH_FRAME_MAX + 1);  // longer than the device carries
  tx_desc(1, kNowhere, 0, 60);                   // the frame is not in guest memory
  tx_desc(2, kBuf, 9, 60);                       // more scatter-gather elements than 8
  eth.ring_tx(0, 3);
  dev.run();
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(eth.counters().tx_errors, 3u);
  for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(tx_comp(i), comp(uint16_t(i), true)) << i;
  EXPECT_EQ(events.count("tx_error", {{"index", 0}, {"reason", "frame longer than 9600 bytes"}}), 1u);
  EXPECT_EQ(events.count("tx_error", {{"index", 1}, {"reason", "fragment read failed"}}), 1u);
  EXPECT_EQ(events.count("tx_error", {{"index", 2}, {"reason", "more than 8 scatter-gather elements"}}), 1u);
  // A list that covers the whole length leaves no head fragment.
  tx_desc(3, kBuf, 1, 10);
  sg_elem(3, 0, kBuf, 10);
  eth.ring_tx(0, 4);
  dev.run();
  EXPECT_EQ(events.count("tx_error", {{"index", 3}, {"reason", "scatter-gather elements cover the whole frame length"}}), 1u);
  EXPECT_EQ(tx_comp(3), comp(3, true));
  // A ring outside guest memory: the descriptor read fails, the completion is still written.
  init(IONIC_QTYPE_TXQ, 1, 5, kNowhere, kTxCq + 0x100, kTxSg);
  eth.ring_tx(1, 1);
  dev.run();
  EXPECT_EQ(events.count("tx_error", {{"qid", 1}, {"index", 0}, {"reason", "descriptor read failed"}}), 1u);
  EXPECT_EQ(dev.bytes(kTxCq + 0x100, 16), comp(0, true));
  EXPECT_TRUE(sent.empty());
}

TEST_F(EthQueuesTest, AReceivedFrameFillsThePostedBufferWithItsLength) {
  rx_desc(0, kBuf, 64);
  eth.ring_rx(0, 1);
  const auto frame = pattern(42, 0x21);
  receive(frame, true);
  EXPECT_EQ(dev.bytes(kBuf, 42), frame);
  EXPECT_EQ(rx_comp(0), comp(0, true, 42));
  EXPECT_EQ(dev.trace, (std::vector<std::string>{"write 16384+42", "write 14336+16", "credit 4", "irq 4"}));
  EXPECT_EQ(eth.counters().rx_frames, 1u);
  EXPECT_EQ(ctx.checker.frames_received(), 1u);
  EXPECT_EQ(eth.wire_frames(), 0u);
  EXPECT_EQ(events.count("rx_frame", {{"index", 0}, {"len", 42}}), 1u);
}

TEST_F(EthQueuesTest, FramesWaitForABufferAndTheInboxHoldsAtMost256) {
  for (unsigned i = 0; i < 256; ++i) receive(pattern(30, uint8_t(i)), true);
  EXPECT_EQ(eth.wire_frames(), 256u);
  EXPECT_EQ(eth.counters().rx_dropped, 0u);
  receive(pattern(30, 0xee), true);  // no room: counted as dropped
  EXPECT_EQ(eth.counters().rx_dropped, 1u);
  EXPECT_EQ(ctx.checker.frame_drops().at("rx_inbox_full"), 1u);
  EXPECT_EQ(events.count("frame_drop", {{"reason", "rx_inbox_full"}, {"len", 30}}), 1u);
  EXPECT_TRUE(dev.trace.empty());
  // A buffer posted takes the oldest frame.
  rx_desc(0, kBuf, 64);
  eth.ring_rx(0, 1);
  dev.run();
  EXPECT_EQ(dev.bytes(kBuf, 30), pattern(30, 0));
  EXPECT_EQ(rx_comp(0), comp(0, true, 30));
  EXPECT_EQ(eth.wire_frames(), 255u);
}

TEST_F(EthQueuesTest, AFrameLongerThanItsBufferIsDroppedAndTheBufferStaysPosted) {
  rx_desc(0, kBuf, 16);
  eth.ring_rx(0, 1);
  receive(pattern(20, 1), true);
  EXPECT_EQ(eth.counters().rx_dropped, 1u);
  EXPECT_EQ(ctx.checker.frame_drops().at("rx_buffer_too_small"), 1u);
  EXPECT_EQ(events.count("rx_too_big", {{"len", 20}, {"capacity", 16}, {"index", 0}}), 1u);
  EXPECT_TRUE(dev.trace.empty());  // nothing written, no completion, no interrupt
  receive(pattern(10, 7));
  EXPECT_EQ(dev.bytes(kBuf, 10), pattern(10, 7));
  EXPECT_EQ(rx_comp(0), comp(0, true, 10));
  EXPECT_EQ(eth.counters().rx_frames, 1u);
}

TEST_F(EthQueuesTest, AnUnreadableReceiveDescriptorDropsTheFrame) {
  init(IONIC_QTYPE_RXQ, 0, 4, kNowhere, kRxCq, 0);
  eth.ring_rx(0, 1);
  receive(pattern(10, 0), true);
  EXPECT_EQ(eth.counters().rx_dropped, 1u);
  EXPECT_EQ(ctx.checker.frame_drops().at("rx_descriptor_read_failed"), 1u);
  EXPECT_TRUE(dev.trace.empty());
}

TEST_F(EthQueuesTest, AQueueInitOutsideTheTableIsAnsweredAndNotStored) {
  const Comp c = init(5, 2, 0, kTxRing, kTxCq, 0);
  EXPECT_EQ(get_le32(&c[Q_INIT_COMP_HW_INDEX]), 2u);
  EXPECT_EQ(c[Q_INIT_COMP_HW_TYPE], 5u);
  EXPECT_EQ(c[COMP_STATUS], 0u);
  EXPECT_EQ(events.count("q_init_ignored", {{"type", 5}, {"index", 2}}), 1u);
  EXPECT_EQ(events.count("q_init", {{"type", IONIC_QTYPE_TXQ}, {"index", 0}, {"depth", 4}, {"intr", 3}}), 1u);
}

}  // namespace eth_queues_test
}  // namespace dpusim::ionic
