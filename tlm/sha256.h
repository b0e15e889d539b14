// SHA-256 (FIPS 180-4 §6.2), incremental: the run's identity is the SHA-256 of its event log,
// and with the log off (`--log none`) the log computes the digest of the summary stream itself
// instead of writing it, so Python never sees the bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dpusim::pcie {

class Sha256 {
 public:
  // `cpu_extensions`: use the x86 SHA extensions where the CPU has them (the default; false
  // for tests comparing the two ways, which give the same digest).
  explicit Sha256(bool cpu_extensions = true) : extensions_(cpu_extensions) { reset(); }
  void reset();
  void update(const uint8_t* p, size_t n);
  void update(std::string_view s) { update(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
  // The digest of everything updated so far, as 64 lowercase hex digits (as Python's
  // hashlib.sha256(...).hexdigest() prints it). Does not change the state: more may follow.
  std::string hex() const;

 private:
  void block(const uint8_t* p);
  bool extensions_;
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_;
  size_t buffered_ = 0;
  uint64_t total_ = 0;  // bytes
};

}  // namespace dpusim::pcie
