// Harness: the platform document parser. Any bytes are either a valid document or refused with
// a DocError naming a JSON path; no other exception, no crash.
// link: dpusim_models
#include <cstdint>
#include <cstdlib>
#include <string>

#include "platform/platform_doc.h"

extern "C" int sc_main(int, char**) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    dpusim::platform::parse_platform_doc(text);
  } catch (const dpusim::platform::DocError& e) {
    if (e.path().empty() || e.path()[0] != '$') std::abort();
  }
  return 0;
}
