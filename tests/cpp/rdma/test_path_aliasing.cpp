// Sources are staged whole, so a destination that is a source, or overlaps one, through the
// same key or through two keys over the same bytes, gets the exact result (docs/rdma.md, "Aliasing: sources are staged":
// the guide leaves this unchecked and corrupting). Expected bytes come from the codec's API
// applied to copies of the original operands.
#include "formats/formats.h"
#include "rdma_test_util.h"

namespace dpusim::p4::rdma::test {
namespace {

namespace fmt = dpusim::formats;

std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = seed;
  for (auto& b : v) {
    x = x * 1103515245u + 12345u;  // fixed sequence, not randomness: the test's own data
    b = static_cast<std::uint8_t>(x >> 16);
  }
  return v;
}

struct Aliasing : PolicyFixture {
  static constexpr std::uint32_t kAlias = 0x700;  // a second key over kA's bytes
  void SetUp() override {
    PolicyFixture::SetUp();
    add(*mem, kAlias, kAAddr, 0x1000);
    policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, 3);
  }
  std::vector<std::uint8_t> expect_apply(fmt::Op op, fmt::Format f, const std::vector<std::uint8_t>& a,
                                         const std::vector<std::uint8_t>& b) {
    std::vector<std::uint8_t> out(a.size());
    EXPECT_EQ(fmt::apply(op, f, a.data(), a.size(), b.data(), b.size(), out.data(), out.size()), fmt::Status::ok);
    return out;
  }
};

TEST_F(Aliasing, InPlaceReductionThroughASecondKeyIsExact) {
  for (int f : {0, 1, 2, 3, 4, 5}) {
    SCOPED_TRACE(fmt::format_name(static_cast<fmt::Format>(f)));
    policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 0, f, UpdateType::kModify);
    const auto a = pattern(512, 1 + f), b = pattern(512, 100 + f);
    poke(*mem, kAAddr, a);
    poke(*mem, kBAddr, b);
    // a += b: sge[0] is kA's buffer, the destination is the same bytes under kAlias.
    Decision d = post(write_wr(kAlias, kAAddr, {{kAAddr, 512, kA}, {kBAddr, 512, kB}}));
    ASSERT_EQ(d.action, Action::kDone) << d.message;
    EXPECT_EQ(peek(*mem, kAAddr, 512), expect_apply(fmt::Op::add, static_cast<fmt::Format>(f), a, b));
    EXPECT_EQ(peek(*mem, kBAddr, 512), b);
  }
}

TEST_F(Aliasing, InPlaceIntoTheSecondOperandAndThroughTheSameKey) {
  const auto a = pattern(256, 7), b = pattern(256, 8);
  poke(*mem, kAAddr, a);
  poke(*mem, kBAddr, b);
  add(*mem, 0x800, kBAddr, 0x1000);  // b's bytes under a writable key
  ASSERT_EQ(post(write_wr(0x800, kBAddr, {{kAAddr, 256, kA}, {kBAddr, 256, kB}})).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kBAddr, 256), expect_apply(fmt::Op::add, fmt::Format::fp8_e4m3, a, b));
  // The same key as lkey and rkey (kA is registered with remote write).
  const auto b2 = peek(*mem, kBAddr, 256);
  ASSERT_EQ(post(write_wr(kA, kAAddr, {{kAAddr, 256, kA}, {kBAddr, 256, kB}})).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kAAddr, 256), expect_apply(fmt::Op::add, fmt::Format::fp8_e4m3, a, b2));
}

TEST_F(Aliasing, BothOperandsTheSameBuffer) {
  const auto a = pattern(128, 9);
  poke(*mem, kAAddr, a);
  ASSERT_EQ(post(write_wr(kAlias, kAAddr, {{kAAddr, 128, kA}, {kAAddr, 128, kAlias}})).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kAAddr, 128), expect_apply(fmt::Op::add, fmt::Format::fp8_e4m3, a, a));
}

TEST_F(Aliasing, APartlyOverlappingDestinationGetsTheExactResultAndNothingElseChanges) {
  policy_entry(*engine, IONIC_V1_OP_RDMA_WRITE, 2, 1, UpdateType::kModify);  // mul, fp16
  const auto a = pattern(256, 11), b = pattern(256, 12);
  for (std::uint64_t shift : {2u, 128u, 254u}) {
    SCOPED_TRACE(shift);
    poke(*mem, kAAddr, a);
    poke(*mem, kBAddr, b);
    const auto before = snapshot(*mem);
    ASSERT_EQ(post(write_wr(kAlias, kAAddr + shift, {{kAAddr, 256, kA}, {kBAddr, 256, kB}})).action, Action::kDone);
    auto want = before;
    const auto r = expect_apply(fmt::Op::mul, fmt::Format::fp16, a, b);
    std::copy(r.begin(), r.end(), want.begin() + static_cast<std::ptrdiff_t>(kAAddr + shift - mem->base()));
    EXPECT_EQ(snapshot(*mem), want);
  }
}

TEST(AliasingConvert, InPlaceWideningAndNarrowingThroughTwoKeysAreExact) {
  auto engine = load("fp8_convert.json");
  auto mem = memory(0x10000, 0x4000);
  add(*mem, 1, 0x10000, 0x2000);  // the source's key
  add(*mem, 2, 0x10000, 0x2000);  // the same bytes, as the destination
  RdmaPath path;
  LoadError err;
  ASSERT_TRUE(path.attach(engine.get(), &err));
  const struct {
    int src, dst;
    std::size_t bytes;
  } cases[] = {{1, 0, 512}, {3, 0, 256}, {5, 0, 128}, {0, 3, 1024}, {0, 5, 1024}, {2, 1, 512}, {4, 3, 256}};
  std::uint32_t qp = 1;
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.src) + " -> " + std::to_string(c.dst));
    ++qp;
    convert_entry(*engine, static_cast<int>(qp), c.src, c.dst);
    const auto src = pattern(c.bytes, qp);
    poke(*mem, 0x10000, src);
    std::size_t out_bytes = 0;
    ASSERT_EQ(fmt::converted_length(static_cast<std::uint64_t>(c.src), static_cast<std::uint64_t>(c.dst), c.bytes, &out_bytes),
              fmt::Status::ok);
    std::vector<std::uint8_t> want(out_bytes);
    ASSERT_EQ(fmt::convert(static_cast<std::uint64_t>(c.src), static_cast<std::uint64_t>(c.dst), src.data(), src.size(),
                           want.data(), want.size()),
              fmt::Status::ok);
    const auto before = snapshot(*mem);
    Decision d = path.post_send(write_wr(2, 0x10000, {{0x10000, static_cast<std::uint32_t>(c.bytes), 1}}, qp), 0, *mem);
    ASSERT_EQ(d.action, Action::kDone) << d.message;
    // The result, and past it the source's own bytes where the result is shorter.
    auto expect = before;
    std::copy(want.begin(), want.end(), expect.begin());
    EXPECT_EQ(snapshot(*mem), expect);
  }
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
