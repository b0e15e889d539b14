// The direct memory pointers a requester holds in lt mode (tlm/dma.h): the grants the fabric
// gave (IEEE 1666-2011 §11.2.8 DMI, with the DmiRoute extension naming the links a TLP of the
// range would cross), looked up by address, and the time an access of a given shape takes on
// its route, computed once per shape and timing-profile generation.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tlm/dma.h"
#include "tlm/sim_context.h"

namespace dpusim::pcie {

class DmiCache {
 public:
  using GetDmi = std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)>;
  // `get_dmi` asks the fabric for a grant (unset: never granted); it is read at each request,
  // so its owner may set it after this is built.
  DmiCache(SimContext& ctx, const GetDmi& get_dmi) : ctx_(ctx), get_dmi_(get_dmi) {}

  // The segments of [addr, addr + len) in granted memory (segments()), and the route of its
  // first byte; false where any byte is not granted (take the TLP path).
  bool span(uint64_t addr, size_t len, unsigned* route);
  const std::vector<std::pair<uint8_t*, size_t>>& segments() const { return segments_; }
  // Drops the grants overlapping [start, end] (the backward path's invalidate_direct_mem_ptr).
  void invalidate(uint64_t start, uint64_t end);
  void clear();

  // The route's time for a read split at `mrrs`, and for a write split at `mps`.
  uint64_t read_time(unsigned route, uint64_t addr, size_t len, unsigned mrrs);
  DmiRoute::WriteTimes write_time(unsigned route, uint64_t addr, size_t len, unsigned mps);

 private:
  struct Grant {
    uint64_t start = 0, end = 0;  // inclusive, as tlm_dmi gives them
    uint8_t* ptr = nullptr;       // the byte at `start`; null: DMI denied in this range
    unsigned route = 0;           // index in routes_
  };
  // The grant holding `addr`, asking the fabric for one if none is cached; null if denied.
  const Grant* grant_at(uint64_t addr);
  unsigned route_index(const DmiRoute& r);
  // A shape's key: the offset in its page, length, route, split limit, direction and whether
  // the address is above 4 GiB; 0 for shapes too large to key (not memoised).
  uint64_t memo_key(unsigned route, uint64_t addr, size_t len, unsigned limit, bool write);
  // The memoised (read ps | sent, landed) of a shape's key, computed on its first use.
  template <typename Compute>
  const std::pair<uint64_t, uint64_t>& memo_value(uint64_t key, Compute compute);

  SimContext& ctx_;
  const GetDmi& get_dmi_;
  std::map<uint64_t, Grant> grants_;  // by start address
  uint64_t grant_span_ = 0;           // the longest grant's end - start
  static constexpr size_t kHints = 512;
  std::array<const Grant*, kHints> recent_{};  // by 256-byte block: the last grant used there
  std::vector<std::shared_ptr<const DmiRoute>> routes_;  // distinct routes grants came with
  // Looked up by key only, never iterated: its order cannot reach a run.
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> memo_;
  uint64_t memo_generation_ = 0;
  struct MemoSlot {
    uint64_t key = 0;  // 0: empty (no shape's key is 0)
    std::pair<uint64_t, uint64_t> value;
  };
  static constexpr size_t kMemoFront = 256;
  std::array<MemoSlot, kMemoFront> memo_front_{};
  std::vector<std::pair<uint8_t*, size_t>> segments_;  // of the access being served directly
};

}  // namespace dpusim::pcie
