// The host of a unit test: the root complex (models/host) on the host link above the device
// side under test, with a tap on its port that keeps every TLP reaching the host (header,
// payload, arrival time) before the root complex serves it. Host operations return a handle
// that holds their result once they complete.
#pragma once

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

#include "captured.h"
#include "host/root_complex.h"
#include "tlm/link.h"
#include "tlm/timing.h"

namespace dpusim::testing {

struct HostOp {
  bool done = false;
  uint64_t time_ps = 0;
  pcie::Result result;
  uint32_t value() const {  // a read's bytes, little-endian
    uint32_t v = 0;
    for (size_t i = 0; i < result.data.size() && i < 4; ++i) v |= uint32_t(result.data[i]) << (8 * i);
    return v;
  }
};
using Op = std::shared_ptr<HostOp>;

class HostSide {
 public:
  // `below` is the port the host link's lower end binds to (the switch's upstream port).
  HostSide(pcie::SimContext& ctx, pcie::Port& below, const host::HostSpec& spec = {})
      : rc("host", ctx, spec), link("link_host", ctx, pcie::timing::link_host_gen, pcie::timing::link_host_width, [] { return 0; }) {
    link.connect(rc.port, below, -1, -1);
    rc.port.set_arrival_monitor([this](pcie::Tlp& t) {
      received.push_back(capture(t));
      return true;
    });
  }

  Op cfg_read(uint16_t bdf, uint16_t offset, unsigned size = 4) {
    Op op = std::make_shared<HostOp>();
    rc.config_read(bdf, offset, size, done(op));
    return op;
  }
  Op cfg_write(uint16_t bdf, uint16_t offset, unsigned size, uint32_t value) {
    Op op = std::make_shared<HostOp>();
    rc.config_write(bdf, offset, size, value, done(op));
    return op;
  }
  Op mem_read(uint64_t addr, size_t len) {
    Op op = std::make_shared<HostOp>();
    rc.mem_read(addr, len, done(op));
    return op;
  }
  Op mem_write(uint64_t addr, std::vector<uint8_t> bytes) {
    Op op = std::make_shared<HostOp>();
    rc.mem_write(addr, std::move(bytes), done(op));
    return op;
  }
  Op mem_write32(uint64_t addr, uint32_t value) {
    return mem_write(addr, {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)});
  }
  // Any request as given (the root complex fills in its requester ID and a tag).
  Op raw(const tlp::Header& h, std::vector<uint8_t> bytes = {}) {
    Op op = std::make_shared<HostOp>();
    rc.send_raw(h, std::move(bytes), done(op));
    return op;
  }

  // The TLPs of `type` that reached the host, in arrival order.
  std::vector<Captured> of_type(tlp::Type type) const { return testing::of_type(received, type); }

  host::RootComplex rc;
  pcie::Link link;
  std::vector<Captured> received;

 private:
  static pcie::Requester::Done done(const Op& op) {
    return [op](pcie::Result&& r) {
      op->done = true;
      op->time_ps = pcie::SimContext::now_ps();
      op->result = std::move(r);
    };
  }
};

}  // namespace dpusim::testing
