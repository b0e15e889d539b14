// WORK.json for `dpusim p4 run --rdma` (rdma_work.h).
#include "rdma_work.h"

#include <nlohmann/json.hpp>

#include "dpusim/p4/limits.h"
#include "json_cost.h"

namespace dpusim::p4::tool {

namespace {

using Json = nlohmann::json;

struct BadDoc {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& rule) { throw BadDoc{path + ": " + rule}; }

void only_keys(const Json& obj, const std::string& path, std::initializer_list<const char*> keys) {
  if (!obj.is_object()) fail(path, "is not a JSON object");
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    if (!known) fail(path + "." + it.key(), "unknown key");
  }
}

std::uint64_t uint_at(const Json& obj, const char* key, const std::string& path, std::uint64_t max,
                      std::uint64_t fallback, bool required = false) {
  auto it = obj.find(key);
  const std::string where = path + "." + key;
  if (it == obj.end()) {
    if (required) fail(where, "missing");
    return fallback;
  }
  if (!it->is_number_unsigned()) fail(where, "is not a non-negative integer");
  const std::uint64_t v = it->get<std::uint64_t>();
  if (v > max) fail(where, std::to_string(v) + " is over the limit of " + std::to_string(max));
  return v;
}

const Json& list_at(const Json& obj, const char* key, const std::string& path) {
  static const Json empty = Json::array();
  auto it = obj.find(key);
  if (it == obj.end()) return empty;
  if (!it->is_array()) fail(path + "." + key, "is not a JSON list");
  return *it;
}

std::vector<std::uint8_t> hex_bytes(const Json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "is not a string of hex digits");
  const std::string s = v.get<std::string>();
  if (s.size() % 2 != 0) fail(path, "has an odd number of hex digits (" + std::to_string(s.size()) + ")");
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) fail(path, "character " + std::to_string(i) + " is not a hex digit");
    out[i / 2] = static_cast<std::uint8_t>(out[i / 2] << 4 | d);
  }
  return out;
}

void parse(const Json& doc, RdmaWork* out) {
  only_keys(doc, "$", {"memory", "regions", "fill", "work_requests"});
  if (!doc.contains("memory")) fail("$.memory", "missing");
  const Json& m = doc["memory"];
  only_keys(m, "$.memory", {"base", "size"});
  std::string err;
  out->memory = rdma::FlatMemory::create(uint_at(m, "base", "$.memory", UINT64_MAX, 0, true),
                                         uint_at(m, "size", "$.memory", rdma::FlatMemory::kMaxBytes, 0, true), &err);
  if (!out->memory) fail("$.memory", err);

  const Json& regions = list_at(doc, "regions", "$");
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const std::string path = "$.regions[" + std::to_string(i) + "]";
    const Json& r = regions[i];
    only_keys(r, path, {"key", "addr", "length", "access", "owner"});
    rdma::MemoryRegion region;
    region.key = static_cast<std::uint32_t>(uint_at(r, "key", path, UINT32_MAX, 0, true));
    region.addr = uint_at(r, "addr", path, UINT64_MAX, 0, true);
    region.length = uint_at(r, "length", path, UINT64_MAX, 0, true);
    region.access = static_cast<std::uint32_t>(
        uint_at(r, "access", path, UINT32_MAX, rdma::IB_ACCESS_LOCAL_WRITE | rdma::IB_ACCESS_REMOTE_WRITE));
    if (auto it = r.find("owner"); it != r.end()) {
      if (*it == "peer") region.owner = rdma::RegionOwner::kPeer;
      else if (*it != "local") fail(path + ".owner", "is not \"local\" or \"peer\"");
    }
    if (!out->memory->add_region(region, &err)) fail(path, err);
  }

  const Json& fill = list_at(doc, "fill", "$");
  for (std::size_t i = 0; i < fill.size(); ++i) {
    const std::string path = "$.fill[" + std::to_string(i) + "]";
    only_keys(fill[i], path, {"addr", "hex"});
    const std::uint64_t addr = uint_at(fill[i], "addr", path, UINT64_MAX, 0, true);
    if (!fill[i].contains("hex")) fail(path + ".hex", "missing");
    const std::vector<std::uint8_t> bytes = hex_bytes(fill[i]["hex"], path + ".hex");
    if (!out->memory->poke(addr, bytes.data(), bytes.size()))
      fail(path, std::to_string(bytes.size()) + " bytes at " + std::to_string(addr) + " are not all inside the memory window");
  }

  const Json& wrs = list_at(doc, "work_requests", "$");
  std::uint64_t time_ps = 0;
  for (std::size_t i = 0; i < wrs.size(); ++i) {
    const std::string path = "$.work_requests[" + std::to_string(i) + "]";
    const Json& w = wrs[i];
    only_keys(w, path, {"opcode", "qp_num", "rkey", "remote_addr", "imm_data", "length", "time_ps", "sgl"});
    RdmaWork::Request req;
    rdma::SendWr& wr = req.wr;
    wr.opcode = static_cast<std::uint8_t>(uint_at(w, "opcode", path, 255, 0));
    wr.qp_num = static_cast<std::uint32_t>(uint_at(w, "qp_num", path, UINT32_MAX, 0));
    wr.rkey = static_cast<std::uint32_t>(uint_at(w, "rkey", path, UINT32_MAX, 0));
    wr.remote_addr = uint_at(w, "remote_addr", path, UINT64_MAX, 0);
    wr.imm_data = static_cast<std::uint32_t>(uint_at(w, "imm_data", path, UINT32_MAX, 0));
    const Json& sgl = list_at(w, "sgl", path);
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < sgl.size(); ++k) {
      const std::string sp = path + ".sgl[" + std::to_string(k) + "]";
      only_keys(sgl[k], sp, {"addr", "length", "lkey"});
      rdma::Sge s;
      s.addr = uint_at(sgl[k], "addr", sp, UINT64_MAX, 0, true);
      s.length = static_cast<std::uint32_t>(uint_at(sgl[k], "length", sp, UINT32_MAX, 0, true));
      s.lkey = static_cast<std::uint32_t>(uint_at(sgl[k], "lkey", sp, UINT32_MAX, 0, true));
      sum += s.length;
      wr.sgl.push_back(s);
    }
    if (!w.contains("length") && sum > UINT32_MAX)
      fail(path + ".sgl", "lengths add up to " + std::to_string(sum) + ", over the 32-bit length a work request carries");
    wr.length = static_cast<std::uint32_t>(uint_at(w, "length", path, UINT32_MAX, sum));
    const std::uint64_t t = uint_at(w, "time_ps", path, UINT64_MAX, time_ps);
    if (t < time_ps) fail(path + ".time_ps", std::to_string(t) + " is before the previous request's " + std::to_string(time_ps));
    req.time_ps = time_ps = t;
    out->requests.push_back(std::move(req));
  }
}

}  // namespace

bool parse_rdma_work(std::string_view text, RdmaWork* out, std::string* error) {
  if (text.size() > P4_MAX_DOCUMENT_BYTES) {
    *error = "document is " + std::to_string(text.size()) + " bytes, more than the limit of " + std::to_string(P4_MAX_DOCUMENT_BYTES);
    return false;
  }
  JsonCost cost;
  LoadError le;
  if (!weigh_json(text, P4_JSON_MAX_COST, P4_JSON_MAX_DEPTH, &cost, &le)) {
    *error = le.message;
    return false;
  }
  const Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) {
    *error = "document is not valid JSON";
    return false;
  }
  *out = RdmaWork{};
  try {
    parse(doc, out);
  } catch (const BadDoc& e) {
    *error = e.message;
    return false;
  }
  return true;
}

}  // namespace dpusim::p4::tool
