// Helpers shared by the RDMA path's unit tests: the worked examples loaded as the device loads
// them (optionally patched), a flat memory with regions, and work requests.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dpusim/p4/rdma/path.h"

namespace dpusim::p4::rdma::test {

using Json = nlohmann::json;

inline std::string data_path(const std::string& name) { return std::string(DPUSIM_P4_TEST_DATA) + "/" + name; }

inline Json read_json(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// A program of tests/data/p4 with an RFC 6902 patch applied, loaded as the device does.
inline std::unique_ptr<Engine> load(const std::string& name, const Json& patch = Json::array(), LoadError* error = nullptr) {
  LoadError local;
  LoadError* e = error != nullptr ? error : &local;
  auto engine = load_device_program(read_json(name).patch(patch).dump(), e);
  if (error == nullptr) {
    EXPECT_NE(engine, nullptr) << name << ": error[" << load_code_name(e->code) << "]: " << e->message;
  }
  return engine;
}

inline void insert(Engine& e, const std::string& table, std::vector<MatchField> match, const std::string& action,
                   std::vector<std::pair<std::string, std::string>> params, UpdateType type = UpdateType::kInsert) {
  TableUpdate u;
  u.type = type;
  u.table = table;
  u.match = std::move(match);
  u.action = action;
  u.params = std::move(params);
  UpdateError err;
  ASSERT_TRUE(e.update(u, &err)) << err.message;
}

// fp8_policy's one entry: opcode -> reduce(op, fmt).
inline void policy_entry(Engine& e, int opcode, int op, int fmt, UpdateType type = UpdateType::kInsert) {
  MatchField m;
  m.field = "meta.rdma_metadata.opcode";
  m.value = std::to_string(opcode);
  insert(e, "ingress.rdma_policy", {m}, "ingress.reduce", {{"op", std::to_string(op)}, {"fmt", std::to_string(fmt)}}, type);
}

// fp8_convert's entry: (RDMA write, qp) -> convert(src_fmt, dst_fmt).
inline void convert_entry(Engine& e, int qp, int src, int dst) {
  MatchField op, q;
  op.field = "meta.rdma_metadata.opcode";
  op.value = std::to_string(IONIC_V1_OP_RDMA_WRITE);
  q.field = "meta.rdma_metadata.qp_num";
  q.value = std::to_string(qp);
  insert(e, "ingress.convert_policy", {op, q}, "ingress.convert",
         {{"src_fmt", std::to_string(src)}, {"dst_fmt", std::to_string(dst)}});
}

inline std::unique_ptr<FlatMemory> memory(std::uint64_t base = 0x10000, std::size_t size = 0x4000) {
  std::string error;
  auto m = FlatMemory::create(base, size, &error);
  EXPECT_NE(m, nullptr) << error;
  return m;
}

inline void add(FlatMemory& m, std::uint32_t key, std::uint64_t addr, std::uint64_t length,
                std::uint32_t access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE, RegionOwner owner = RegionOwner::kLocal) {
  std::string error;
  ASSERT_TRUE(m.add_region({key, owner, access, addr, length}, &error)) << error;
}

inline std::vector<std::uint8_t> peek(const FlatMemory& m, std::uint64_t addr, std::size_t len) {
  std::vector<std::uint8_t> out(len);
  EXPECT_TRUE(m.peek(addr, out.data(), len));
  return out;
}

inline void poke(FlatMemory& m, std::uint64_t addr, const std::vector<std::uint8_t>& data) {
  ASSERT_TRUE(m.poke(addr, data.data(), data.size()));
}

inline SendWr write_wr(std::uint32_t rkey, std::uint64_t remote_addr, std::vector<Sge> sgl, std::uint32_t qp = 17) {
  SendWr wr;
  wr.opcode = IONIC_V1_OP_RDMA_WRITE;
  wr.qp_num = qp;
  wr.rkey = rkey;
  wr.remote_addr = remote_addr;
  for (const Sge& s : sgl) wr.length += s.length;
  wr.sgl = std::move(sgl);
  return wr;
}

// The whole window, to show a failure wrote nothing.
inline std::vector<std::uint8_t> snapshot(const FlatMemory& m) { return peek(m, m.base(), m.size()); }

}  // namespace dpusim::p4::rdma::test

namespace dpusim::p4::rdma::test {

// fp8_policy loaded and attached, over a 16 KiB window at 0x10000 with three regions:
//   kA 0x100 [0x10000, +0x1000)  first operand (and, as kDst, the destination)
//   kB 0x200 [0x11000, +0x1000)  second operand
//   kDst 0x300 [0x12000, +0x1000) a destination writable from the wire
struct PolicyFixture : ::testing::Test {
  static constexpr std::uint32_t kA = 0x100, kB = 0x200, kDst = 0x300;
  static constexpr std::uint64_t kAAddr = 0x10000, kBAddr = 0x11000, kDstAddr = 0x12000;
  std::vector<std::pair<std::uint64_t, std::string>> lines;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<FlatMemory> mem;
  std::unique_ptr<RdmaPath> path;

  void SetUp() override { setup("fp8_policy.json"); }
  void setup(const std::string& program, const Json& patch = Json::array()) {
    engine = load(program, patch);
    ASSERT_NE(engine, nullptr);
    mem = memory(0x10000, 0x4000);
    add(*mem, kA, kAAddr, 0x1000);
    add(*mem, kB, kBAddr, 0x1000);
    add(*mem, kDst, kDstAddr, 0x1000);
    path = std::make_unique<RdmaPath>([this](std::uint64_t t, const std::string& s) { lines.emplace_back(t, s); });
    LoadError err;
    ASSERT_TRUE(path->attach(engine.get(), &err)) << err.message;
    ASSERT_TRUE(path->has_rdma_program());
  }
  Decision post(const SendWr& wr, std::uint64_t now_ps = 0) { return path->post_send(wr, now_ps, *mem); }
  // A two-operand write of n bytes each into kDst.
  SendWr reduce_wr(std::uint32_t n) { return write_wr(kDst, kDstAddr, {{kAAddr, n, kA}, {kBAddr, n, kB}}); }
};

}  // namespace dpusim::p4::rdma::test
