// The downstream ports' MSIs over ACG credits (models/vnet/switch/dsp_msi.h; the DOCA guide's
// asynchronous credit grants): credits cached up to the queue's capacity and flushed, none in
// static mode; each MSI a Memory Write from the port's own ID with the 16-bit message data
// (PCIe r5.0 §6.1.4), 3DW or 4DW by its address; BAD_STATE without host MSI set-up; a slot
// event's MSI that found no credit retried one main-loop period after a credit arrives, and
// abandoned MSI_RETRY_ABANDON_SEC (5 s) after it failed.
#include "vnet_fixture.h"

using namespace dpusim;
using namespace dpusim::testing;

namespace {

vnet::AcgSpec acg(unsigned capacity, unsigned initial, bool refill, std::vector<vnet::AcgGrant> grants = {}) {
  vnet::AcgSpec s;
  s.capacity = capacity;
  s.initial = initial;
  s.refill = refill;
  s.grants = std::move(grants);
  return s;
}

// A hot-plug bench whose DSP0 has its MSI set up and hot-plug interrupts enabled.
struct HotplugBench : VnetBench {
  explicit HotplugBench(const vnet::AcgSpec& credits) : VnetBench(1, 1, 8, credits) {
    enumerate();
    enable_dsp_msi(0, 0xfee00000, 0x41);
    slot_control(0, pci::PCI_EXP_SLTCTL_HPIE | pci::PCI_EXP_SLTCTL_PCC);
    run_for(kMs);
  }
  // The time the plug's slot event wanted its MSI.
  uint64_t plug() {
    app.command("plug 0");
    run_for(kSec);
    return events.line_time("Hotplug: DSP[0] plug");
  }
};

}  // namespace

TEST(DspMsi, AnMsiIsAMemoryWriteFromTheDspWithTheMessageData) {
  VnetBench b(2, 1);
  b.enumerate();
  b.enable_dsp_msi(1, 0xfee00000, 0x4021);
  const size_t m = b.events.mark();
  EXPECT_EQ(b.app.primary().msi().send(1, vnet::kMainThread), nullptr);
  b.run_for(kMs);
  const auto mwr = b.host.of_type(tlp::Type::MWr);
  ASSERT_EQ(mwr.size(), 1u);
  const tlp::Header& h = mwr[0].h;
  EXPECT_EQ(h.requester_id, 0x0108);  // DSP1: primary bus 1, device 1
  EXPECT_EQ(h.address, 0xfee00000u);
  EXPECT_FALSE(h.four_dw());
  EXPECT_EQ(h.length_dw, 1);
  EXPECT_EQ(h.first_be, 0xf);
  EXPECT_EQ(h.last_be, 0);
  EXPECT_EQ(h.tag, 0);
  EXPECT_EQ(mwr[0].data, (std::vector<uint8_t>{0x21, 0x40, 0x00, 0x00}));
  ASSERT_EQ(b.host.rc.msis().size(), 1u);
  EXPECT_EQ(b.host.rc.msis()[0].data, 0x4021u);
  EXPECT_EQ(b.events.lines("vnet.main", m),
            (std::vector<std::string>{"Sending MSI: addr=0xFEE00000, data=0x4021, requester=0x0108",
                                      "TX MemWr TLP: BDF=0108 Addr=00000000fee00000 Data=4021 [", "40000001 ", "0108000f ",
                                      "fee00000 ", "21400000", "] 32bit",
                                      "MSI interrupt sent: bus=0x01 addr=0xFEE00000 data=0x4021 (size: 16)",
                                      "ACG credit queued (16/16)"}));
  // One credit used; firmware's refill (vnet.fw.acg_refill_ps after it) puts it back.
  const auto credit = b.events.find("acg_credit", Json::object(), m);
  ASSERT_EQ(credit.size(), 2u);
  EXPECT_EQ(credit[0]["op"], "used");
  EXPECT_EQ(credit[0]["count"], 15);
  EXPECT_EQ(credit[0]["dsp"], 1);
  EXPECT_EQ(credit[1]["op"], "queued");
  EXPECT_EQ(credit[1]["count"], 16);
}

TEST(DspMsi, AnAddressAbove4GiBTakesA4DwHeader) {
  VnetBench b(1, 1);
  b.ctx.checker.expect("dma_outside_memory", 1);  // nothing is allocated there
  b.enumerate();
  b.enable_dsp_msi(0, 0x123456780ull, 0x7);
  const size_t m = b.events.mark();
  EXPECT_EQ(b.app.primary().msi().send(0, vnet::kMainThread), nullptr);
  b.run_for(kMs);
  const auto mwr = b.host.of_type(tlp::Type::MWr);
  ASSERT_EQ(mwr.size(), 1u);
  EXPECT_TRUE(mwr[0].h.four_dw());
  EXPECT_EQ(mwr[0].h.address, 0x123456780ull);
  EXPECT_EQ(mwr[0].h.requester_id, 0x0100);
  const auto lines = b.events.lines("vnet.main", m);
  EXPECT_EQ(lines, (std::vector<std::string>{"Sending MSI: addr=0x123456780, data=0x7, requester=0x0100",
                                            "TX MemWr TLP: BDF=0100 Addr=0000000123456780 Data=0007 [", "60000001 ", "0100000f ",
                                      "00000001 ", "23456780 ", "07000000", "] 64bit",
                                      "MSI interrupt sent: bus=0x01 addr=0x123456780 data=0x7 (size: 20)",
                                      "ACG credit queued (16/16)"}));
}

TEST(DspMsi, WithoutMsiEnabledOrAnAddressItIsBadStateAndUsesNoCredit) {
  VnetBench b(1, 1);
  b.enumerate();
  size_t m = b.events.mark();
  EXPECT_STREQ(b.app.primary().msi().send(0, vnet::kMainThread), "DOCA_ERROR_BAD_STATE");
  EXPECT_EQ(b.events.lines("vnet.main", m), (std::vector<std::string>{"MSI not enabled (Message Control=0x0080)"}));
  b.host.cfg_write(VnetBench::dsp_bdf(0), vnet::TLP_BRIDGE_MSI_CAP + pci::PCI_MSI_FLAGS, 2, 0x0081);
  b.run_for(kMs);
  m = b.events.mark();
  EXPECT_STREQ(b.app.primary().msi().send(0, vnet::kMainThread), "DOCA_ERROR_BAD_STATE");
  EXPECT_EQ(b.events.lines("vnet.main", m), (std::vector<std::string>{"MSI address not configured by Host"}));
  EXPECT_EQ(b.app.acg_credits(), 16u);
  EXPECT_EQ(b.events.count("acg_credit", {{"op", "used"}}), 0u);
}

TEST(DspMsi, CreditsAreCachedUpToTheCapacityTheRestFlushed) {
  VnetBench b(1, 1, 8, acg(4, 6, false));
  b.run_for(kUs);  // the channel starts: firmware posts its initial credits
  EXPECT_EQ(b.app.acg_credits(), 4u);
  const std::vector<std::string> want{"ACG credit queued (1/4)", "ACG credit queued (2/4)", "ACG credit queued (3/4)",
                                      "ACG credit queued (4/4)", "ACG queue full (4/4), discarding new credit",
                                      "ACG queue full (4/4), discarding new credit"};
  std::vector<std::string> got;
  for (const std::string& line : b.events.lines("vnet.main"))
    if (line.rfind("ACG", 0) == 0) got.push_back(line);
  EXPECT_EQ(got, (std::vector<std::string>{"ACG enabled for MSI interrupts", "ACG queue initialized: capacity=4", want[0], want[1], want[2], want[3], want[4], want[5]}));
  EXPECT_EQ(b.events.count("acg_credit", {{"op", "flush"}, {"count", 4}}), 2u);
  const size_t m = b.events.mark();
  b.app.primary().msi().flush();  // shutdown returns the cached credits
  EXPECT_EQ(b.events.lines("vnet.main", m), (std::vector<std::string>{"Flushed 4 ACG credits"}));
  EXPECT_EQ(b.app.acg_credits(), 0u);
}

TEST(DspMsi, ZeroCapacityMeansNoQueueAndEveryCreditIsReturned) {
  VnetBench b(1, 1, 8, acg(0, 2, false));
  b.run_for(kUs);
  EXPECT_EQ(b.events.line_level("Device reports 0 ACG credits - ACG queue disabled"), "warning");
  EXPECT_EQ(b.events.line_count("ACG queue unavailable (cleanup in progress), discarding credit"), 2u);
  EXPECT_EQ(b.app.acg_credits(), 0u);
}

TEST(DspMsi, StaticModeHasNoCreditsAndCommandCompletedIsNotRetried) {
  VnetBench b(1, 0);
  b.enumerate();
  b.enable_dsp_msi(0, 0xfee00000, 0x41);
  EXPECT_EQ(b.app.acg_credits(), 0u);
  const size_t m = b.events.mark();
  b.slot_control(0, pci::PCI_EXP_SLTCTL_CCIE);  // powered (static mode), CCIE
  b.run_for(kSec);
  EXPECT_EQ(b.events.line_count("No ACG credit available, Host will poll to detect hotplug", m), 1u);
  EXPECT_EQ(b.events.line_count("Failed to send Command Completed MSI: DOCA_ERROR_AGAIN", m), 1u);
  EXPECT_EQ(b.events.count("msi_retry", Json::object(), m), 0u);
  EXPECT_TRUE(b.host.rc.msis().empty());
}

TEST(DspMsi, ASlotEventsMsiIsRetriedOneMainLoopPeriodAfterACreditArrives) {
  HotplugBench b(acg(4, 0, false, {{2 * kSec, 1}}));
  const uint64_t n = b.plug();
  ASSERT_LT(n, 2 * kSec);
  const auto scheduled = b.events.find("msi_retry", {{"op", "scheduled"}});
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0]["time_ps"].get<uint64_t>(), n);
  EXPECT_EQ(b.events.line_time("DSP[0] plug: ACG exhausted, scheduling MSI retry"), n);
  EXPECT_TRUE(b.app.primary().msi().trace_retry[0]);
  EXPECT_TRUE(b.host.rc.msis().empty());
  b.run_to(3 * kSec);
  const uint64_t retry = 2 * kSec + b.param(vnet::timing::main_loop_ps);
  const auto succeeded = b.events.find("msi_retry", {{"op", "succeeded"}});
  ASSERT_EQ(succeeded.size(), 1u);
  EXPECT_EQ(succeeded[0]["time_ps"].get<uint64_t>(), retry);
  EXPECT_EQ(b.events.line_time("DSP[0] MSI retry succeeded"), retry);
  ASSERT_EQ(b.host.rc.msis().size(), 1u);
  EXPECT_EQ(b.host.rc.msis()[0].data, 0x41u);
  EXPECT_FALSE(b.app.primary().msi().trace_retry[0]);
  EXPECT_EQ(b.app.acg_credits(), 0u);
}

TEST(DspMsi, ARetryThatNeverFindsACreditIsAbandonedOnTheAppsFifthWholeSecond) {
  HotplugBench b(acg(4, 0, false, {{20 * kSec, 1}}));
  const uint64_t n = b.plug();
  b.run_to(21 * kSec);
  const auto abandoned = b.events.find("msi_retry", {{"op", "abandoned"}});
  ASSERT_EQ(abandoned.size(), 1u);
  // now.tv_sec - since.tv_sec >= 5: the main loop's first iteration once the application's
  // whole-second clock has counted 5 since the failure (iterations from t = 0).
  const uint64_t at = (n / kSec + 5) * kSec;
  EXPECT_GT(n + 5 * kSec, at);
  EXPECT_EQ(abandoned[0]["time_ps"].get<uint64_t>(), at);
  EXPECT_EQ(b.events.line_time("DSP[0] MSI retry abandoned after 5s - host will poll Slot Status"), at);
  // The credit that comes later finds nothing to retry: it stays cached.
  EXPECT_TRUE(b.host.rc.msis().empty());
  EXPECT_EQ(b.app.acg_credits(), 1u);
  EXPECT_EQ(b.events.count("msi_retry"), 2u);  // scheduled, abandoned
}
