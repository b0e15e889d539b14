// Harness: the ionic P4 control surface's request parsers (models/ionic/p4ctl_wire.h) and what
// they hand the engine. The first 64 bytes are a command (IDENTIFY, RPC and QUERY are each
// parsed from them); the rest is a request payload, read as a table_update request applied to
// minimal_forward.json through Engine::update (and undone), as a program chunk and as a
// commit, then loaded as a program if it parses as a chunk whose bytes are the whole program.
// Every refusal names a reason; an accepted update's names are printable ASCII; nothing
// crashes.
// link: dpusim_ionic
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dpusim/p4/rdma/program.h"
#include "ionic/p4ctl_wire.h"

extern "C" int sc_main(int, char**) { return 0; }

namespace {

using namespace dpusim;
using namespace dpusim::ionic;

std::unique_ptr<p4::Engine> load() {
  p4::LoadError error;
  auto e = p4::rdma::load_device_program_file(DPUSIM_SOURCE_DIR "/tests/data/p4/minimal_forward.json", &error);
  if (!e) std::abort();
  return e;
}

bool printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<p4::Engine> engine = load();
  uint8_t cmd[64] = {};
  std::memcpy(cmd, data, std::min<size_t>(size, 64));
  std::string error;
  P4IdentCmd ident;
  P4QueryCmd query;
  P4RpcCmd rpc;
  if (!parse_p4_ident(cmd, &ident, &error) && error.empty()) std::abort();
  error.clear();
  if (!parse_p4_query(cmd, &query, &error) && error.empty()) std::abort();
  error.clear();
  if (parse_p4_rpc(cmd, &rpc, &error)) {
    if (rpc.claim > 3 || rpc.req_sz > P4CTL_MAX_REQ_BYTES || rpc.resp_sz > P4CTL_MAX_RESP_BYTES) std::abort();
  } else if (error.empty()) {
    std::abort();
  }
  const std::string_view payload =
      size > 64 ? std::string_view(reinterpret_cast<const char*>(data) + 64, size - 64) : std::string_view();
  std::vector<p4::TableUpdate> updates;
  error.clear();
  if (parse_update_request(payload, &updates, &error)) {
    for (const p4::TableUpdate& u : updates) {
      if (!printable(u.table) || !printable(u.action)) std::abort();
      p4::UpdateError ue;
      if (!engine->update(u, &ue) && ue.message.empty()) std::abort();
    }
    for (const p4::TableUpdate& u : updates) {
      if (u.type != p4::UpdateType::kInsert) continue;
      p4::TableUpdate del = u;
      del.type = p4::UpdateType::kDelete;
      p4::UpdateError ue;
      engine->update(del, &ue);
    }
  } else if (error.empty()) {
    std::abort();
  }
  P4Chunk chunk;
  error.clear();
  if (parse_program_chunk(payload, &chunk, &error)) {
    if (chunk.offset > chunk.total || chunk.bytes.size() > chunk.total - chunk.offset) std::abort();
    if (chunk.offset == 0 && chunk.bytes.size() == chunk.total) {
      p4::LoadError le;
      if (!p4::rdma::load_device_program(chunk.bytes, &le) && le.message.empty()) std::abort();
    }
  } else if (error.empty()) {
    std::abort();
  }
  uint32_t total = 0;
  error.clear();
  if (!parse_program_commit(payload, &total, &error) && error.empty()) std::abort();
  return 0;
}
