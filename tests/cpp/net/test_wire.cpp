// Wire arithmetic (models/net/wire.h): how long a frame occupies the wire. The pcap files the
// wires write come from the P4 engine's writer (tests/cpp/p4/test_pcap_stf.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "net/wire.h"

using namespace dpusim::net;

TEST(Wire, WireTimeOfAFrame) {
  // 60-byte minimum, FCS 4, preamble and gap 20: 84 bytes of a 14-byte frame at 100 Gb/s.
  EXPECT_EQ(frame_wire_ps(14, 100000), 84u * 8 * 10);
  EXPECT_EQ(frame_wire_ps(1514, 10000), (1514u + 24) * 8 * 100);
}
