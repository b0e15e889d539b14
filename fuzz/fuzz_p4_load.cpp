// Harness: the P4 loader, raw bytes as a program. Everything it loads is untrusted: the bytes
// either load (and then run frames without fault) or are refused with a stable code and a
// message; never a crash, hang or sanitizer report.
// link: dpusim_p4
// seeds: tests/data/p4
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  LoadError error;
  auto engine = Engine::load(std::string_view(reinterpret_cast<const char*>(data), size), LoadOptions{}, &error);
  if (!engine) {
    if (error.message.empty()) std::abort();  // a refusal names its reason
    return 0;
  }
  // A program that loads runs: a minimal Ethernet frame and a short one, in on both ports.
  static const uint8_t frame[64] = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45};
  for (uint32_t port : {P4_PORT_HOST, P4_PORT_UPLINK}) {
    Verdict v = engine->process(port, frame, sizeof frame);
    if (!v.dropped && v.size > P4_MAX_FRAME_BYTES) std::abort();
    engine->process(port, frame, 14);
  }
  return 0;
}
