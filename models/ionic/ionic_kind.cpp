#include "ionic/ionic_kind.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "device/doc_error.h"
#include "device/doc_json.h"
#include "dpusim/p4/limits.h"
#include "dpusim/p4/rdma/program.h"
#include "ionic/ionic_nic.h"
#include "rtl/fp8_impl.h"

namespace dpusim::ionic {

namespace {

using nlohmann::json;

class IonicInstance : public platform::EndpointInstance {
 public:
  IonicInstance(pcie::SimContext& ctx, const std::string& name, const NicOptions& options,
                std::unique_ptr<p4::Engine> program)
      : nic_(new IonicNic(name.c_str(), ctx, options, std::move(program))) {}
  pcie::EndpointBase& endpoint() override { return *nic_; }
  net::NetEnd* network_port() override { return nic_; }
  net::MeshEnd* mesh_port() override { return &nic_->rdma(); }
  void trace(sc_core::sc_trace_file* vcd) override { nic_->trace_signals(vcd); }
  void shutdown(const std::function<void(const std::function<bool()>&)>&) override { nic_->shutdown(); }
  uint64_t frames_in_flight() const override { return nic_->frames_in_flight(); }

 private:
  IonicNic* nic_;  // a SystemC module: it lives until the process exits
};

class IonicConfig : public platform::EndpointConfig {
 public:
  IonicConfig(NicOptions options, bool mac_given, bool ip_given)
      : options_(std::move(options)), mac_given_(mac_given), ip_given_(ip_given) {}
  bool has_network_port() const override { return true; }
  bool has_mesh_port() const override { return true; }
  std::unique_ptr<platform::EndpointInstance> build(pcie::SimContext& ctx, const std::string& name) const override {
    NicOptions o = options_;
    if (!mac_given_) {
      // rocm-ernic's default station MAC, its last byte counting the slot ("ep2" -> :03), so
      // several NICs of one platform have distinct addresses, as the launcher derives them.
      const unsigned slot = unsigned(std::stoul(name.substr(2)));
      o.mac = {0x02, 0xa0, 0xd1, 0x00, uint8_t(slot >> 8), uint8_t(slot + 1)};
    }
    if (!ip_given_) o.ipv4 = 0x0a000000u | (unsigned(std::stoul(name.substr(2))) + 1);  // 10.0.0.<slot + 1>
    std::unique_ptr<p4::Engine> program;
    if (!o.program_text.empty()) {
      p4::LoadError error;
      program = p4::rdma::load_device_program(o.program_text, &error, o.features);
      if (!program)  // validated when the document was parsed; the same text loads the same way
        throw std::logic_error(name + ": P4 program refused at build: " + error.message);
    }
    return std::make_unique<IonicInstance>(ctx, name, o, std::move(program));
  }
  std::string describe() const override {
    std::string d = "ionic";
    if (options_.p4) d += " p4=" + (options_.program_name.empty() ? std::string("none") : options_.program_name);
    if (options_.scope != P4Scope::kNone) d += std::string(" scope=") + p4_scope_name(options_.scope);
    if (options_.features != p4::FeaturePolicy::kErnic) d += std::string(" features=") + p4::feature_policy_name(options_.features);
    if (options_.fp8_impl != "cpp") d += " fp8-impl=" + options_.fp8_impl;
    if (options_.fp8_chunk_bytes != p4::rdma::P4_RDMA_CONVERT_CHUNK_BYTES)
      d += " fp8-chunk-bytes=" + std::to_string(options_.fp8_chunk_bytes);
    return d;
  }

 private:
  NicOptions options_;
  bool mac_given_, ip_given_;
};

std::array<uint8_t, 6> mac_at(const json& v, const std::string& path) {
  const std::string s = platform::string_at(v, path);
  std::array<uint8_t, 6> mac{};
  if (!parse_mac(s, &mac)) throw platform::DocError(path, "'" + s + "' is not a MAC address xx:xx:xx:xx:xx:xx");
  return mac;
}

uint32_t ipv4_at(const json& v, const std::string& path) {
  const std::string s = platform::string_at(v, path);
  unsigned a[4];
  char tail = 0;
  if (std::sscanf(s.c_str(), "%3u.%3u.%3u.%3u%c", &a[0], &a[1], &a[2], &a[3], &tail) != 4 || a[0] > 255 ||
      a[1] > 255 || a[2] > 255 || a[3] > 255)
    throw platform::DocError(path, "'" + s + "' is not an IPv4 address a.b.c.d");
  return a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
}

// The first of the search folders holding `file`, or `file` itself when absolute.
std::string resolve(const std::string& file, const platform::DocContext& doc) {
  std::error_code ec;
  if (std::filesystem::path(file).is_absolute()) return file;
  for (const std::string& dir : doc.search_dirs) {
    const std::string candidate = (std::filesystem::path(dir) / file).string();
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return file;  // relative to the working directory, as a last resort (then refused if absent)
}

void load_program(const json& v, const std::string& path, const platform::DocContext& doc, NicOptions* o) {
  const std::string file = platform::string_at(v, path);
  const std::string where = resolve(file, doc);
  std::ifstream in(where, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(where, ec)) {
    std::string dirs;
    for (const std::string& d : doc.search_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
    throw platform::DocError(path, file + ": error[" + std::string(p4::load_code_name(p4::LoadCode::kIo)) +
                                       "]: cannot open (looked in: " + (dirs.empty() ? "the working directory" : dirs) + ")");
  }
  // One byte past the limit is enough for the loader to refuse the size by name.
  std::string text(p4::P4_MAX_DOCUMENT_BYTES + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  p4::LoadError error;
  if (!p4::rdma::load_device_program(text, &error, o->features))
    throw platform::DocError(path, file + ": error[" + p4::load_code_name(error.code) + "]: " + error.message);
  o->program_name = std::filesystem::path(file).filename().string();
  o->program_text = std::move(text);
}

std::shared_ptr<const platform::EndpointConfig> parse(const json& slot, const std::string& path,
                                                       const platform::DocContext& doc) {
  platform::only_keys(slot, path,
                      {"kind", "p4", "p4-program", "p4-guest-scope", "p4-features", "mac", "inband-control-mac", "ip",
                       "fp8-impl", "fp8-chunk-bytes"});
  NicOptions o;
  bool p4_false = false;
  if (slot.contains("p4")) {
    o.p4 = platform::bool_at(slot["p4"], path + ".p4");
    p4_false = !o.p4;
  }
  for (const char* implies : {"p4-program", "p4-guest-scope", "p4-features"}) {
    if (!slot.contains(implies)) continue;
    if (p4_false)
      throw platform::DocError(path + "." + implies, std::string(implies) + " implies p4, but p4 is false");
    o.p4 = true;
  }
  if (slot.contains("p4-guest-scope")) {
    const std::string s = platform::string_at(slot["p4-guest-scope"], path + ".p4-guest-scope");
    if (!p4_scope_from_name(s, &o.scope))
      throw platform::DocError(path + ".p4-guest-scope", "'" + s + "' is not none, read, write or load");
  }
  // The feature policy the slot's program and the guest's are held to: rocm-ernic's engine
  // (ernic) unless the slot opts into everything the engine builds (bmv2).
  if (slot.contains("p4-features")) {
    const std::string s = platform::string_at(slot["p4-features"], path + ".p4-features");
    if (!p4::feature_policy_from_name(s, &o.features))
      throw platform::DocError(path + ".p4-features", "'" + s +
                                                          "' is not ernic (what rocm-ernic's P4 engine runs, the "
                                                          "default) or bmv2 (everything the engine builds)");
  }
  if (slot.contains("p4-program")) load_program(slot["p4-program"], path + ".p4-program", doc, &o);
  const bool mac_given = slot.contains("mac");
  if (mac_given) o.mac = mac_at(slot["mac"], path + ".mac");
  if (slot.contains("inband-control-mac")) o.inband_mac = mac_at(slot["inband-control-mac"], path + ".inband-control-mac");
  if (slot.contains("fp8-impl")) {
    o.fp8_impl = platform::string_at(slot["fp8-impl"], path + ".fp8-impl");
    if (o.fp8_impl != rtl::kFp8ImplCpp && o.fp8_impl != rtl::kFp8ImplRtl)
      throw platform::DocError(path + ".fp8-impl", "'" + o.fp8_impl + "' is not cpp (the C++ codec) or rtl (the verilated RTL unit)");
    if (!rtl::fp8_impl_available(o.fp8_impl))
      throw platform::DocError(path + ".fp8-impl",
                               "fp8-impl rtl needs the RTL co-simulation, which this build lacks: it was configured with "
                               "DPUSIM_RTL=OFF (verilator missing or switched off); install verilator (./dpusim setup) and "
                               "reconfigure with -DDPUSIM_RTL=ON");
  }
  // How many source bytes the fp8 unit converts at a time (a conversion whose result lands on
  // its unread source reads its own results from the next chunk on).
  if (slot.contains("fp8-chunk-bytes")) {
    o.fp8_chunk_bytes = platform::uint_at(slot["fp8-chunk-bytes"], path + ".fp8-chunk-bytes", 8,
                                          p4::rdma::P4_RDMA_MAX_OPERAND_BYTES);
    if (o.fp8_chunk_bytes % 8 != 0)
      throw platform::DocError(path + ".fp8-chunk-bytes", std::to_string(o.fp8_chunk_bytes) +
                                                              " is not a multiple of 8 bytes (whole elements of every format)");
  }
  const bool ip_given = slot.contains("ip");
  if (ip_given) o.ipv4 = ipv4_at(slot["ip"], path + ".ip");
  return std::make_shared<IonicConfig>(std::move(o), mac_given, ip_given);
}

}  // namespace

platform::EndpointKind ionic_kind() {
  return platform::EndpointKind{"ionic",
                                "the AMD Pensando ionic NIC as rocm-ernic emulates it, with the P4 engine in its "
                                "datapath (docs/ionic.md)",
                                &parse};
}

}  // namespace dpusim::ionic
