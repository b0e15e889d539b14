// The P4 control surface's parsers (p4ctl_wire.h): every refusal names its field and value.
#include <gtest/gtest.h>

#include <array>

#include "ionic/le_bytes.h"
#include "ionic/p4ctl_wire.h"

using namespace dpusim::ionic;

TEST(P4CtlWire, Scopes) {
  P4Scope s;
  EXPECT_TRUE(p4_scope_from_name("write", &s));
  EXPECT_EQ(s, P4Scope::kWrite);
  EXPECT_FALSE(p4_scope_from_name("Write", &s));
  EXPECT_LT(P4Scope::kRead, P4Scope::kLoad);
  EXPECT_EQ(find_p4ctl_operation(0, P4CTL_OP_PROGRAM_COMMIT)->scope, P4Scope::kLoad);
  EXPECT_EQ(find_p4ctl_operation(1, P4CTL_OP_READ_COUNTERS), nullptr);
  EXPECT_EQ(find_p4ctl_operation(0, 0), nullptr);
}

TEST(P4CtlWire, Rpc) {
  std::array<uint8_t, 64> cmd{};
  cmd[0] = 71;
  cmd[1] = 2;
  put_le16(&cmd[2], P4CTL_RPC_IND_REQ | P4CTL_RPC_IND_RESP);
  put_le32(&cmd[8], 2);
  put_le64(&cmd[28], 0x1000);
  put_le32(&cmd[36], 100);
  put_le64(&cmd[44], 0x2000);
  put_le32(&cmd[52], 200);
  P4RpcCmd c;
  std::string error;
  ASSERT_TRUE(parse_p4_rpc(cmd.data(), &c, &error)) << error;
  EXPECT_EQ(c.claim, 2);
  EXPECT_EQ(c.op, 2u);
  EXPECT_EQ(c.req_sz, 100u);
  EXPECT_EQ(c.resp_pa, 0x2000u);
  cmd[40] = 1;
  EXPECT_FALSE(parse_p4_rpc(cmd.data(), &c, &error));
  EXPECT_EQ(error, "scatter-gather lists are not supported (req_sg_elems 1, resp_sg_elems 0)");
}

TEST(P4CtlWire, UpdatesAreCheckedForPrintableAscii) {
  std::vector<dpusim::p4::TableUpdate> u;
  std::string error;
  ASSERT_TRUE(parse_update_request(
      R"([{"type": "INSERT", "table": "t", "match": [{"field": "k", "value": "1"}], "action": "a", "params": {"p": "2"}}])",
      &u, &error)) << error;
  EXPECT_EQ(u.size(), 1u);
  EXPECT_FALSE(parse_update_request(
      R"([{"type": "INSERT", "table": "t", "match": [{"field": "k", "value": "1"}], "action": "a", "params": {"p\t": "2"}}])",
      &u, &error));
  EXPECT_EQ(error, "update 0: parameter name holds byte 0x09 at offset 1: names and values must be printable ASCII");
}

TEST(P4CtlWire, Chunks) {
  std::string req(8, '\0');
  put_le32(reinterpret_cast<uint8_t*>(&req[0]), 4);
  put_le32(reinterpret_cast<uint8_t*>(&req[4]), 6);
  P4Chunk c;
  std::string error;
  const std::string chunk = req + "ab";  // c.bytes views into it
  EXPECT_TRUE(parse_program_chunk(chunk, &c, &error)) << error;
  EXPECT_EQ(c.bytes, "ab");
  EXPECT_FALSE(parse_program_chunk(req + "abc", &c, &error));
  EXPECT_EQ(error, "chunk of 3 bytes at offset 4 runs past the program's total of 6");
  EXPECT_FALSE(parse_program_chunk("1234", &c, &error));
  uint32_t total = 0;
  EXPECT_FALSE(parse_program_commit("12345", &total, &error));
}

TEST(P4CtlWire, ListsSayWhatFittedAndWhatExists) {
  const std::vector<std::vector<uint8_t>> entries(5, std::vector<uint8_t>(8, 0x11));
  uint32_t written = 0;
  const auto out = encode_list(entries, 16 + 8 * 3 + 7, &written);
  EXPECT_EQ(written, 3u);
  EXPECT_EQ(out.size(), 16u + 24u);
  EXPECT_EQ(get_le32(&out[4]), 3u);
  EXPECT_EQ(get_le32(&out[8]), 5u);
}
