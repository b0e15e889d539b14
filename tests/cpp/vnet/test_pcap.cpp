// The classic pcap writer (models/net/pcap_writer.h): global header with nanosecond
// timestamps and link type Ethernet, then one record per frame, little-endian.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "pcap_writer.h"
#include "wire.h"

using namespace dpusim::net;

TEST(Pcap, GlobalHeaderAndRecordsAreTheLibpcapLayout) {
  const std::string path = testing::TempDir() + "/dpusim_test.pcap";
  {
    PcapWriter w(path);
    w.write(1234567890123ull, std::vector<uint8_t>{1, 2, 3});  // 1.234567890 s
  }
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<uint8_t> want = {
      0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0,  // global
      1, 0, 0, 0, 0xd2, 0x38, 0xfb, 0x0d, 3, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3};  // record: 234567890 ns
  EXPECT_EQ(b, want);
  std::remove(path.c_str());
}

TEST(Pcap, WireTimeOfAFrame) {
  // 60-byte minimum, FCS 4, preamble and gap 20: 84 bytes of a 14-byte frame at 100 Gb/s.
  EXPECT_EQ(frame_wire_ps(14, 100000), 84u * 8 * 10);
  EXPECT_EQ(frame_wire_ps(1514, 10000), (1514u + 24) * 8 * 100);
}
