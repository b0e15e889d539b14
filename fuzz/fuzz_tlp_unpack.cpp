// Harness: TLP header unpack (RTL co-simulation feeds raw headers). Any bytes either unpack to a
// header that packs back to the same bytes and unpacks to the same header, or are refused with
// a message; nothing crashes.
// link: dpusim_tlm
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tlm/tlp.h"

extern "C" int sc_main(int, char**) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::tlp;
  Header h;
  std::string error;
  const size_t n = unpack(data, size, h, &error);
  if (n == 0) {
    if (error.empty()) std::abort();  // a refusal must say why
    return 0;
  }
  std::array<uint8_t, kMaxHeaderBytes> packed{};
  const size_t m = pack(h, packed, &error);
  if (m == 0) return 0;  // e.g. a 4DW header for an address below 4 GiB: representable one way only
  Header again;
  if (unpack(packed.data(), m, again, &error) != m) std::abort();
  std::array<uint8_t, kMaxHeaderBytes> repacked{};
  if (pack(again, repacked, &error) != m || std::memcmp(packed.data(), repacked.data(), m) != 0) std::abort();
  return 0;
}
