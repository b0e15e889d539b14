// Functions sharing one requester (tlm/function_dma.h): each request carries its function's
// Requester ID, a completion is matched by tag and Requester ID, and a function that went
// away (its liveness token false) has its completions consumed without their continuation.
#include <gtest/gtest.h>

#include <systemc>

#include <memory>
#include <optional>
#include <vector>

#include "tlm/completer.h"
#include "tlm/function_dma.h"
#include "tlm/requester.h"
#include "tlm/sim_context.h"

using namespace dpusim::pcie;
using namespace sc_core;
namespace tlp = dpusim::tlp;

namespace {

struct Bench {
  SimContext ctx{1};
  std::vector<tlp::Header> sent;  // what the requester put on its port
  Requester req;
  Bench() : req("req", ctx, [this](Tlp& t) { sent.push_back(hdr(t)); t.release(); return SC_ZERO_TIME; },
                [] { return uint16_t(0x0200); }) {
    ctx.log.open_memory();
  }
  // The completer's answer to sent[i], with `rid` as its Requester ID (the request's, unless a
  // test gives another).
  void complete(size_t i, std::optional<uint16_t> rid = std::nullopt) {
    tlp::Header h = sent[i];
    if (rid) h.requester_id = *rid;
    const uint8_t bytes[4] = {uint8_t(i), 0xab, 0xcd, 0xef};
    req.on_completion(*make_completion(ctx.pool, h, 0x0000, tlp::CplStatus::SC, bytes, 4, 4, uint8_t(h.address & 0x7f)));
  }
};

TEST(FunctionDma, EachFunctionsRequestsCarryItsRequesterIdAndItsCompletionsReachIt) {
  Bench b;
  FunctionDma pf(b.req), vf1(b.req, [] { return uint16_t(0x0201); }), vf2(b.req, [] { return uint16_t(0x0202); });
  std::vector<std::pair<int, uint8_t>> done;
  pf.read(0x1000, 4, [&](Result&& r) { done.emplace_back(0, r.data[0]); });
  vf1.read(0x2000, 4, [&](Result&& r) { done.emplace_back(1, r.data[0]); });
  vf2.read(0x3000, 4, [&](Result&& r) { done.emplace_back(2, r.data[0]); });
  vf2.write(0x4000, reinterpret_cast<const uint8_t*>("\x01\x02\x03\x04"), 4);
  ASSERT_EQ(b.sent.size(), 4u);
  EXPECT_EQ(b.sent[0].requester_id, 0x0200);
  EXPECT_EQ(b.sent[1].requester_id, 0x0201);
  EXPECT_EQ(b.sent[2].requester_id, 0x0202);
  EXPECT_EQ(b.sent[3].type, tlp::Type::MWr);
  EXPECT_EQ(b.sent[3].requester_id, 0x0202);
  // One tag space: three distinct tags.
  EXPECT_NE(b.sent[0].tag, b.sent[1].tag);
  EXPECT_NE(b.sent[1].tag, b.sent[2].tag);
  b.complete(2);
  b.complete(0);
  b.complete(1);
  EXPECT_EQ(done, (std::vector<std::pair<int, uint8_t>>{{2, 2}, {0, 0}, {1, 1}}));
  EXPECT_EQ(b.req.outstanding(), 0u);
}

TEST(FunctionDma, ACompletionWithAnotherFunctionsRequesterIdIsUnexpected) {
  Bench b;
  FunctionDma vf1(b.req, [] { return uint16_t(0x0201); });
  int calls = 0;
  vf1.read(0x2000, 4, [&](Result&& r) { ++calls; });
  b.complete(0, uint16_t(0x0202));  // VF 2's ID with VF 1's tag
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(b.req.outstanding(), 1u);
  EXPECT_NE(b.ctx.log.take_memory().find("\"event\":\"unexpected_completion\""), std::string::npos);
  b.complete(0);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(b.req.outstanding(), 0u);
}

TEST(FunctionDma, AFunctionGoneHasItsCompletionsConsumedWithoutItsContinuation) {
  Bench b;
  auto alive = std::make_shared<bool>(true);
  FunctionDma vf(b.req, [] { return uint16_t(0x0201); }, alive);
  int calls = 0;
  vf.read(0x2000, 4, [&](Result&&) { ++calls; });
  vf.read(0x3000, 4, [&](Result&&) { ++calls; });
  b.complete(0);
  *alive = false;  // its FLR
  b.complete(1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(b.req.outstanding(), 0u);  // the tag is free again
}

}  // namespace
