// The memory the RDMA path reaches: a device's registered memory regions and local DMA.
//
// A region is what a guest registered with CREATE_MR (or a peer's key the device learnt): its
// key (lkey and rkey share one table, as on ionic), its owner, its access flags and the guest
// virtual range [addr, addr + length) it covers. Two keys may cover the same bytes; the RDMA
// path never assumes they do not: where a result may land on a source, it asks where both are
// (locate) and overlaps them as the device would.
//
// RdmaMemory is the interface the RDMA path is given: the device's region table and its DMA
// engine. FlatMemory is a whole implementation over one flat guest address window, for tests,
// the Python bindings and the fuzz harness.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dpusim::p4::rdma {

enum class RegionOwner : std::uint8_t { kLocal, kPeer };

struct MemoryRegion {
  std::uint32_t key = 0;
  RegionOwner owner = RegionOwner::kLocal;
  std::uint32_t access = 0;  // IB_ACCESS_* (verbs.h)
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
};

// Whether [addr, addr + len) lies inside the region. By subtraction, so that no sum can wrap
// (a guest can name an address near 2^64): addr >= r.addr, len <= r.length and
// addr - r.addr <= r.length - len.
bool region_covers(const MemoryRegion& r, std::uint64_t addr, std::uint64_t len);

// A stretch of the memory behind a region: `len` bytes at `addr` of the device's one address
// space (the bus, for a device; the window, for FlatMemory).
struct MemoryRun {
  std::uint64_t addr = 0;
  std::uint64_t len = 0;
};

class RdmaMemory {
 public:
  virtual ~RdmaMemory() = default;
  // The region registered under `key`, or null.
  virtual const MemoryRegion* find(std::uint32_t key) const = 0;
  // The region a work request's rkey names (its destination), or null. The same table as
  // find() unless the device keeps another node's keys apart: on a QP whose destination is a
  // peer, the rkey is the peer's, and may equal one of this node's own lkeys.
  virtual const MemoryRegion* find_rkey(std::uint32_t key) const { return find(key); }
  // DMA between guest memory and `data` over [addr, addr + len), which the caller checked lies
  // inside the local `region`. False when the DMA itself fails (the memory behind the
  // region is gone); nothing is then promised about `data` or guest memory.
  virtual bool read(const MemoryRegion& region, std::uint64_t addr, std::uint8_t* data, std::size_t len) = 0;
  virtual bool write(const MemoryRegion& region, std::uint64_t addr, const std::uint8_t* data, std::size_t len) = 0;
  // Where [addr, addr + len) of the local `region` is, in order: the runs whose bytes two
  // keys share when they cover the same memory. The default is one address space in which a
  // region's addresses are where its bytes are. False when the range cannot be resolved.
  virtual bool locate(const MemoryRegion& region, std::uint64_t addr, std::uint64_t len,
                      std::vector<MemoryRun>* out) const;
};

// Guest memory as one window of bytes [base, base + size), zero at first, with a region table.
class FlatMemory : public RdmaMemory {
 public:
  static constexpr std::size_t kMaxBytes = 64u << 20;  // 64 MiB
  // Null, with *error, for a window larger than kMaxBytes or one that would wrap past 2^64.
  static std::unique_ptr<FlatMemory> create(std::uint64_t base, std::size_t size, std::string* error);

  std::uint64_t base() const { return base_; }
  std::size_t size() const { return bytes_.size(); }

  // Registers a region. A local one must lie inside the window (a peer's range is on the peer
  // and is not checked); a key already registered is refused. False with *error naming the
  // key, the range and the rule.
  bool add_region(const MemoryRegion& region, std::string* error);
  // Removes a key; false if it was not registered.
  bool remove_region(std::uint32_t key);
  const std::map<std::uint32_t, MemoryRegion>& regions() const { return regions_; }

  // The window itself, for the test that fills operands and reads results. False outside it.
  bool poke(std::uint64_t addr, const std::uint8_t* data, std::size_t len);
  bool peek(std::uint64_t addr, std::uint8_t* data, std::size_t len) const;

  const MemoryRegion* find(std::uint32_t key) const override;
  bool read(const MemoryRegion& region, std::uint64_t addr, std::uint8_t* data, std::size_t len) override;
  bool write(const MemoryRegion& region, std::uint64_t addr, const std::uint8_t* data, std::size_t len) override;

 private:
  FlatMemory(std::uint64_t base, std::size_t size) : base_(base), bytes_(size, 0) {}
  bool in_window(std::uint64_t addr, std::size_t len) const;
  std::uint64_t base_;
  std::vector<std::uint8_t> bytes_;
  std::map<std::uint32_t, MemoryRegion> regions_;
};

}  // namespace dpusim::p4::rdma
