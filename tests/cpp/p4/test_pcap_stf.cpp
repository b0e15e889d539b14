// Classic pcap in and out, and the STF runner's comparison rules.
#include <cstdio>
#include <filesystem>

#include "dpusim/p4/pcap.h"
#include "dpusim/p4/stf.h"
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dpusim_p4_" + std::to_string(::getpid()) + "_" + name)).string();
}

void put32(std::vector<std::uint8_t>& b, std::uint32_t v, bool big) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (big ? 24 - 8 * i : 8 * i)));
}

std::string write_raw(const std::string& name, const std::vector<std::uint8_t>& b) {
  std::string path = temp(name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
  return path;
}

std::vector<std::uint8_t> header(std::uint32_t magic, bool big, std::uint32_t linktype = 1) {
  std::vector<std::uint8_t> b;
  put32(b, magic, big);
  put32(b, big ? 0x00020004 : 0x00040002, big);  // version 2.4
  put32(b, 0, big);
  put32(b, 0, big);
  put32(b, 65535, big);
  put32(b, linktype, big);
  return b;
}

void record(std::vector<std::uint8_t>& b, bool big, std::uint32_t sec, std::uint32_t frac, std::vector<std::uint8_t> data,
            std::uint32_t orig = 0) {
  put32(b, sec, big);
  put32(b, frac, big);
  put32(b, static_cast<std::uint32_t>(data.size()), big);
  put32(b, orig ? orig : static_cast<std::uint32_t>(data.size()), big);
  b.insert(b.end(), data.begin(), data.end());
}

TEST(Pcap, ReadsEitherByteOrderInMicroOrNanoseconds) {
  for (bool big : {false, true})
    for (bool ns : {false, true}) {
      auto b = header(ns ? PCAP_MAGIC_NSEC : PCAP_MAGIC_USEC, big);
      record(b, big, 3, 250, {1, 2, 3});
      record(b, big, 4, 0, {});
      std::string path = write_raw("order.pcap", b);
      PcapFile f;
      std::string err;
      ASSERT_TRUE(read_pcap(path, &f, &err)) << err;
      EXPECT_EQ(f.nanosecond, ns);
      ASSERT_EQ(f.records.size(), 2u);
      EXPECT_EQ(f.records[0].ts_ns, 3000000000ull + (ns ? 250u : 250000u));
      EXPECT_EQ(f.records[0].data, bytes({1, 2, 3}));
      EXPECT_TRUE(f.records[1].data.empty());
      std::remove(path.c_str());
    }
}

TEST(Pcap, RefusesWhatItCannotRead) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    const char* words;
  };
  std::vector<Case> cases;
  std::vector<std::uint8_t> ng;
  put32(ng, PCAPNG_MAGIC, false);
  for (int i = 0; i < 6; ++i) put32(ng, 0, false);
  cases.push_back({ng, "'pcapng' is not supported yet"});
  cases.push_back({header(PCAP_MAGIC_USEC, false, 105), "link type 105 is not Ethernet"});
  cases.push_back({{1, 2, 3}, "shorter than a pcap header"});
  auto trunc = header(PCAP_MAGIC_USEC, false);
  record(trunc, false, 0, 0, {1, 2}, 60);
  cases.push_back({trunc, "the capture kept 2 of the frame's 60 bytes"});
  auto cut = header(PCAP_MAGIC_USEC, false);
  record(cut, false, 0, 0, {1, 2, 3, 4});
  cut.resize(cut.size() - 1);
  cases.push_back({cut, "the file ends inside the frame"});
  auto frac = header(PCAP_MAGIC_USEC, false);
  record(frac, false, 0, 1000000, {1});
  cases.push_back({frac, "sub-second timestamp 1000000 is out of range"});
  for (const Case& c : cases) {
    std::string path = write_raw("bad.pcap", c.bytes);
    PcapFile f;
    std::string err;
    EXPECT_FALSE(read_pcap(path, &f, &err));
    EXPECT_NE(err.find(c.words), std::string::npos) << err;
    std::remove(path.c_str());
  }
}

TEST(Pcap, WritesWhatItReads) {
  std::string path = temp("rt.pcap");
  PcapWriter w;
  std::string err;
  ASSERT_TRUE(w.open(path, true, &err));
  ASSERT_TRUE(w.write(1234567890123ull, bytes({9, 8, 7}).data(), 3, &err));
  ASSERT_TRUE(w.close(&err));
  PcapFile f;
  ASSERT_TRUE(read_pcap(path, &f, &err)) << err;
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_EQ(f.records[0].ts_ns, 1234567890123ull);
  EXPECT_EQ(f.records[0].data, bytes({9, 8, 7}));
  std::remove(path.c_str());
}

StfOutcome stf(const std::string& program, const std::string& text) {
  auto e = load_data(program, PortPolicy::kV1Model);
  return run_stf(*e, text);
}

TEST(Stf, ComparesPrefixesWithWildcardsAndExactLengths) {
  // loopback.json sends each frame back out of the port it came in on.
  EXPECT_TRUE(stf("loopback.json", "packet 4 0102030405\nexpect 4 0102\n").passed);  // a prefix
  EXPECT_TRUE(stf("loopback.json", "expect 4 01 ** 0* 04 05 $\npacket 4 0102030405\n").passed);
  StfOutcome o = stf("loopback.json", "packet 4 0102030405\nexpect 4 0102$\n");
  EXPECT_FALSE(o.passed);
  EXPECT_NE(o.message.find("longer than expected"), std::string::npos) << o.message;
  o = stf("loopback.json", "packet 4 0102\nexpect 4 010203\n");
  EXPECT_NE(o.message.find("too short"), std::string::npos) << o.message;
  o = stf("loopback.json", "packet 4 0102\n");
  EXPECT_NE(o.message.find("expected 0 packets on port 4, got 1"), std::string::npos) << o.message;
  o = stf("loopback.json", "expect 4 0102\n");
  EXPECT_NE(o.message.find("expected 1 packets on port 4, got 0"), std::string::npos) << o.message;
  // Expected frames are compared per port, in order; an `expect` with no data stops the
  // checking of its port.
  EXPECT_TRUE(stf("loopback.json", "packet 1 aa\npacket 2 bb\npacket 1 cc\nexpect 2 bb\nexpect 1 aa\nexpect 1 cc\n").passed);
  EXPECT_TRUE(stf("loopback.json", "packet 1 aa\npacket 1 bb\nexpect 1\n").passed);
}

TEST(Stf, AddTranslatesKeysAndPrioritiesAsTheBmv2DriverDoes) {
  // features.json: suffix names for table, keys and action; ternary `*` nibbles become
  // don't-care bits; STF priorities rank higher first.
  const std::string ipv4 = "4500001400000000400600000a000001c0a80105";
  const std::string frame = "0200000000020200000000010800" + ipv4;
  const std::string stf_text =
      "add ipv4_lpm dstAddr:0x******** set_port(port:3)\n"
      "add acl 1 srcAddr:0x0a****** protocol:0x** mark(tos:0x11)\n"
      "add acl 2 srcAddr:0x0a0000** protocol:0x06 mark(tos:0x22)\n"
      "packet 1 " + frame + "\n"
      "expect 3 0200000000020200000000010800 4522\n";
  StfOutcome o = stf("features.json", stf_text);
  EXPECT_TRUE(o.passed) << o.message;
  EXPECT_EQ(o.entries, 3u);
  o = stf("features.json", "add acl 1 srcAddr:10 protocol:0x06 mark(tos:0x22)\n");
  EXPECT_NE(o.message.find("decimal value 10 not supported for ternary key"), std::string::npos) << o.message;
  o = stf("features.json", "add nope 1 mark(tos:0x22)\n");
  EXPECT_NE(o.message.find("could not find table nope"), std::string::npos) << o.message;
}

}  // namespace
}  // namespace dpusim::p4::test
