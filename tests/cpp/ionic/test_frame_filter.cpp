// The transmit filter chain (P4 engine guide, "The port model"; its harness test
// ionic-harness-p4-port): a frame the slot's earlier holder claims never reaches the pipeline,
// one it declines does, and detaching hands the slot back rather than leaving it empty.
#include <gtest/gtest.h>

#include <vector>

#include "dpusim/p4/rdma/program.h"
#include "ionic/frame_filter.h"
#include "ionic/p4_attachment.h"

using namespace dpusim;
using namespace dpusim::ionic;

namespace {

const std::array<uint8_t, 6> kInband = {0x02, 0, 0, 0, 0xfe, 0x01};

NicFrame frame_to(const std::array<uint8_t, 6>& dst) {
  NicFrame f;
  f.bytes.assign(dst.begin(), dst.end());
  f.bytes.resize(64, 0xab);
  return f;
}

struct Harness {
  FilterSlot tx, rx;
  InbandEndpoint inband{kInband};
  std::vector<NicFrame> guest, uplink;
  std::vector<std::string> drops;
  bool has_uplink = true;

  Harness() {
    tx.take([this](NicFrame& f) { return inband.claim(f); });
  }
  P4Attachment::Hooks hooks() {
    P4Attachment::Hooks h;
    h.defer = [](std::function<void()> fn) { fn(); };
    h.to_guest = [this](NicFrame f) { guest.push_back(std::move(f)); };
    h.to_uplink = [this](NicFrame& f) {
      if (!has_uplink) return false;
      uplink.push_back(std::move(f));
      return true;
    };
    h.dropped = [this](NicFrame&, const char* reason) { drops.push_back(reason); };
    return h;
  }
  std::unique_ptr<p4::Engine> program(const char* name) {
    p4::LoadError error;
    auto e = p4::rdma::load_device_program_file(std::string(DPUSIM_P4_TEST_DATA) + "/" + name, &error);
    EXPECT_TRUE(e) << error.message;
    return e;
  }
};

}  // namespace

TEST(FrameFilter, ClaimedDeclinedAndDetached) {
  Harness h;
  P4Attachment p4(h.tx, h.rx, h.program("loopback.json"), h.hooks());
  NicFrame claimed = frame_to(kInband);
  EXPECT_TRUE(h.tx.offer(claimed));
  EXPECT_EQ(h.inband.frames(), 1u);
  EXPECT_EQ(p4.stats().host_in, 0u);  // never reached the pipeline
  NicFrame declined = frame_to({2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee});
  EXPECT_TRUE(h.tx.offer(declined));
  EXPECT_EQ(p4.stats().host_in, 1u);
  ASSERT_EQ(h.guest.size(), 1u);      // loopback.json: back out of port 0
  p4.detach();
  EXPECT_FALSE(p4.attached());
  ASSERT_TRUE(h.tx.held());           // handed back, not left empty
  NicFrame again = frame_to(kInband);
  EXPECT_TRUE(h.tx.offer(again));
  EXPECT_EQ(h.inband.frames(), 2u);
  NicFrame other = frame_to({2, 1, 2, 3, 4, 5});
  EXPECT_FALSE(h.tx.offer(other));    // the endpoint declines; nothing else holds the slot
  EXPECT_FALSE(h.rx.held());          // the receive slot went back to nobody
  EXPECT_EQ(p4.stats().host_in, 1u);
}

TEST(FrameFilter, UnassignedEgressAndNoUplink) {
  Harness h;
  P4Attachment p4(h.tx, h.rx, h.program("fp8_policy.json"), h.hooks());
  NicFrame a = frame_to({2, 1, 2, 3, 4, 5}), b = frame_to({2, 1, 2, 3, 4, 5});
  h.tx.offer(a);
  EXPECT_EQ(h.uplink.size(), 1u);     // never assigned: the other port
  h.rx.offer(b);
  EXPECT_EQ(h.guest.size(), 1u);
  h.has_uplink = false;
  NicFrame c = frame_to({2, 1, 2, 3, 4, 5});
  h.tx.offer(c);
  EXPECT_EQ(h.drops, std::vector<std::string>{"egress_error"});
  EXPECT_EQ(p4.stats_line(),
            "rocm-ernic: P4 stats: host_in=2 host_out=1 uplink_in=1 uplink_out=2 dropped=0 too_big=0 "
            "parse_errors=0 to_guest=1 to_net=1 to_upstream=0 egress_errors=1");
}

TEST(FrameFilter, ReplacementKeepsCountersAndNoProgramForwards) {
  Harness h;
  P4Attachment p4(h.tx, h.rx, nullptr, h.hooks());
  NicFrame a = frame_to({2, 1, 2, 3, 4, 5});
  h.tx.offer(a);
  EXPECT_EQ(h.uplink.size(), 1u);
  EXPECT_EQ(p4.stats().host_in, 1u);
  EXPECT_EQ(p4.stats().uplink_out, 1u);
  p4.replace(h.program("minimal_forward.json"));
  NicFrame b = frame_to({2, 1, 2, 3, 4, 5});
  h.tx.offer(b);                      // no entry: dropped
  EXPECT_EQ(h.drops, std::vector<std::string>{"ingress_drop"});
  EXPECT_EQ(p4.stats().host_in, 2u);
  EXPECT_EQ(p4.stats().dropped, 1u);
}

TEST(FrameFilter, MacText) {
  std::array<uint8_t, 6> m{};
  EXPECT_TRUE(parse_mac("02:A0:d1:00:00:0f", &m));
  EXPECT_EQ(mac_text(m), "02:a0:d1:00:00:0f");
  for (const char* bad : {"02:a0:d1:00:00", "02-a0-d1-00-00-0f", "02:a0:d1:00:00:0g", "02:a0:d1:00:00:0f:"})
    EXPECT_FALSE(parse_mac(bad, &m)) << bad;
}
