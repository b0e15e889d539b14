// The NIC's frame filter slots and the in-band control endpoint (rocm-ernic's
// ionic_eth_emu_register_tx_filter / register_rx_filter, ionic_eth_emu.h).
//
// A slot holds at most one filter; the device offers every frame of its path (guest transmit,
// or wire receive) to the holder first, and a filter that returns true has consumed the frame.
// Taking a slot returns the previous holder, so a newcomer chains to it and a detach hands it
// back. The in-band control endpoint stands for rocm-ernic's S3 control plane, which holds the
// transmit slot and consumes the frames addressed to its MAC: they never reach the wire, nor
// the P4 pipeline that chains behind it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dpusim::ionic {

// A frame inside the device, with what the platform's frame ledger needs: a frame that came
// off a wire is counted received or dropped when the device is done with it.
struct NicFrame {
  std::vector<uint8_t> bytes;
  uint64_t wire_id = 0;    // its id on the wire it came from (0: the guest's)
  bool from_wire = false;
};

using FrameFilter = std::function<bool(NicFrame& frame)>;  // true: consumed

class FilterSlot {
 public:
  // Offers the frame to the holder; false (not consumed) when the slot is empty.
  bool offer(NicFrame& frame) const { return holder_ && holder_(frame); }
  // Installs `f` and returns the filter it displaced (empty if none).
  FrameFilter take(FrameFilter f) {
    FrameFilter old = std::move(holder_);
    holder_ = std::move(f);
    return old;
  }
  bool held() const { return static_cast<bool>(holder_); }

 private:
  FrameFilter holder_;
};

class InbandEndpoint {
 public:
  explicit InbandEndpoint(const std::array<uint8_t, 6>& mac) : mac_(mac) {}
  // Consumes a frame whose destination MAC is the endpoint's.
  bool claim(const NicFrame& frame);
  const std::array<uint8_t, 6>& mac() const { return mac_; }
  uint64_t frames() const { return frames_; }

 private:
  std::array<uint8_t, 6> mac_;
  uint64_t frames_ = 0;
};

// "02:a0:d1:00:00:01"
std::string mac_text(const std::array<uint8_t, 6>& mac);
// Parses "xx:xx:xx:xx:xx:xx" (hex digits, either case); false for anything else.
bool parse_mac(const std::string& text, std::array<uint8_t, 6>* mac);

}  // namespace dpusim::ionic
