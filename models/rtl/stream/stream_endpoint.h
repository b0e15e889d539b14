// TlpStreamEndpoint: the hard IP core of a PCIe endpoint function whose application logic is an
// RTL block with TLP streams (docs/cosim.md, "The TLP-stream endpoint adapter"), as an FPGA's
// or an ASIC's integrated PCIe block serves its user logic.
//
// What the core keeps (on the endpoint base, tlm/endpoint_base.h): the function's config space
// (config requests never reach the block), BAR decode, the MSI-X table and PBA, the completion
// timeout of the block's reads. What it streams to the block (rx), one DW a beat on a clock
// (rtl/stream/tlp_beats.h): memory requests that land in the block's BAR regions, after the
// endpoint's service time, and the completions of the block's own reads, in arrival order. What
// it takes from the block (tx): the block's TLPs (read completions, MRd, MWr), which it checks
// and sends through the port in the order they end; and MSI-X requests (irq_valid/irq_ready
// with a vector number), which it turns into messages through the MSI-X table (masking and
// pending bits included), behind the TLPs already sent.
//
// The core checks what the block sends, as a link partner would refuse a malformed TLP: a TLP
// that does not unpack, a request whose requester ID is not the function's, a read over
// Max_Read_Request_Size or a write over Max_Payload_Size (Device Control: over the largest the
// block has been given, since a guest may lower it under a TLP the block has built, which then
// leaves as built, logged `tlp_over_limit`), one crossing a 4 KiB boundary, a read on a tag
// still outstanding, or a type the block may not send, is a broken block: a SystemC error.
// With Bus Master Enable clear a request is not sent (logged `request_blocked`): a write is
// dropped, a read is ended with a UR completion of the core's own.
// A read the host does not complete within cpl_timeout_ps is ended with a Completer Abort
// completion of the core's own (logged `cpl_timeout`, reported to the invariant checker).
//
// The clock (period from the block's TimingParam) is gated as docs/cosim.md describes: it runs
// while the core has beats for the block, the block offers a beat or an interrupt, or the block
// raises `cactive`; otherwise it stops until the core has something for it. A stopped clock's
// first rising edge comes a full period after it restarts. Inputs are driven at the falling
// edge and outputs sampled at the rising edge. Power-on reset: kResetCycles cycles from time 0.
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tlm/endpoint_base.h"

namespace dpusim::rtl {

class TlpStreamEndpoint : public pcie::EndpointBase {
 public:
  static constexpr unsigned kResetCycles = 2;
  // The block issues its own TLPs (its tags, its reads) rather than through the DMA requester,
  // so it has no loosely timed mode (docs/fidelity.md).
  static constexpr const char* kNoLtMode =
      "an RTL block issues its own TLPs, not through the DMA requester: its DMA is TLPs only (docs/fidelity.md)";
  const char* lt_refusal() const override { return kNoLtMode; }
  static constexpr uint64_t kMinClockPs = 2;  // a high and a low phase of a picosecond

  // The block's ports as the core drives them (at a falling edge) ...
  struct Inputs {
    bool rst = true;
    bool rx_valid = false, rx_last = false;
    uint32_t rx_data = 0;
    bool tx_ready = true, irq_ready = true;
    uint16_t cfg_id = 0;
    bool cfg_bus_master = false;
    uint8_t cfg_max_payload = 0, cfg_max_read_req = 0;  // Device Control's encoded fields
  };
  // ... and samples them (before a rising edge, and at a falling edge to gate the clock).
  struct Outputs {
    bool rx_ready = false;
    bool tx_valid = false, tx_last = false;
    uint32_t tx_data = 0;
    bool irq_valid = false;
    unsigned irq_vector = 0;
    bool cactive = false;
  };

  SC_HAS_PROCESS(TlpStreamEndpoint);
  // `clock` names the block's clock period parameter (rtl.<block>.clock_ps), read when built.
  TlpStreamEndpoint(sc_core::sc_module_name name, pcie::SimContext& ctx, pcie::Function& fn,
                    const pcie::TimingParam& service, const pcie::TimingParam& clock);

  const sc_core::sc_time& clock_period() const { return period_; }
  // Every rising edge the clock has had (reset included).
  uint64_t cycles() const { return cycles_; }
  // For tests of the block's flow control: tx_ready is high on the cycles whose number modulo
  // 32 has its bit set in `mask` (all ones by default: the core's transmit side never fills).
  void set_tx_ready_pattern(uint32_t mask) { tx_ready_pattern_ = mask; }

 protected:
  // A BAR region whose memory requests go to the block.
  void add_block_region(const std::string& name, unsigned bar, uint64_t offset, uint64_t size);

  // The binding to the verilated block: its clock, and its other ports.
  virtual void set_clock(bool high) = 0;
  virtual void drive(const Inputs& in) = 0;
  virtual Outputs sample() const = 0;

  void receive_completion(pcie::Tlp& t) override;

 private:
  enum class Phase { kStopped, kLow, kHigh };
  struct Outstanding {
    bool busy = false;
    uint64_t deadline_ps = 0, issued_ps = 0;
    uint32_t owed = 0;       // bytes the host still owes
    uint64_t next_addr = 0;  // address of the next byte owed
  };

  void to_block(const tlp::Header& h, const uint8_t* payload, size_t n);
  void on_clock();
  void rise();
  Inputs inputs() const;
  void from_block(const std::vector<uint32_t>& beats);
  void broken(const std::string& what);
  void end_read(uint8_t tag, tlp::CplStatus status);
  void on_timeout();

  sc_core::sc_time period_, high_, low_;
  Phase phase_ = Phase::kStopped;
  unsigned reset_left_ = kResetCycles;
  uint64_t cycles_ = 0;
  uint32_t tx_ready_pattern_ = ~0u;
  sc_core::sc_event kick_;
  Inputs driven_;                                // what the block sees until the next falling edge
  uint8_t max_payload_seen_ = 0, max_read_req_seen_ = 0;  // the largest encodings it has been driven
  std::deque<std::vector<uint32_t>> rx_;         // TLPs for the block, as beats
  size_t rx_beat_ = 0;                           // beats of rx_.front() taken
  std::vector<uint32_t> tx_;                     // beats of the block's TLP so far
  Outstanding reads_[256];
  std::set<std::pair<uint64_t, uint8_t>> deadlines_;  // (deadline_ps, tag)
  sc_core::sc_event timeout_event_;
};

}  // namespace dpusim::rtl
