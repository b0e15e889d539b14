#include "ionic/p4_surface.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "dpusim/p4/rdma/program.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "tlm/hex.h"

namespace dpusim::ionic {

using pcie::hex;

namespace {

Comp status_comp(uint8_t status) {
  Comp c{};
  c[COMP_STATUS] = status;
  return c;
}

std::vector<uint8_t> counter_entry(const char* name, uint64_t value) {
  std::vector<uint8_t> e(P4CTL_COUNTER_ENTRY_BYTES, 0);
  std::memcpy(e.data(), name, std::min<size_t>(std::strlen(name), P4CTL_COUNTER_NAME_BYTES - 1));
  put_le64(&e[P4CTL_COUNTER_NAME_BYTES], value);
  return e;
}

std::vector<uint8_t> text_bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

P4Surface::P4Surface(pcie::SimContext& ctx, std::string path, P4Scope grant, p4::FeaturePolicy features,
                     P4Attachment& p4, pcie::EndpointBase& device)
    : ctx_(ctx),
      path_(std::move(path)),
      grant_(grant),
      features_(features),
      p4_(p4),
      device_(device),
      dma_(device.dma()),
      log_(
          [this](uint64_t, const std::string& line) {
            ctx_.event(path_, "log").str("level", "warning").str("msg", line);
          },
          "rocm-ernic: P4 control refusals") {}

void P4Surface::execute(const uint8_t* cmd, Done done) {
  log_.flush(ctx_.local_ps());
  switch (cmd[0]) {
    case IONIC_CMD_P4_IDENTIFY: return identify(cmd, std::move(done));
    case IONIC_CMD_P4_QUERY: return query(cmd, std::move(done));
    default: return rpc(cmd, std::move(done));
  }
}

void P4Surface::refuse(uint8_t opcode, uint8_t status, const std::string& why, Done done, uint32_t err,
                       const P4RpcCmd* c, const std::string& resp_text) {
  ++refusals_;
  ctx_.event(path_, "p4_refused").str("cmd", ionic_opcode_name(opcode)).str("status", ionic_status_name(status))
      .str("reason", why);
  log_.denied(ctx_.local_ps(), std::string("rocm-ernic: P4 control refused ") + ionic_opcode_name(opcode) + " (" +
                                 ionic_status_name(status) + "): " + why);
  if (c) return respond(*c, status, err, text_bytes(resp_text), std::move(done));
  done(status_comp(status));
}

void P4Surface::write_guest(uint64_t addr, const std::vector<uint8_t>& bytes, uint32_t capacity) {
  const size_t n = std::min<size_t>(bytes.size(), capacity);
  if (n) dma_.write(addr, bytes.data(), n);
}

// ---- IDENTIFY (70) -------------------------------------------------------------------------

void P4Surface::identify(const uint8_t* cmd, Done done) {
  P4IdentCmd c;
  std::string error;
  if (!parse_p4_ident(cmd, &c, &error)) return refuse(cmd[0], IONIC_RC_EINVAL, error, std::move(done));
  std::vector<uint8_t> ident(P4CTL_IDENT_BYTES, 0);
  put_le64(&ident[0], 0);  // features: none defined yet
  ident[8] = P4CTL_VERSION;
  put_le32(&ident[12], P4CTL_MAX_REQ_BYTES);
  put_le32(&ident[16], P4CTL_MAX_RESP_BYTES);
  ident[22] = uint8_t(grant_);
  put_le32(&ident[24], 1);  // endpoints
  write_guest(c.ident_pa, ident, c.len);
  ctx_.event(path_, "p4_identify").str("grant", p4_scope_name(grant_)).u64("len", c.len);
  done(status_comp(IONIC_RC_SUCCESS));
}

// ---- QUERY (72) ----------------------------------------------------------------------------

void P4Surface::query(const uint8_t* cmd, Done done) {
  P4QueryCmd c;
  std::string error;
  if (!parse_p4_query(cmd, &c, &error)) return refuse(cmd[0], IONIC_RC_EINVAL, error, std::move(done));
  std::vector<std::vector<uint8_t>> entries;
  if (c.entity == P4CTL_QUERY_ENDPOINTS) {
    std::vector<uint8_t> e(P4CTL_ENDPOINT_ENTRY_BYTES, 0);
    put_le32(e.data(), P4CTL_EP_ENGINE);
    entries.push_back(e);
  } else {
    if (c.ep != P4CTL_EP_ENGINE)
      return refuse(cmd[0], IONIC_RC_ENOENT, "no endpoint " + std::to_string(c.ep), std::move(done));
    // Only what the operator granted: the rest is not there to be found.
    for (const P4CtlOperation& op : p4ctl_operations()) {
      if (op.scope > grant_) continue;
      std::vector<uint8_t> e(P4CTL_OPERATION_ENTRY_BYTES, 0);
      put_le32(e.data(), op.id);
      e[4] = uint8_t(op.scope);
      entries.push_back(e);
    }
  }
  uint32_t written = 0;
  write_guest(c.buf_pa, encode_list(entries, c.buf_len, &written), c.buf_len);
  ctx_.event(path_, "p4_query").u64("entity", c.entity).u64("entries", written).u64("total", entries.size());
  Comp comp = status_comp(IONIC_RC_SUCCESS);
  comp[4] = P4CTL_VERSION;
  done(comp);
}

// ---- RPC (71) ------------------------------------------------------------------------------

void P4Surface::rpc(const uint8_t* cmd, Done done) {
  P4RpcCmd c;
  std::string error;
  if (!parse_p4_rpc(cmd, &c, &error)) return refuse(cmd[0], IONIC_RC_EINVAL, error, std::move(done));
  const P4CtlOperation* op = find_p4ctl_operation(c.ep, c.op);
  const std::string what = "endpoint " + std::to_string(c.ep) + " operation " + std::to_string(c.op);
  // The operator's grant first: an unknown operation and one beyond the grant look the same.
  if (!op) return refuse(cmd[0], IONIC_RC_EPERM, what + " does not exist", std::move(done));
  if (op->scope > grant_)
    return refuse(cmd[0], IONIC_RC_EPERM,
                  what + " (" + op->name + ") needs scope " + p4_scope_name(op->scope) + ", the operator granted " +
                      p4_scope_name(grant_),
                  std::move(done));
  if (op->scope > P4Scope(c.claim))
    return refuse(cmd[0], IONIC_RC_EPERM,
                  what + " (" + op->name + ") needs scope " + p4_scope_name(op->scope) + ", the caller claimed " +
                      p4_scope_name(P4Scope(c.claim)),
                  std::move(done));
  if (c.req_sz == 0) return run_op(c, *op, std::string(), std::move(done));
  dma_.read(c.req_pa, c.req_sz, [this, c, op, done = std::move(done)](pcie::Result&& r) mutable {
    if (r.outcome != pcie::Outcome::SC)
      return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EFAULT,
                    "request buffer read at " + hex(c.req_pa) + " completed with " + pcie::outcome_name(r.outcome),
                    std::move(done));
    run_op(c, *op, std::string(r.data.begin(), r.data.end()), std::move(done));
  });
}

void P4Surface::run_op(const P4RpcCmd& c, const P4CtlOperation& op, std::string request, Done done) {
  switch (op.id) {
    case P4CTL_OP_READ_COUNTERS: return read_counters(c, std::move(done));
    case P4CTL_OP_TABLE_UPDATE: return table_update(c, request, std::move(done));
    case P4CTL_OP_PROGRAM_CHUNK: return program_chunk(c, request, std::move(done));
    default: return program_commit(c, request, std::move(done));
  }
}

void P4Surface::respond(const P4RpcCmd& c, uint8_t status, uint32_t err, const std::vector<uint8_t>& resp, Done done) {
  write_guest(c.resp_pa, resp, c.resp_sz);
  Comp comp = status_comp(status);
  put_le32(&comp[4], err);
  put_le32(&comp[8], uint32_t(resp.size()));
  done(comp);
}

void P4Surface::read_counters(const P4RpcCmd& c, Done done) {
  if (c.resp_sz < P4CTL_LIST_HEADER_BYTES)
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL,
                  "read_counters response buffer of " + std::to_string(c.resp_sz) + " bytes is smaller than the " +
                      std::to_string(P4CTL_LIST_HEADER_BYTES) + "-byte list header",
                  std::move(done));
  const p4::Stats& s = p4_.stats();
  const std::vector<std::vector<uint8_t>> entries = {
      counter_entry("host_in", s.host_in),           counter_entry("host_out", s.host_out),
      counter_entry("uplink_in", s.uplink_in),       counter_entry("uplink_out", s.uplink_out),
      counter_entry("dropped", s.dropped),           counter_entry("too_big", s.too_big),
      counter_entry("parse_errors", s.parse_errors), counter_entry("to_guest", s.to_guest),
      counter_entry("to_net", s.to_net),             counter_entry("to_upstream", s.to_upstream),
      counter_entry("egress_errors", s.egress_errors), counter_entry("faults", s.faults)};
  uint32_t written = 0;
  std::vector<uint8_t> list = encode_list(entries, c.resp_sz, &written);
  ctx_.event(path_, "p4_counters").u64("entries", written).u64("total", entries.size());
  respond(c, IONIC_RC_SUCCESS, 0, list, std::move(done));
}

void P4Surface::table_update(const P4RpcCmd& c, const std::string& request, Done done) {
  // The response is always the count of updates applied, then what stopped them, if anything.
  if (!p4_.engine()) {
    const std::string why = "no P4 program is running";
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_ENOENT, "table_update: " + why, std::move(done), 0, &c,
                  std::string(4, '\0') + why);
  }
  std::vector<p4::TableUpdate> updates;
  std::string error;
  if (!parse_update_request(request, &updates, &error))
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "table_update: " + error, std::move(done),
                  uint32_t(p4::UpdateCode::kBadRecord) + 1, &c, std::string(4, '\0') + error);
  uint32_t applied = 0;
  for (const p4::TableUpdate& u : updates) {
    p4::UpdateError ue;
    if (!p4_.engine()->update(u, &ue)) {
      std::vector<uint8_t> resp(4, 0);
      put_le32(resp.data(), applied);
      const std::string msg = std::string("error[") + p4::update_code_name(ue.code) + "]: " + ue.message;
      resp.insert(resp.end(), msg.begin(), msg.end());
      ++refusals_;
      ctx_.event(path_, "p4_refused").str("cmd", "P4_RPC").str("status", "EINVAL").str("reason", "table_update: " + msg);
      log_.denied(ctx_.local_ps(), "rocm-ernic: P4 control refused P4_RPC (EINVAL): table_update " +
                                     std::to_string(applied) + " applied, then " + msg);
      return respond(c, IONIC_RC_EINVAL, uint32_t(ue.code) + 1, resp, std::move(done));
    }
    ++applied;
    auto e = ctx_.event(path_, "p4_update");
    e.str("type", p4::update_type_name(u.type)).str("table", u.table);
    if (u.type != p4::UpdateType::kDelete) e.str("action", u.action);
  }
  std::vector<uint8_t> resp(4, 0);
  put_le32(resp.data(), applied);
  respond(c, IONIC_RC_SUCCESS, 0, resp, std::move(done));
}

void P4Surface::program_chunk(const P4RpcCmd& c, const std::string& request, Done done) {
  P4Chunk chunk;
  std::string error;
  if (!parse_program_chunk(request, &chunk, &error))
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "program_chunk: " + error, std::move(done), 0, &c, error);
  if (chunk.offset == 0) {
    upload_.clear();
    upload_total_ = chunk.total;
  } else if (chunk.total != upload_total_ || chunk.offset != upload_.size()) {
    const std::string why = "chunk at offset " + std::to_string(chunk.offset) + " of " + std::to_string(chunk.total) +
                            " does not continue the upload (" + std::to_string(upload_.size()) + " of " +
                            std::to_string(upload_total_) + " bytes received)";
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "program_chunk: " + why, std::move(done), 0, &c, why);
  }
  upload_.append(chunk.bytes.data(), chunk.bytes.size());
  ctx_.event(path_, "p4_program_chunk").u64("offset", chunk.offset).u64("len", chunk.bytes.size())
      .u64("received", upload_.size()).u64("total", upload_total_);
  std::vector<uint8_t> resp(4, 0);
  put_le32(resp.data(), uint32_t(upload_.size()));
  respond(c, IONIC_RC_SUCCESS, 0, resp, std::move(done));
}

void P4Surface::program_commit(const P4RpcCmd& c, const std::string& request, Done done) {
  uint32_t total = 0;
  std::string error;
  if (!parse_program_commit(request, &total, &error))
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "program_commit: " + error, std::move(done), 0, &c, error);
  if (upload_total_ == 0 || total != upload_total_ || upload_.size() != total) {
    const std::string why = "upload incomplete: " + std::to_string(upload_.size()) + " of " +
                            std::to_string(upload_total_) + " bytes received, commit names " + std::to_string(total) +
                            "; the running program stays";
    return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "program_commit: " + why, std::move(done), 0, &c, why);
  }
  device_.after(ctx_.ps(timing::p4_load_ps), [this, c, done = std::move(done)]() mutable {
    std::string text = std::move(upload_);
    upload_.clear();
    upload_total_ = 0;
    p4::LoadError le;
    std::unique_ptr<p4::Engine> engine = p4::rdma::load_device_program(text, &le, features_);
    if (!engine) {
      const std::string msg = std::string("error[") + p4::load_code_name(le.code) + "]: " + le.message;
      return refuse(IONIC_CMD_P4_RPC, IONIC_RC_EINVAL, "program_commit: " + msg + "; the running program stays",
                    std::move(done), uint32_t(le.code) + 1, &c, msg);
    }
    const std::string summary = engine->summary();
    p4_.replace(std::move(engine));
    if (on_replaced) on_replaced();
    const std::string features = p4::feature_policy_name(features_);
    ctx_.event(path_, "p4_load").str("source", "guest").u64("bytes", text.size()).str("features", features)
        .str("summary", summary);
    ctx_.event(path_, "log").str("level", "info")
        .str("msg", "rocm-ernic: P4 program loaded (" + features + " feature set): " + summary);
    respond(c, IONIC_RC_SUCCESS, 0, text_bytes(summary), std::move(done));
  });
}

}  // namespace dpusim::ionic
