// A reduction reads its operands whole, so a destination that is an operand, or overlaps one,
// through the same key or through two keys over the same bytes, gets the exact result. A
// conversion is streamed a chunk at a time (P4 engine guide, "Converting"; docs/rdma.md,
// "Aliasing"): exact within a chunk and whenever the result does not land on the source's unread
// part; otherwise later chunks convert the earlier chunks' results. Expected bytes come from the
// codec's API applied to copies of the original operands, chunk by chunk over a copy of memory
// for the streamed cases.
#include <algorithm>

#include "formats/formats.h"
#include "fp8_stream.h"
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

TEST(AliasingConvert, InPlaceWideningAndNarrowingWithinOneChunkThroughTwoKeysAreExact) {
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

// The device as the guide describes it, over a copy of memory: chunk by chunk of `chunk` source
// bytes, read, convert, write.
std::vector<std::uint8_t> streamed(std::vector<std::uint8_t> mem, std::size_t src_off, std::size_t dst_off, std::size_t bytes,
                                   int src, int dst, std::size_t chunk) {
  std::size_t out = dst_off;
  for (std::size_t s0 = 0; s0 < bytes; s0 += chunk) {
    const std::size_t n = std::min(chunk, bytes - s0);
    const std::vector<std::uint8_t> in(mem.begin() + static_cast<std::ptrdiff_t>(src_off + s0),
                                       mem.begin() + static_cast<std::ptrdiff_t>(src_off + s0 + n));
    std::size_t m = 0;
    EXPECT_EQ(fmt::converted_length(static_cast<std::uint64_t>(src), static_cast<std::uint64_t>(dst), n, &m), fmt::Status::ok);
    EXPECT_EQ(fmt::convert(static_cast<std::uint64_t>(src), static_cast<std::uint64_t>(dst), in.data(), n, mem.data() + out, m),
              fmt::Status::ok);
    out += m;
  }
  return mem;
}

struct StreamedConvert : ::testing::Test {
  static constexpr std::uint64_t kBase = 0x10000;
  std::unique_ptr<Engine> engine = load("fp8_convert.json");
  std::unique_ptr<FlatMemory> mem = memory(kBase, 0x8000);
  RdmaPath path;
  void SetUp() override {
    add(*mem, 1, kBase, 0x8000);  // the source's key
    add(*mem, 2, kBase, 0x8000);  // the same bytes, as the destination
    LoadError err;
    ASSERT_TRUE(path.attach(engine.get(), &err)) << err.message;
  }
  // Converts `bytes` at kBase + src_off into kBase + dst_off and checks memory against the
  // guide's streaming with `chunk`.
  void run(int qp, int src, int dst, std::size_t bytes, std::size_t src_off, std::size_t dst_off, std::size_t chunk) {
    convert_entry(*engine, qp, src, dst);
    poke(*mem, kBase + src_off, pattern(bytes, static_cast<unsigned>(qp)));
    const auto want = streamed(snapshot(*mem), src_off, dst_off, bytes, src, dst, chunk);
    Decision d = path.post_send(write_wr(2, kBase + dst_off, {{kBase + src_off, static_cast<std::uint32_t>(bytes), 1}},
                                         static_cast<std::uint32_t>(qp)),
                                0, *mem);
    ASSERT_EQ(d.action, Action::kDone) << d.message;
    EXPECT_EQ(snapshot(*mem), want);
  }
};

// "fp16 to fp32 into the same address writes two bytes for every one it has read, so the second
// chunk's input is gone before the first is finished": exact for the first chunk, wrong after.
TEST_F(StreamedConvert, WideningInPlaceReadsItsOwnResultsFromTheSecondChunkOn) {
  std::string error;
  ASSERT_TRUE(path.set_convert_chunk_bytes(64, &error)) << error;
  const auto src = pattern(256, 2);
  run(2, 1, 0, 256, 0, 0, 64);  // fp16 -> fp32 in place, 4 chunks
  std::vector<std::uint8_t> exact(512);
  ASSERT_EQ(fmt::convert(1, 0, src.data(), src.size(), exact.data(), exact.size()), fmt::Status::ok);
  const auto got = peek(*mem, kBase, 512);
  EXPECT_TRUE(std::equal(exact.begin(), exact.begin() + 128, got.begin()));  // the first chunk's 64 -> 128 bytes
  EXPECT_FALSE(std::equal(exact.begin() + 128, exact.end(), got.begin() + 128));
}

TEST_F(StreamedConvert, TheDefaultChunkIsOnePage) {
  EXPECT_EQ(path.convert_chunk_bytes(), 4096u);
  run(3, 1, 0, 8192, 0, 0, 4096);  // fp16 -> fp32 in place: two chunks, the second converted from results
}

TEST_F(StreamedConvert, NarrowingInPlaceAndADestinationBehindTheSourceAreExact) {
  std::string error;
  ASSERT_TRUE(path.set_convert_chunk_bytes(64, &error)) << error;
  run(4, 0, 3, 1024, 0, 0, 64);  // fp32 -> fp8_e5m2 in place: every write lands on bytes already read
  const auto src = pattern(512, 5);
  poke(*mem, kBase + 0x1000, src);
  std::vector<std::uint8_t> exact(1024);
  ASSERT_EQ(fmt::convert(1, 0, src.data(), src.size(), exact.data(), exact.size()), fmt::Status::ok);
  convert_entry(*engine, 5, 1, 0);  // fp16 -> fp32 into [0x800, 0xC00), below the source
  ASSERT_EQ(path.post_send(write_wr(2, kBase + 0x800, {{kBase + 0x1000, 512, 1}}, 5), 0, *mem).action, Action::kDone);
  EXPECT_EQ(peek(*mem, kBase + 0x800, 1024), exact);
}

TEST_F(StreamedConvert, ADestinationAheadOfTheSourceCorruptsOnlyWhatItReaches) {
  std::string error;
  ASSERT_TRUE(path.set_convert_chunk_bytes(128, &error)) << error;
  run(6, 1, 0, 1024, 0, 512, 128);  // fp16 -> fp32 from [0, 1024) into [512, 2560)
}

TEST(ConvertChunk, OnlyAWholeElementMultipleUpToTheCeilingIsTaken) {
  RdmaPath path;
  std::string error;
  for (std::size_t bad : {std::size_t{0}, std::size_t{12}, std::size_t{(1u << 20) + 8}}) {
    EXPECT_FALSE(path.set_convert_chunk_bytes(bad, &error));
    EXPECT_EQ(error, "conversion chunk of " + std::to_string(bad) +
                         " bytes: must be a non-zero multiple of 8 bytes up to 1048576 (P4_RDMA_MAX_OPERAND_BYTES)");
  }
  EXPECT_EQ(path.convert_chunk_bytes(), 4096u);
  EXPECT_TRUE(path.set_convert_chunk_bytes(8, &error));
  EXPECT_EQ(path.convert_chunk_bytes(), 8u);
}

TEST(RunsOverlap, ByteRangesOfOneAddressSpace) {
  EXPECT_TRUE(runs_overlap({{0x1000, 0x10}}, {{0x100f, 1}}));
  EXPECT_FALSE(runs_overlap({{0x1000, 0x10}}, {{0x1010, 1}}));
  EXPECT_FALSE(runs_overlap({{0x1000, 0}}, {{0x1000, 8}}));
  EXPECT_TRUE(runs_overlap({{0x0, 4}, {0x5000, 0x1000}}, {{0x2000, 0x10}, {0x5fff, 1}}));
}

}  // namespace
}  // namespace dpusim::p4::rdma::test
