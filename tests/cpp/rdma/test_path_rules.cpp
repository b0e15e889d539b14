// Every decline and failure rule of the RDMA path (P4 engine guide, "Status"; docs/rdma.md):
// a request that is not the compute shape is declined and dispatches, unless mark_to_drop ran
// before the call; a compute-shaped but bad request fails with its IBV_WC_* status and writes
// nothing.
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

// Replaces fp8_policy's reduce action's primitives.
Json reduce_body(const Json& prims) {
  return Json::array({{{"op", "replace"}, {"path", "/actions/1/primitives"}, {"value", prims}}});
}
Json apply_call() {
  return {{"op", "_fp8_unit_apply"},
          {"parameters", Json::array({{{"type", "extern"}, {"value", "fp8"}}, {{"type", "runtime_data"}, {"value", 0}},
                                      {{"type", "runtime_data"}, {"value", 1}}})}};
}
Json drop() { return {{"op", "mark_to_drop"}, {"parameters", Json::array({{{"type", "header"}, {"value", "standard_metadata"}}})}}; }

struct Rules : PolicyFixture {
  void SetUp() override { reload("fp8_policy.json"); }
  // Loads a program (fp8_policy: with the add entry) over memory filled with a pattern.
  void reload(const std::string& program, const Json& patch = Json::array()) {
    setup(program, patch);
    if (program == "fp8_policy.json") policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);  // add, fp8_e4m3
    for (std::uint64_t i = 0; i < mem->size(); ++i) {
      const std::uint8_t b = static_cast<std::uint8_t>(i * 7 + 1);
      ASSERT_TRUE(mem->poke(mem->base() + i, &b, 1));
    }
    before = snapshot(*mem);
  }
  // Fails with this status and reason, writes nothing, and names `words`.
  void expect_fail(const SendWr& wr, WcStatus status, FailReason reason, const std::string& words) {
    Decision d = post(wr);
    EXPECT_EQ(d.action, Action::kFail) << d.message;
    EXPECT_EQ(d.status, status) << d.message;
    EXPECT_EQ(d.reason, reason) << d.message;
    EXPECT_NE(d.message.find(words), std::string::npos) << d.message;
    EXPECT_TRUE(d.completes(false));
    EXPECT_EQ(snapshot(*mem), before);
  }
  std::vector<std::uint8_t> before;
};

// --- declines --------------------------------------------------------------------------------

TEST_F(Rules, AOneSgeWriteIsDeclinedAndDispatches) {
  Decision d = post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}}));
  EXPECT_EQ(d.action, Action::kDispatch);
  EXPECT_EQ(path->stats().declined, 1u);
  EXPECT_EQ(snapshot(*mem), before);
  EXPECT_TRUE(lines.empty());
}

TEST_F(Rules, OtherShapesAreDeclinedAndDispatch) {
  SendWr three = write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 16, kB}, {kBAddr, 16, kB}});
  SendWr none = write_wr(kDst, kDstAddr, {});
  SendWr unequal = write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 17, kB}});
  // Not an RDMA write: a send, or a write with immediate, however many SGEs.
  SendWr imm = reduce_wr(16);
  imm.opcode = IONIC_V1_OP_RDMA_WRITE_IMM;
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE_IMM, 0, 3);
  for (const SendWr* wr : {&three, &none, &unequal, &imm}) {
    EXPECT_EQ(post(*wr).action, Action::kDispatch);
  }
  EXPECT_EQ(path->stats().declined, 4u);
  EXPECT_EQ(snapshot(*mem), before);
  // Even a bad key does not matter to a request the extern declines.
  EXPECT_EQ(post(write_wr(0xdead, 0, {{0, 16, 0xbeef}})).action, Action::kDispatch);
}

TEST_F(Rules, ADeclineAfterMarkToDropIsADenial) {
  reload("fp8_policy.json", reduce_body(Json::array({drop(), apply_call()})));
  Decision d = post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}}), 7);
  EXPECT_EQ(d.action, Action::kDeny);
  EXPECT_EQ(d.status, WcStatus::IBV_WC_LOC_QP_OP_ERR);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, 7u);
  // The compute shape under the same action is done: the drop goes with the extern's work.
  EXPECT_EQ(post(reduce_wr(16)).action, Action::kDone);
}

TEST_F(Rules, ADeclineStopsThePipelineSoLaterDecisionsDoNotRun) {
  // apply; then egress_spec = 511 by assignment: never reached when the call declines.
  Json assign = {{"op", "assign"},
                 {"parameters", Json::array({{{"type", "field"}, {"value", Json::array({"standard_metadata", "egress_spec"})}},
                                             {{"type", "hexstr"}, {"value", "0x01ff"}}})}};
  reload("fp8_policy.json", reduce_body(Json::array({apply_call(), assign})));
  EXPECT_EQ(post(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}})).action, Action::kDispatch);
  EXPECT_EQ(post(reduce_wr(16)).action, Action::kDone);  // an assignment of 511 is a drop too
}

// --- failures: IBV_WC_LOC_PROT_ERR -------------------------------------------------------------

TEST_F(Rules, AnUnregisteredLkeyFailsWithLocProtErr) {
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 16, 0x999}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kUnregisteredKey, "sge[1] lkey 0x00000999 is not registered");
}

TEST_F(Rules, AnUnregisteredRkeyFailsWithLocProtErr) {
  expect_fail(write_wr(0x999, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kUnregisteredKey, "rkey 0x00000999 (the destination) is not registered");
}

TEST_F(Rules, ASourceOutsideItsRegionFailsWithLocProtErr) {
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr + 0xff8, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kOutOfRegion, "sge[0] lkey 0x00000100 range [0x10ff8, +16) is outside its region [0x10000, +4096)");
  // Under the region's start, and an address whose end wraps past 2^64.
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr, 16, kA}, {kBAddr - 1, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kOutOfRegion, "sge[1] lkey 0x00000200 range [0x10fff, +16)");
  expect_fail(write_wr(kDst, kDstAddr, {{UINT64_MAX - 7, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kOutOfRegion, "sge[0]");
}

TEST_F(Rules, ADestinationOutsideItsRegionFailsWithLocProtErr) {
  expect_fail(write_wr(kDst, kDstAddr + 0xff1, {{kAAddr, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kOutOfRegion, "rkey 0x00000300 range [0x12ff1, +16) (the result) is outside its region [0x12000, +4096)");
}

TEST_F(Rules, APeersLkeyFailsWithLocProtErr) {
  add(*mem, 0x400, 0x900000, 0x1000, IB_ACCESS_REMOTE_WRITE, RegionOwner::kPeer);
  expect_fail(write_wr(kDst, kDstAddr, {{0x900000, 16, 0x400}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kNotLocalKey, "sge[0] lkey 0x00000400 belongs to a peer node");
}

TEST_F(Rules, ADestinationWithoutRemoteWriteFailsWithLocProtErr) {
  add(*mem, 0x500, kDstAddr, 0x100, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
  expect_fail(write_wr(0x500, kDstAddr, {{kAAddr, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_PROT_ERR,
              FailReason::kNoRemoteWrite, "rkey 0x00000500 region was registered with access 0x00000005, without IB_ACCESS_REMOTE_WRITE");
}

// --- failures: IBV_WC_LOC_LEN_ERR --------------------------------------------------------------

TEST_F(Rules, AnOperandOverTheCeilingFailsWithLocLenErr) {
  const std::uint32_t over = static_cast<std::uint32_t>(P4_RDMA_MAX_OPERAND_BYTES) + 1;
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr, over, kA}, {kBAddr, over, kB}}), WcStatus::IBV_WC_LOC_LEN_ERR,
              FailReason::kOperandTooLong, "sge[0] length 1048577 is over the fp8 unit's operand ceiling of 1048576 bytes");
}

TEST_F(Rules, AnOperandAtTheCeilingIsAccepted) {
  auto big = memory(0x1000000, 3 * P4_RDMA_MAX_OPERAND_BYTES);
  const std::uint32_t n = static_cast<std::uint32_t>(P4_RDMA_MAX_OPERAND_BYTES);
  add(*big, kA, 0x1000000, n);
  add(*big, kB, 0x1000000 + n, n);
  add(*big, kDst, 0x1000000 + 2 * n, n);
  Decision d = path->post_send(write_wr(kDst, 0x1000000 + 2 * n, {{0x1000000, n, kA}, {0x1000000 + n, n, kB}}), 0, *big);
  EXPECT_EQ(d.action, Action::kDone) << d.message;
}

TEST_F(Rules, AResultOverTheCeilingFailsWithLocLenErr) {
  // fp8_convert: 512 KiB + 1 element of fp8_e4m3 widens to just over 2 MiB of fp32.
  reload("fp8_convert.json");
  convert_entry(*engine, 17, 3, 0);
  const std::uint32_t n = static_cast<std::uint32_t>(P4_RDMA_MAX_OPERAND_BYTES / 4) + 1;
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr, n, kA}}), WcStatus::IBV_WC_LOC_LEN_ERR, FailReason::kOperandTooLong,
              "the fp32 result of 1048580 bytes is over the fp8 unit's operand ceiling of 1048576 bytes");
}

TEST_F(Rules, OperandsThatAreNotWholeElementsFailWithLocLenErr) {
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 0, UpdateType::kModify);  // fp32
  expect_fail(reduce_wr(6), WcStatus::IBV_WC_LOC_LEN_ERR, FailReason::kPartialElement, "fp32 operand of 6 bytes");
}

TEST_F(Rules, AnOddFp4CountFailsWithLocLenErr) {
  // One fp32 element converted to fp4_e2m1 would be half a byte.
  reload("fp8_convert.json");
  convert_entry(*engine, 17, 0, 5);
  expect_fail(write_wr(kDst, kDstAddr, {{kAAddr, 4, kA}}), WcStatus::IBV_WC_LOC_LEN_ERR, FailReason::kOddFp4Count,
              "fp32 operand of 4 bytes");
}

// --- failures: IBV_WC_LOC_QP_OP_ERR ------------------------------------------------------------

TEST_F(Rules, APeersRkeyFailsWithLocQpOpErr) {
  add(*mem, 0x600, 0x900000, 0x1000, IB_ACCESS_REMOTE_WRITE, RegionOwner::kPeer);
  expect_fail(write_wr(0x600, 0x900000, {{kAAddr, 16, kA}, {kBAddr, 16, kB}}), WcStatus::IBV_WC_LOC_QP_OP_ERR,
              FailReason::kPeerRkey, "rkey 0x00000600 belongs to a peer node");
}

TEST_F(Rules, AnExternCallWithoutMarkToDropFailsWithLocQpOpErrAndWritesNothing) {
  reload("fp8_policy.json", reduce_body(Json::array({apply_call()})));
  expect_fail(reduce_wr(16), WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kNoMarkToDrop,
              "the program called fp8_unit but did not mark_to_drop the work request; nothing was written");
}

TEST_F(Rules, AnUnknownOpOrFormatFromTheEntryFailsWithLocQpOpErr) {
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 5, 3, UpdateType::kModify);
  expect_fail(reduce_wr(16), WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kUnknownOp,
              "fp8_unit instance 'fp8' apply(op, fmt): op 0x5 is not an operation (0 add, 1 sub, 2 mul, 3 min, 4 max)");
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 6, UpdateType::kModify);
  expect_fail(reduce_wr(16), WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kUnknownFormat, "fmt 0x6 is not a format (0 to 5)");
}

TEST_F(Rules, ASecondCallAfterTheOperationFailsWithLocQpOpErr) {
  reload("fp8_policy.json", reduce_body(Json::array({apply_call(), apply_call(), drop()})));
  expect_fail(reduce_wr(16), WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kSecondCall,
              "fp8_unit instance 'fp8' was called again after it had done the operation");
}

TEST_F(Rules, AProgramFaultFailsWithLocQpOpErrAndWritesNothing) {
  Json fail = {{"op", "assert"}, {"parameters", Json::array({{{"type", "bool"}, {"value", false}}})}};
  reload("fp8_policy.json", reduce_body(Json::array({apply_call(), fail, drop()})));
  expect_fail(reduce_wr(16), WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kProgramFault,
              "the P4 program faulted: an assert or assume failed");
}

TEST_F(Rules, AQpNumberWiderThan24BitsFailsRatherThanTruncates) {
  SendWr wr = reduce_wr(16);
  wr.qp_num = 0x1000011;  // would truncate to QP 17
  expect_fail(wr, WcStatus::IBV_WC_LOC_QP_OP_ERR, FailReason::kBadQpNum,
              "work request qp_num 0x01000011 is wider than rdma_metadata.qp_num's 24 bits");
}

TEST_F(Rules, ChecksRunInTheDocumentedOrder) {
  // Every check fails at once: the entry's op first, then the length, the lkey, the rkey.
  add(*mem, 0x600, 0x900000, 0x1000, IB_ACCESS_REMOTE_WRITE, RegionOwner::kPeer);
  SendWr bad = write_wr(0x600, 0x900000, {{kAAddr, 6, 0x999}, {kBAddr, 6, 0x999}});
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 9, 0, UpdateType::kModify);
  EXPECT_EQ(post(bad).reason, FailReason::kUnknownOp);
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 0, UpdateType::kModify);
  EXPECT_EQ(post(bad).reason, FailReason::kPartialElement);
  bad.sgl[0].length = bad.sgl[1].length = 8;
  EXPECT_EQ(post(bad).reason, FailReason::kUnregisteredKey);
  bad.sgl[0].lkey = kA;
  bad.sgl[1].lkey = kB;
  EXPECT_EQ(post(bad).reason, FailReason::kPeerRkey);
}

TEST_F(Rules, FailureReasonNamesAreStable) {
  EXPECT_STREQ(fail_reason_name(FailReason::kUnregisteredKey), "unregistered_key");
  EXPECT_STREQ(fail_reason_name(FailReason::kPeerRkey), "peer_rkey");
  EXPECT_STREQ(fail_reason_name(FailReason::kNoMarkToDrop), "no_mark_to_drop");
  EXPECT_STREQ(fail_reason_name(FailReason::kOperandTooLong), "operand_too_long");
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
