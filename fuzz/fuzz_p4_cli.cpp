// Harness: a simple_switch_CLI commands file (SwitchCli::run) against
// tests/data/p4/v1model_ops.json, a fresh engine each input, then a few frames through
// whatever the commands configured (entries, members and groups, sessions, multicast
// groups, meters, value sets). Any text is run or refused with a message; nothing crashes,
// and every packet out is within the frame limits.
// link: dpusim_p4
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "dpusim/p4/cli.h"
#include "dpusim/p4/engine.h"
#include "dpusim/p4/limits.h"

namespace {
const std::string& program() {
  static const std::string text = [] {
    std::ifstream in(DPUSIM_SOURCE_DIR "/tests/data/p4/v1model_ops.json");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  LoadOptions o;
  o.policy = PortPolicy::kV1Model;
  LoadError error;
  auto engine = Engine::load(program(), o, &error);
  if (!engine) std::abort();
  SwitchCli cli(*engine);
  std::string out, why;
  const bool ok = cli.run(std::string_view(reinterpret_cast<const char*>(data), size), &out, &why);
  if (!ok && why.compare(0, 5, "line ") != 0) std::abort();  // a refusal names its line
  // Ethernet, then the tag header with ops 0..15 (or IPv4 to 10.1.2.3).
  for (int op = 0; op < 16; ++op) {
    std::uint8_t frame[30] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xb5, static_cast<std::uint8_t>(op), 0, 0, 0, 0, 0, 0, 7};
    const RunResult& r = engine->run(static_cast<std::uint32_t>(op), frame, sizeof frame, static_cast<std::uint64_t>(op) * 1000);
    for (const OutputPacket& p : r.outputs)
      if (p.size > P4_MAX_FRAME_BYTES || p.data == nullptr || p.port >= P4_V1MODEL_DROP_PORT) std::abort();
  }
  return 0;
}
