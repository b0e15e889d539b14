// Harness: frames through a loaded program (tests/data/p4/features.json with a route, an ACL
// entry and the arithmetic table populated). The first byte picks the ingress port; the rest is
// the frame. Any frame is forwarded within the frame limits or dropped with a reason; runtime
// faults (division by zero, shifts past the width) drop and count, never crash.
// link: dpusim_p4
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/limits.h"
#include "dpusim/p4/update.h"

namespace {
std::unique_ptr<dpusim::p4::Engine> load() {
  using namespace dpusim::p4;
  LoadError error;
  auto e = Engine::load_file(DPUSIM_SOURCE_DIR "/tests/data/p4/features.json", {}, &error);
  if (!e) std::abort();
  std::vector<TableUpdate> updates;
  std::string err;
  const char* entries = R"([
    {"type": "INSERT", "table": "ingress.ipv4_lpm", "match": [{"field": "hdr.ipv4.dstAddr", "value": "0x0a000000", "prefix_len": 8}],
     "action": "ingress.set_port", "params": {"port": "1"}},
    {"type": "INSERT", "table": "ingress.acl", "priority": 10,
     "match": [{"field": "hdr.ipv4.srcAddr", "value": "0x0a000001", "mask": "0xffffffff"}, {"field": "hdr.ipv4.protocol", "value": "6", "mask": "0xff"}],
     "action": "ingress.mark", "params": {}}
  ])";
  if (!parse_updates(entries, &updates, &err)) std::abort();
  for (const TableUpdate& u : updates) {
    UpdateError uerr;
    e->update(u, &uerr);  // a parameter name the program does not use is refused: fine here
  }
  return e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  static std::unique_ptr<Engine> engine = load();
  if (size == 0) return 0;
  const Verdict v = engine->process(data[0] & 1, data + 1, size - 1);
  if (!v.dropped && (v.size > P4_MAX_FRAME_BYTES || v.data == nullptr)) std::abort();
  if (v.dropped && v.reason == DropReason::kNone) std::abort();
  return 0;
}
