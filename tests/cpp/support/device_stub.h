// A device below a link in a unit test: a port that keeps every TLP it receives, answers
// config and memory reads (config: 0xC0DE0000 | its number; memory: byte k of the request is
// 0xA0 + k) and writes with completions when asked to, and sends whatever TLP the test builds
// (DMA, MSIs, completions for someone else).
#pragma once

#include <systemc>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "captured.h"
#include "tlm/completer.h"
#include "tlm/port.h"

namespace dpusim::testing {

class DeviceStub {
 public:
  DeviceStub(const std::string& name, pcie::SimContext& ctx, uint16_t number) : port(name.c_str()), ctx_(ctx), number_(number) {
    port.set_receiver([this](pcie::Tlp& t) { receive(t); });
  }

  pcie::Port port;
  std::vector<Captured> received;
  bool answer = true;  // complete the non-posted requests it receives

  // Sends a TLP with header `h` and payload `data` up the link.
  void send(const tlp::Header& h, const std::vector<uint8_t>& data = {}) {
    pcie::Tlp* t = ctx_.pool.alloc(h, h.payload_bytes());
    const size_t n = std::min(data.size(), h.payload_bytes());
    if (n) std::memcpy(pcie::data(*t), data.data(), n);
    port.send(*t);
  }
  std::vector<Captured> of_type(tlp::Type type) const { return testing::of_type(received, type); }

 private:
  void receive(pcie::Tlp& t) {
    received.push_back(capture(t));
    const tlp::Header h = pcie::hdr(t);
    t.release();
    if (!answer || !tlp::is_non_posted(h.type)) return;
    if (tlp::is_config(h.type)) {
      const bool read = h.type == tlp::Type::CfgRd0 || h.type == tlp::Type::CfgRd1;
      port.send(*pcie::make_config_completion(ctx_.pool, h, h.target_id, tlp::CplStatus::SC, read ? 0xc0de0000u | number_ : 0));
    } else if (h.type == tlp::Type::MRd) {
      std::vector<uint8_t> bytes(pcie::request_byte_count(h));
      for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = uint8_t(0xa0 + k);
      pcie::complete_memory_read(ctx_.pool, h, uint16_t(number_), bytes.data(), 256, 64, [this](pcie::Tlp* c) { port.send(*c); });
    }
  }

  pcie::SimContext& ctx_;
  uint16_t number_;
};

}  // namespace dpusim::testing
