// The RDMA requester and responder on their own (models/ionic/rdma_requester.h,
// rdma_responder.h), over a fake device whose guest memory is a byte window, with no P4
// program loaded and the mesh a recorder of the messages they send: a local RDMA_WRITE and SEND
// with their exact bytes and CQEs (Linux ionic_fw.h: struct ionic_v1_wqe, ionic_v1_cqe), a
// protection error before anything moves, a READ to a peer answered or timed out, and a peer's
// requests served as rocm-ernic's dp_handle_wire serves them (rkey 0 refused, a SEND held for a
// receive, an atomic's old value).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/rdma/path.h"
#include "dpusim/p4/rdma/verbs.h"
#include "fake_device_io.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_requester.h"
#include "ionic/rdma_responder.h"

namespace dpusim::ionic {
namespace rdma_datapath_test {

namespace v1 = p4::rdma;

constexpr uint64_t kBase = 0x200000;
constexpr uint64_t kSq = kBase, kRq = kBase + 0x1000;             // QP 5's SQ, QP 6's RQ: 4 x 64 bytes
constexpr uint64_t kSendCq = kBase + 0x2000, kRecvCq = kBase + 0x3000;  // CQ 1 and 2: 8 x 32 bytes
constexpr uint64_t kSrc = kBase + 0x8000, kDst = kBase + 0xA000;  // regions 0x100 and 0x200
constexpr uint64_t kSrcVa = 0x10000000, kDstVa = 0x20000000;
constexpr uint32_t kSrcKey = 0x100, kDstKey = 0x200;

struct Sent {
  unsigned dst;
  std::string kind;
  WireHdr h;
  std::vector<uint8_t> payload;
};

// A 64-byte work request.
struct WqeBytes {
  std::vector<uint8_t> b = std::vector<uint8_t>(64, 0);
  WqeBytes(uint64_t id, uint8_t op, uint16_t flags = IONIC_V1_FLAG_SIG) {
    put_le64(&b[WQE_ID], id);
    b[WQE_OP] = op;
    put_be16(&b[WQE_FLAGS], flags);
  }
  WqeBytes& sge(unsigned i, uint64_t va, uint32_t len, uint32_t lkey) {
    uint8_t* s = &b[WQE_PAYLOAD + i * IONIC_V1_SGE_BYTES];
    put_be64(s, va);
    put_be32(s + 8, len);
    put_be32(s + 12, lkey);
    b[WQE_NUM_SGE_KEY] = uint8_t(i + 1);
    return *this;
  }
  WqeBytes& rdma(uint64_t va, uint32_t rkey, uint32_t len) {
    put_be32(&b[WQE_RDMA_VA_HI], uint32_t(va >> 32));
    put_be32(&b[WQE_RDMA_VA_LO], uint32_t(va));
    put_be32(&b[WQE_RDMA_RKEY], rkey);
    put_be32(&b[WQE_LENGTH], len);
    return *this;
  }
};

std::vector<uint8_t> pattern(size_t n, uint8_t first) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t(first + 3 * i);
  return out;
}

struct Datapath : RdmaPartTest<kBase> {
  p4::rdma::RdmaPath path;
  std::vector<Sent> sent;
  bool peer = false;  // QP 5's destination is another node
  MeshSend send = [this](unsigned dst, const char* kind, std::vector<uint8_t> msg) {
    Sent s{dst, kind, {}, {}};
    std::string why;
    EXPECT_TRUE(decode_wire(msg.data(), msg.size(), &s.h, &why)) << why;
    s.payload.assign(msg.begin() + IONIC_WIRE_HDR_BYTES, msg.end());
    sent.push_back(std::move(s));
  };
  RdmaResponder responder{RdmaResponder::Ports{{ctx, "ep0", dev, res, cq}, send}};
  RdmaRequester requester{RdmaRequester::Ports{{ctx, "ep0", dev, res, cq}, path, responder,
                                               [this](const RdmaQp&) { return peer; }, send}};

  void usable_cq(uint32_t id, uint64_t ring) {
    RdmaCompletions::Cq& c = cq.fresh_cq(id);
    c.buf.base = ring;
    c.depth = 8;
    c.usable = true;
  }
  void SetUp() override {
    usable_cq(1, kSendCq);
    usable_cq(2, kRecvCq);
    RdmaQp& a = res.qps[5];  // RC, sending to QP 6 (or to node 1 when `peer`)
    a.gen = 1;
    a.sq.base = kSq;
    a.sq_depth = 4;
    a.sq_cq = 1;
    a.rq_cq = 2;
    a.dest_valid = true;
    a.dest_qp = 6;
    a.dest_node = 1;
    RdmaQp& b = res.qps[6];  // RC, receiving
    b.gen = 2;
    b.rq.base = kRq;
    b.rq_depth = 4;
    b.sq_cq = 1;
    b.rq_cq = 2;
    ASSERT_TRUE(res.mrs.put(MemRegion{kSrcKey, kSrcVa, 0x1000, 0x0fff, GuestBuf{kSrc, {}, 12, 0}}));
    ASSERT_TRUE(res.mrs.put(MemRegion{kDstKey, kDstVa, 0x1000, 0x0fff, GuestBuf{kDst, {}, 12, 0}}));
  }
  void post_send(unsigned slot, const WqeBytes& w) {
    std::copy(w.b.begin(), w.b.end(), dev.at(kSq + 64 * slot));
    ASSERT_TRUE(requester.ring_sq(5, uint16_t(slot + 1)));
  }
  void post_recv(unsigned slot, const WqeBytes& w) {
    std::copy(w.b.begin(), w.b.end(), dev.at(kRq + 64 * slot));
    ASSERT_TRUE(responder.ring_rq(6, uint16_t(slot + 1)));
  }
  std::vector<uint8_t> cqe(uint64_t ring, unsigned slot) { return dev.bytes(ring + 32 * slot, 32); }
};

// A send CQE by MSN (RC): the MSN at 4, status_length, then qid << 8 | type << 5 | error | colour.
std::vector<uint8_t> msn_cqe(uint32_t msn, uint32_t qid, uint8_t status) {
  std::vector<uint8_t> c(32, 0);
  put_be32(&c[CQE_SEND_MSN], msn);
  put_be32(&c[CQE_STATUS_LENGTH], status);
  put_be32(&c[CQE_QID_TYPE_FLAGS], qid << 8 | IONIC_V1_CQE_TYPE_SEND_MSN << 5 | (status ? IONIC_V1_CQE_ERROR : 0) | 1);
  return c;
}

TEST_F(Datapath, ALocalWriteMovesItsBytesAndCompletesByMsn) {
  const auto data = pattern(24, 1);
  std::copy(data.begin(), data.end(), dev.at(kSrc + 8));
  post_send(0, WqeBytes(0x77, v1::IONIC_V1_OP_RDMA_WRITE).sge(0, kSrcVa + 8, 24, kSrcKey).rdma(kDstVa + 0x40, kDstKey, 24));
  dev.run();
  EXPECT_EQ(dev.bytes(kDst + 0x40, 24), data);
  EXPECT_EQ(cqe(kSendCq, 0), msn_cqe(1, 5, IONIC_STS_OK));
  EXPECT_EQ(requester.counters().wqes, 1u);
  EXPECT_EQ(events.count("rdma_wc", {{"qp", 5}, {"op", "RDMA_WRITE"}, {"wqe_id", 0x77}, {"status", "OK"}}), 1u);
  EXPECT_TRUE(sent.empty());
}

TEST_F(Datapath, ALocalSendLandsInThePostedReceiveWithItsCqe) {
  post_recv(0, WqeBytes(0x99, 0, 0).sge(0, kDstVa, 64, kDstKey));
  const auto data = pattern(40, 9);
  std::copy(data.begin(), data.end(), dev.at(kSrc));
  post_send(0, WqeBytes(0x55, v1::IONIC_V1_OP_SEND).sge(0, kSrcVa, 40, kSrcKey));
  dev.run();
  EXPECT_EQ(dev.bytes(kDst, 40), data);
  std::vector<uint8_t> want(32, 0);
  put_le64(&want[CQE_RECV_WQE_ID], 0x99);
  put_be32(&want[CQE_RECV_SRC_QPN_OP], uint32_t(IONIC_V1_CQE_RECV_OP_SEND) << 24 | 5);
  put_be32(&want[CQE_STATUS_LENGTH], 40);
  put_be32(&want[CQE_QID_TYPE_FLAGS], 6 << 8 | IONIC_V1_CQE_TYPE_RECV << 5 | 1);
  EXPECT_EQ(cqe(kRecvCq, 0), want);
  EXPECT_EQ(cqe(kSendCq, 0), msn_cqe(1, 5, IONIC_STS_OK));
  EXPECT_EQ(responder.bytes_moved(), 40u);
  EXPECT_EQ(events.count("rdma_recv", {{"qp", 6}, {"src_qp", 5}, {"len", 40}, {"status", "OK"}}), 1u);
}

TEST_F(Datapath, AnUnknownLkeyFailsBeforeAnythingMoves) {
  post_send(0, WqeBytes(0x11, v1::IONIC_V1_OP_RDMA_WRITE).sge(0, kSrcVa, 8, 0x999).rdma(kDstVa, kDstKey, 8));
  const size_t writes_before = dev.trace.size();
  dev.run();
  // Only the CQE's two writes (its body, then its colour word).
  EXPECT_EQ(dev.trace.size(), writes_before + 2);
  EXPECT_EQ(cqe(kSendCq, 0), msn_cqe(1, 5, IONIC_STS_LOCAL_PROT_ERR));
  EXPECT_EQ(dev.bytes(kDst, 8), std::vector<uint8_t>(8, 0));
}

TEST_F(Datapath, AReadToAPeerLandsItsResponseAndCompletes) {
  peer = true;
  post_send(0, WqeBytes(0x21, v1::IONIC_V1_OP_RDMA_READ).sge(0, kSrcVa + 0x10, 16, kSrcKey).rdma(0xabc0, 0x4242, 16));
  ASSERT_TRUE(dev.step());  // the WQE: read, checked, sent
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].dst, 1u);
  EXPECT_EQ(sent[0].kind, "READ_REQ");
  EXPECT_EQ(sent[0].h.op, IONIC_WIRE_READ_REQ);
  EXPECT_EQ(sent[0].h.src_qp, 5u);
  EXPECT_EQ(sent[0].h.dst_qp, 6u);
  EXPECT_EQ(sent[0].h.rkey, 0x4242u);
  EXPECT_EQ(sent[0].h.remote_va, 0xabc0u);
  EXPECT_EQ(sent[0].h.length, 16u);
  EXPECT_EQ(requester.trace_pending, 1u);
  WireHdr resp;
  resp.op = IONIC_WIRE_READ_RESP;
  resp.req_id = sent[0].h.req_id;
  const auto data = pattern(16, 0x30);
  requester.answer(resp, data);
  EXPECT_EQ(dev.bytes(kSrc + 0x10, 16), data);
  EXPECT_EQ(cqe(kSendCq, 0), msn_cqe(1, 5, IONIC_STS_OK));
  EXPECT_EQ(requester.trace_pending, 0u);
  dev.run();  // the 30 s timer finds nothing pending
  EXPECT_EQ(events.count("rdma_remote_timeout"), 0u);
}

TEST_F(Datapath, ARequestNobodyAnswersTimesOutRetryExceeded) {
  peer = true;
  post_send(0, WqeBytes(0x22, v1::IONIC_V1_OP_RDMA_WRITE).sge(0, kSrcVa, 8, kSrcKey).rdma(0x1000, 0x4242, 8));
  dev.run();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].payload, std::vector<uint8_t>(8, 0));
  EXPECT_EQ(events.count("rdma_remote_timeout", {{"qp", 5}, {"req", sent[0].h.req_id}}), 1u);
  EXPECT_EQ(cqe(kSendCq, 0), msn_cqe(1, 5, IONIC_STS_RETRY_EXCEEDED));
  // A late answer is ignored.
  WireHdr ack;
  ack.op = IONIC_WIRE_ACK;
  ack.req_id = sent[0].h.req_id;
  requester.answer(ack, {});
  EXPECT_EQ(cqe(kSendCq, 1), std::vector<uint8_t>(32, 0));
}

WireHdr request(uint8_t op, uint32_t rkey, uint64_t va, uint32_t len) {
  WireHdr h;
  h.op = op;
  h.src_qp = 9;
  h.dst_qp = 6;
  h.req_id = 77;
  h.rkey = rkey;
  h.remote_va = va;
  h.length = len;
  return h;
}

TEST_F(Datapath, APeerMayNotNameKeyZero) {
  responder.request(3, request(IONIC_WIRE_WRITE, IONIC_DMA_LKEY, kDst, 4),
                    std::make_shared<std::vector<uint8_t>>(4, 0xff));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].dst, 3u);
  EXPECT_EQ(sent[0].h.op, IONIC_WIRE_ACK);
  EXPECT_EQ(sent[0].h.status, IONIC_STS_REMOTE_ACC_ERR);
  EXPECT_EQ(sent[0].h.req_id, 77u);
  EXPECT_EQ(sent[0].h.src_qp, 6u);
  EXPECT_EQ(sent[0].h.dst_qp, 9u);
  EXPECT_EQ(dev.bytes(kDst, 4), std::vector<uint8_t>(4, 0));
  EXPECT_EQ(events.count("rdma_remote_denied", {{"src", 3}, {"reason", "rkey 0"}}), 1u);
}

TEST_F(Datapath, APeersSendWaitsForAReceiveThenIsAcked) {
  const auto data = pattern(12, 5);
  responder.request(1, request(IONIC_WIRE_SEND, 0, 0, 12), std::make_shared<std::vector<uint8_t>>(data));
  EXPECT_TRUE(sent.empty());  // no receive posted: held
  EXPECT_EQ(events.count("rdma_rnr", {{"qp", 6}, {"outcome", "waiting"}}), 1u);
  post_recv(0, WqeBytes(0x31, 0, 0).sge(0, kDstVa, 64, kDstKey));  // the RQ doorbell retries it
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].h.op, IONIC_WIRE_ACK);
  EXPECT_EQ(sent[0].h.status, IONIC_STS_OK);
  EXPECT_EQ(dev.bytes(kDst, 12), data);
  dev.run();  // the 5 s deadline passes with nothing held
  EXPECT_EQ(sent.size(), 1u);
}

TEST_F(Datapath, APeersSendWithNoReceiveFor5sIsRnrRetryExceeded) {
  responder.request(1, request(IONIC_WIRE_SEND, 0, 0, 4), std::make_shared<std::vector<uint8_t>>(4, 1));
  dev.run();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].h.status, IONIC_STS_RNR_RETRY_EXCEEDED);
  EXPECT_EQ(events.count("rdma_rnr", {{"qp", 6}, {"outcome", "retry exceeded"}}), 1u);
}

TEST_F(Datapath, APeersFetchAddReturnsTheOldValue) {
  put_le64(dev.at(kDst + 8), 5);
  WireHdr h = request(IONIC_WIRE_ATOMIC_REQ, kDstKey, kDstVa + 8, 8);
  h.swap_add = 3;
  responder.request(2, h, std::make_shared<std::vector<uint8_t>>());
  EXPECT_EQ(get_le64(dev.at(kDst + 8)), 8u);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].kind, "ATOMIC_RESP");
  EXPECT_EQ(sent[0].h.status, IONIC_STS_OK);
  EXPECT_EQ(sent[0].payload, (std::vector<uint8_t>{5, 0, 0, 0, 0, 0, 0, 0}));
}

}  // namespace rdma_datapath_test
}  // namespace dpusim::ionic
