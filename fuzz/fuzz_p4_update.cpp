// Harness: the table-update record path against a loaded program (tests/data/p4/features.json:
// exact, LPM and ternary tables). Bytes are an UPDATES.json document; each record is applied
// through Engine::update, the single path every control plane uses; then frames run. Every
// bad record is refused with a message; nothing crashes.
// link: dpusim_p4
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/update.h"

namespace {
std::unique_ptr<dpusim::p4::Engine> load() {
  dpusim::p4::LoadError error;
  auto e = dpusim::p4::Engine::load_file(DPUSIM_SOURCE_DIR "/tests/data/p4/features.json", {}, &error);
  if (!e) std::abort();  // the harness's own program must load
  return e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  static std::unique_ptr<Engine> engine = load();
  std::vector<TableUpdate> updates;
  std::string error;
  if (!parse_updates(std::string_view(reinterpret_cast<const char*>(data), size), &updates, &error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  for (const TableUpdate& u : updates) {
    UpdateError uerr;
    if (!engine->update(u, &uerr) && uerr.message.empty()) std::abort();
  }
  // An IPv4 frame through whatever the updates left installed.
  static const uint8_t frame[] = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0, 0, 40, 0, 0, 0, 0,
                                  64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  engine->process(P4_PORT_UPLINK, frame, sizeof frame);
  // Undo what was inserted so the table state does not grow across inputs.
  for (const TableUpdate& u : updates) {
    if (u.type != UpdateType::kInsert) continue;
    TableUpdate del = u;
    del.type = UpdateType::kDelete;
    UpdateError uerr;
    engine->update(del, &uerr);
  }
  return 0;
}
