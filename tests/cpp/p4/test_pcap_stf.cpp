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

// The streaming reader over a file several chunks long: every record whole and in order,
// the ones a chunk boundary cuts included.
TEST(Pcap, StreamsRecordsAcrossChunkBoundaries) {
  auto b = header(PCAP_MAGIC_NSEC, true);
  const std::size_t n = 3 * PcapReader::kChunkBytes / 200;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint8_t> data(60 + i % 150);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<std::uint8_t>(i * 7 + k);
    record(b, true, static_cast<std::uint32_t>(i), 5, data);
  }
  std::string path = write_raw("stream.pcap", b);
  PcapReader r;
  std::string err;
  ASSERT_TRUE(r.open(path, &err)) << err;
  PcapView v;
  std::size_t got = 0;
  bool same = true;
  while (r.next(&v, &err) == PcapReader::Next::kRecord) {
    same = same && v.ts_ns == got * 1000000000ull + 5 && v.size == 60 + got % 150;
    for (std::uint32_t k = 0; same && k < v.size; ++k) same = v.data[k] == static_cast<std::uint8_t>(got * 7 + k);
    ++got;
  }
  EXPECT_TRUE(err.empty()) << err;
  EXPECT_EQ(got, n);
  EXPECT_TRUE(same);
  EXPECT_EQ(r.records(), n);
  std::remove(path.c_str());
}

// Damage after good records: the good ones are handed out whole, then the reader stops with
// the file, the damaged record's number and its byte offset.
TEST(Pcap, StopsAtTheDamageNamingRecordAndOffset) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    std::string words;
  };
  std::vector<Case> cases;
  auto good = header(PCAP_MAGIC_USEC, false);
  record(good, false, 1, 0, std::vector<std::uint8_t>(60, 1));  // record 0: bytes 24..99
  auto cut = good;
  record(cut, false, 2, 0, {1, 2, 3, 4});
  cut.resize(cut.size() - 1);
  cases.push_back({cut, "record 1 at byte 100: the file ends inside the frame (3 of its 4 bytes)"});
  auto cut_header = good;
  record(cut_header, false, 2, 0, {1, 2, 3, 4});
  cut_header.resize(100 + 9);
  cases.push_back({cut_header, "record 1 at byte 100: the file ends inside the record header (9 of 16 bytes)"});
  auto long_record = good;  // the header's snap length is 65535
  record(long_record, false, 2, 0, std::vector<std::uint8_t>(65536, 2));
  cases.push_back({long_record, "record 1 at byte 100: captured length 65536 exceeds the file's snap length 65535"});
  for (const Case& c : cases) {
    std::string path = write_raw("damaged.pcap", c.bytes);
    PcapReader r;
    std::string err;
    ASSERT_TRUE(r.open(path, &err)) << err;
    PcapView v;
    ASSERT_EQ(r.next(&v, &err), PcapReader::Next::kRecord) << err;
    EXPECT_EQ(v.size, 60u);
    EXPECT_EQ(r.next(&v, &err), PcapReader::Next::kError);
    EXPECT_EQ(err, path + " " + c.words);
    EXPECT_EQ(r.records(), 1u);
    std::remove(path.c_str());
  }
  auto bad_magic = good;
  bad_magic[0] = 0x12;
  std::string path = write_raw("magic.pcap", bad_magic);
  PcapReader r;
  std::string err;
  EXPECT_FALSE(r.open(path, &err));
  EXPECT_EQ(err, path + ": not a pcap file (magic 0xa1b2c312 at byte 0)");
  std::remove(path.c_str());
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
