// A cycle-level harness for the verilated fp8 unit (Vfp8_unit), without the adapter: the test
// decides every input for every clock edge, so it can stall the sink, leave gaps in the source,
// mix operations beat by beat and reset mid-stream.
//
// The harness's clock drives inputs on the falling edge and samples on the rising edge. At
// every falling edge it calls the test's driver with what the rising edge before it saw (null
// at the start); the driver returns the inputs for the next rising edge, or nothing to stop.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace dpusim::rtl::test {

inline constexpr unsigned kLanes = DPUSIM_RTL_FP8_LANES;
using Lanes = std::array<std::uint32_t, kLanes>;

enum Op : std::uint32_t { kAdd = 0, kSub = 1, kMul = 2, kMin = 3, kMax = 4, kCvt = 5 };

struct Inputs {
  bool rst = false;
  bool s_valid = false;
  std::uint32_t op = 0, fmt = 0, dst_fmt = 0;
  Lanes a{}, b{};
  bool s_last = false;
  bool m_ready = true;
};

// The values just before a rising edge, and so what happened at it.
struct Sample {
  std::uint64_t cycle = 0;  // rising edges so far, this one included
  bool s_valid = false, s_ready = false;  // both: the input beat moved
  bool m_valid = false, m_ready = false;  // both: the output beat moved
  Lanes data{};
  bool m_last = false, m_bad = false;
  bool accepted() const { return s_valid && s_ready; }
  bool produced() const { return m_valid && m_ready; }
};

using Driver = std::function<std::optional<Inputs>(const Sample* last)>;

class UnitHarness {
 public:
  UnitHarness();
  ~UnitHarness();
  // Runs the clock until the driver stops it (call once per process: SystemC elaborates once).
  void run(Driver driver);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One beat of operands.
struct Beat {
  std::uint32_t op = 0, fmt = 0, dst_fmt = 0;
  Lanes a{}, b{};
  unsigned lanes = kLanes;  // lanes that carry elements (the rest are zero padding)
};

struct StreamResult {
  std::vector<Lanes> data;            // one per input beat, in order
  std::vector<std::uint64_t> cycles;  // the rising edge each was taken at
  std::vector<bool> last, bad;
  std::uint64_t total_cycles = 0;
};

// Streams beats through after a two-cycle reset, as fast as the unit takes them (or with the
// sink ready on `ready_percent` of cycles and the source offering a beat on `valid_percent`,
// from a seeded generator), marking the final beat last.
StreamResult stream(const std::vector<Beat>& beats, unsigned ready_percent = 100, unsigned valid_percent = 100,
                    std::uint64_t seed = 1);

}  // namespace dpusim::rtl::test
