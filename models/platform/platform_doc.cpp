#include "platform/platform_doc.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "device/doc_json.h"
#include "device/family.h"
#include "platform/timing_profiles.h"
#include "tlm/timing.h"

namespace dpusim::platform {

using nlohmann::json;

namespace {

EndpointSpec parse_endpoint(const json& v, const std::string& path, const DocContext& doc) {
  std::string known;
  for (const auto& k : endpoint_kinds()) known += (known.empty() ? "" : ", ") + std::string(k.name);
  if (!v.is_object()) throw DocError(path, "must be an endpoint object or null, not " + std::string(v.type_name()));
  if (!v.contains("kind")) throw DocError(path + ".kind", "missing (known kinds: " + known + ")");
  const json& kind = v.at("kind");
  if (!kind.is_string()) throw DocError(path + ".kind", "must be a string (known kinds: " + known + ")");
  const std::string k = kind.get<std::string>();
  const EndpointKind* found = find_endpoint_kind(k);
  if (!found) throw DocError(path + ".kind", "unknown endpoint kind '" + k + "' (known: " + known + ")");
  return EndpointSpec{k, found->parse(v, path, doc)};
}

void parse_test_slots(const json& topo, PlatformSpec& spec, const DocContext& doc) {
  if (topo.contains("endpoints")) {
    const unsigned n = unsigned(uint_at(topo["endpoints"], "$.topology.endpoints", 1, kMaxSlots));
    for (unsigned i = 0; i < n; ++i) spec.slots.push_back(parse_endpoint(json{{"kind", "test"}}, "$.topology.endpoints", doc));
    return;
  }
  const json& slots = topo["slots"];
  if (!slots.is_array()) throw DocError("$.topology.slots", "must be an array of endpoint objects or null");
  if (slots.empty() || slots.size() > kMaxSlots)
    throw DocError("$.topology.slots", std::to_string(slots.size()) + " slots outside 1.." + std::to_string(kMaxSlots));
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string path = "$.topology.slots[" + std::to_string(i) + "]";
    if (slots[i].is_null()) {
      spec.slots.push_back(std::nullopt);
    } else {
      spec.slots.push_back(parse_endpoint(slots[i], path, doc));
    }
  }
}

// "timing": {"profile": NAME, PARAMETER: VALUE...}: the profile's values (timing_profiles.h),
// then the document's own, each checked against its parameter's range.
void parse_timing(const json& t, PlatformSpec& spec) {
  pcie::TimingProfile probe;
  auto add = [&](const std::string& name, uint64_t v, const std::string& path) {
    try {
      probe.set(name, v);
    } catch (const std::invalid_argument& e) {
      throw DocError(path, e.what());
    }
    spec.timing.emplace_back(name, v);
  };
  if (t.contains("profile")) {
    const std::string name = string_at(t["profile"], "$.timing.profile");
    const TimingPreset* preset = find_timing_preset(name);
    if (!preset) {
      std::string known;
      for (const TimingPreset& p : timing_presets()) known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw DocError("$.timing.profile", "unknown timing profile '" + name + "' (known: " + known + ")");
    }
    spec.timing_profile = preset->name;
    for (const auto& [param, v] : preset->values) add(param, v, "$.timing.profile");
  }
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (it.key() == "profile") continue;
    const std::string path = "$.timing." + it.key();
    if (pcie::TimingProfile::find(it.key()) < 0) {
      std::string list;
      for (const auto& p : pcie::TimingProfile::sorted_params()) list += (list.empty() ? "" : ", ") + std::string(p.name);
      throw DocError(path, "unknown timing parameter (known: " + list + ")");
    }
    add(it.key(), uint_at(it.value(), path, 0, UINT64_MAX), path);
  }
}

void parse_family(const json& topo, PlatformSpec& spec) {
  only_keys(topo, "$.topology", {"family", "options", "firmware"});
  const json& name = topo.at("family");
  std::string known;
  for (const auto& f : device_families()) known += (known.empty() ? "" : ", ") + std::string(f.name);
  if (!name.is_string()) throw DocError("$.topology.family", "must be a string (known: " + known + ")");
  const DeviceFamily* family = find_family(name.get<std::string>());
  if (!family)
    throw DocError("$.topology.family", "unknown device family '" + name.get<std::string>() + "' (known: " + known + ")");
  static const json empty = json::object();
  const json& options = topo.contains("options") ? topo.at("options") : empty;
  if (!options.is_object())
    throw DocError("$.topology.options", "must be an object, not " + std::string(options.type_name()));
  const json& firmware = topo.contains("firmware") ? topo.at("firmware") : empty;
  if (!firmware.is_object())
    throw DocError("$.topology.firmware", "must be an object, not " + std::string(firmware.type_name()));
  spec.family_name = family->name;
  spec.family = family->parse(options, firmware, "$.topology");
}

// An end of a wire: "loopback", "python", "ep<i>" naming an endpoint with a network port, or
// "ep<i>.vf<j>" naming SR-IOV VF j of endpoint i (each VF has a network port). Returns the
// endpoint's or the VF's name, or nothing for a peer.
std::optional<std::string> wire_end(const json& v, const std::string& path, const PlatformSpec& spec) {
  static const char* const kinds = "\"ep<i>\", \"ep<i>.vf<j>\", \"loopback\" or \"python\"";
  if (!v.is_string()) throw DocError(path, std::string("must be a string: ") + kinds);
  const std::string s = v.get<std::string>();
  if (s == "loopback" || s == "python") return std::nullopt;
  const size_t dot = s.find(".vf");
  const std::string ep = s.substr(0, dot);
  auto number = [](const std::string& digits, size_t max_digits) {
    return !digits.empty() && digits.size() <= max_digits && digits.find_first_not_of("0123456789") == std::string::npos;
  };
  const bool vf = dot != std::string::npos;
  if (ep.size() < 3 || ep.compare(0, 2, "ep") != 0 || !number(ep.substr(2), 2) || (vf && !number(s.substr(dot + 3), 3)))
    throw DocError(path, "'" + s + "' is not " + kinds);
  const unsigned count = spec.family ? spec.family->endpoints() : unsigned(spec.slots.size());
  const unsigned i = unsigned(std::stoul(ep.substr(2)));
  const std::string ep_name = "ep" + std::to_string(i);
  if (i >= count)
    throw DocError(path, "endpoint '" + ep + "' does not exist (the platform has " + std::to_string(count) + ")");
  if (vf) {
    const unsigned j = unsigned(std::stoul(s.substr(dot + 3)));
    const unsigned vfs = spec.family ? spec.family->vfs(i) : 0;
    const std::string option = spec.family ? spec.family->vfs_option() : "SR-IOV VFs";
    if (vfs == 0) throw DocError(path, "'" + s + "': endpoint '" + ep_name + "' has no VFs (" + option + " is not set)");
    if (j >= vfs)
      throw DocError(path, "'" + s + "': endpoint '" + ep_name + "' has no VF " + std::to_string(j) + " (" + option +
                               " is " + std::to_string(vfs) + ": vf0..vf" + std::to_string(vfs - 1) + ")");
    return ep_name + ".vf" + std::to_string(j);
  }
  const bool port = spec.family ? spec.family->has_network_port(i)
                                : spec.slots[i] && spec.slots[i]->config->has_network_port();
  if (!port) throw DocError(path, "endpoint '" + ep + "' has no network port");
  return ep_name;
}

void parse_wires(const json& wires, PlatformSpec& spec) {
  if (!wires.is_array()) throw DocError("$.wires", "must be an array of {\"a\": END, \"b\": END}");
  std::set<std::string> used;
  for (size_t i = 0; i < wires.size(); ++i) {
    const std::string path = "$.wires[" + std::to_string(i) + "]";
    const json& w = wires[i];
    if (!w.is_object()) throw DocError(path, "must be an object {\"a\": END, \"b\": END}");
    only_keys(w, path, {"a", "b"});
    for (const char* k : {"a", "b"})
      if (!w.contains(k)) throw DocError(path + "." + k, "missing");
    const auto a = wire_end(w["a"], path + ".a", spec), b = wire_end(w["b"], path + ".b", spec);
    if (!a && !b) throw DocError(path, "a wire needs an endpoint on at least one end");
    for (const auto& [end, key] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
      if (end && !used.insert(*end).second)
        throw DocError(path + "." + key, "endpoint '" + *end + "' is already on another wire");
    }
    spec.wires.push_back(WireSpec{w["a"].get<std::string>(), w["b"].get<std::string>()});
  }
}

// "log": "all" | "summary" | "none", or {"level": ..., "keep": [CATEGORY...], "omit": [...]}.
pcie::LogFilter parse_log(const json& v) {
  pcie::LogFilter f;
  const json* level = &v;
  if (v.is_object()) {
    only_keys(v, "$.outputs.log", {"level", "keep", "omit"});
    static const json all = "all";
    level = v.contains("level") ? &v["level"] : &all;
    for (const char* key : {"keep", "omit"}) {
      if (!v.contains(key)) continue;
      const std::string path = std::string("$.outputs.log.") + key;
      if (!v[key].is_array()) throw DocError(path, "must be an array of event category names");
      for (size_t i = 0; i < v[key].size(); ++i)
        (key[0] == 'k' ? f.keep : f.omit).push_back(string_at(v[key][i], path + "[" + std::to_string(i) + "]"));
    }
  } else if (!v.is_string()) {
    throw DocError("$.outputs.log",
                   "must be \"all\", \"summary\", \"none\" or {\"level\": ..., \"keep\": [...], \"omit\": [...]}");
  }
  const std::string level_path = v.is_object() ? "$.outputs.log.level" : "$.outputs.log";
  try {
    f.level = pcie::LogFilter::parse_level(string_at(*level, level_path));
    f.check();
  } catch (const std::invalid_argument& e) {
    throw DocError(v.is_object() ? "$.outputs.log" : level_path, e.what());
  }
  return f;
}

// "explore": true | false | {"only": [KNOB, ...]}. A knob is a timing parameter with an
// exploration range, "ties" (the order of the application threads' same-time steps), or one
// of the host runtime's ("host.*" that is not a timing parameter, "choice.*"), which the
// runtime checks itself.
void parse_explore(const json& e, PlatformSpec& spec) {
  if (e.is_boolean()) {
    spec.explore = e.get<bool>();
    return;
  }
  if (!e.is_object()) throw DocError("$.explore", "must be true, false or {\"only\": [knob, ...]}");
  only_keys(e, "$.explore", {"only"});
  spec.explore = true;
  if (!e.contains("only")) return;
  const json& only = e["only"];
  if (!only.is_array()) throw DocError("$.explore.only", "must be an array of knob names");
  std::set<std::string> knobs;
  for (size_t i = 0; i < only.size(); ++i) {
    const std::string path = "$.explore.only[" + std::to_string(i) + "]";
    const std::string k = string_at(only[i], path);
    const int p = pcie::TimingProfile::find(k);
    if (p >= 0 && !pcie::TimingProfile::params()[size_t(p)].explore.any())
      throw DocError(path, "timing parameter '" + k + "' has no exploration range (docs/timing.md)");
    const bool host_side = k.rfind("choice.", 0) == 0 || (p < 0 && k.rfind("host.", 0) == 0);
    if (p < 0 && k != "ties" && !host_side)
      throw DocError(path, "unknown exploration knob '" + k +
                               "' (a timing parameter with a range, \"ties\", \"host.*\" or \"choice.*\")");
    knobs.insert(k);
  }
  spec.explore_only = std::move(knobs);
}

// "mesh": ["ep0", "ep1", ...]: at least two endpoints with a mesh port, each once.
void parse_mesh(const json& mesh, PlatformSpec& spec) {
  if (!mesh.is_array()) throw DocError("$.mesh", "must be a list of endpoints, \"ep<i>\"");
  if (mesh.size() < 2) throw DocError("$.mesh", "a mesh needs at least two endpoints, not " + std::to_string(mesh.size()));
  const unsigned count = spec.family ? 0 : unsigned(spec.slots.size());
  for (size_t i = 0; i < mesh.size(); ++i) {
    const std::string path = "$.mesh[" + std::to_string(i) + "]";
    if (!mesh[i].is_string()) throw DocError(path, "must be a string \"ep<i>\"");
    const std::string s = mesh[i].get<std::string>();
    if (s.size() < 3 || s.size() > 4 || s.compare(0, 2, "ep") != 0 || s.find_first_not_of("0123456789", 2) != std::string::npos)
      throw DocError(path, "'" + s + "' is not \"ep<i>\"");
    const unsigned ep = unsigned(std::stoul(s.substr(2)));
    if (ep >= count) throw DocError(path, "endpoint '" + s + "' does not exist (the platform has " + std::to_string(count) + ")");
    if (!spec.slots[ep] || !spec.slots[ep]->config->has_mesh_port())
      throw DocError(path, "endpoint '" + s + "' has no mesh port");
    if (std::find(spec.mesh.begin(), spec.mesh.end(), ep) != spec.mesh.end())
      throw DocError(path, "endpoint '" + s + "' is already in the mesh");
    spec.mesh.push_back(ep);
  }
}

// Deepest nesting of objects and arrays, strings skipped.
size_t nesting_depth(const std::string& text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

PlatformSpec parse_platform_doc(const std::string& text, const DocContext& doc_context) {
  // Bounded before parsing: the parser recurses once per nesting level.
  if (text.size() > kMaxDocBytes)
    throw DocError("$", "document of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                            std::to_string(kMaxDocBytes));
  const size_t depth = nesting_depth(text);
  if (depth > kMaxDocDepth)
    throw DocError("$", "nesting depth " + std::to_string(depth) + " exceeds the limit of " + std::to_string(kMaxDocDepth));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers too large for any type
    throw DocError("$", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw DocError("$", "must be a JSON object");
  only_keys(doc, "$", {"seed", "host", "topology", "timing", "outputs", "wires", "explore", "mesh", "fidelity"});
  PlatformSpec spec;
  if (doc.contains("seed")) spec.seed = uint_at(doc["seed"], "$.seed", 0, UINT64_MAX);

  if (doc.contains("host")) {
    const json& h = object_at(doc, "host", "$");
    only_keys(h, "$.host", {"cpus", "max_payload_size", "max_read_request_size", "read_completion_boundary"});
    if (h.contains("cpus")) spec.host.cpus = unsigned(uint_at(h["cpus"], "$.host.cpus", 1, 256));
    if (h.contains("max_payload_size"))
      spec.host.max_payload_size = pow2_at(h["max_payload_size"], "$.host.max_payload_size", 128, 4096);
    if (h.contains("max_read_request_size"))
      spec.host.max_read_request_size = pow2_at(h["max_read_request_size"], "$.host.max_read_request_size", 128, 4096);
    if (h.contains("read_completion_boundary")) {
      const unsigned rcb = unsigned(uint_at(h["read_completion_boundary"], "$.host.read_completion_boundary", 64, 128));
      if (rcb != 64 && rcb != 128) throw DocError("$.host.read_completion_boundary", "must be 64 or 128");
      spec.host.read_completion_boundary = rcb;
    }
  }

  if (!doc.contains("topology")) throw DocError("$.topology", "missing (say which slots hold which endpoints)");
  const json& topo = object_at(doc, "topology", "$");
  if (topo.contains("family")) {
    parse_family(topo, spec);  // the family's options say what is on the slots
  } else {
    only_keys(topo, "$.topology", {"endpoints", "slots", "family"});
    if (topo.contains("endpoints") == topo.contains("slots"))
      throw DocError("$.topology", "give exactly one of 'endpoints' (a count of test endpoints), 'slots' (a list) "
                                   "or 'family' (a device family with its options)");
    parse_test_slots(topo, spec, doc_context);
  }

  if (doc.contains("timing")) parse_timing(object_at(doc, "timing", "$"), spec);

  if (doc.contains("wires")) parse_wires(doc["wires"], spec);
  if (doc.contains("explore")) parse_explore(doc["explore"], spec);
  if (doc.contains("mesh")) parse_mesh(doc["mesh"], spec);

  if (doc.contains("outputs")) {
    const json& o = object_at(doc, "outputs", "$");
    only_keys(o, "$.outputs", {"vcd", "pcap", "log"});
    if (o.contains("vcd")) {
      bool_at(o["vcd"], "$.outputs.vcd");
      spec.vcd = o["vcd"].get<bool>();
    }
    if (o.contains("pcap")) {
      bool_at(o["pcap"], "$.outputs.pcap");
      spec.pcap = o["pcap"].get<bool>();
    }
    if (o.contains("log")) spec.log = parse_log(o["log"]);
  }
  if (doc.contains("fidelity")) {
    const std::string f = string_at(doc["fidelity"], "$.fidelity");
    try {
      spec.fidelity = pcie::parse_fidelity(f);
    } catch (const std::invalid_argument& e) {
      throw DocError("$.fidelity", e.what());
    }
    if (spec.fidelity == pcie::Fidelity::Lt)
      for (size_t i = 0; i < spec.slots.size(); ++i)
        if (spec.slots[i] && spec.slots[i]->config->lt_refusal())
          throw DocError("$.fidelity", "slot " + std::to_string(i) + " (" + spec.slots[i]->config->describe() +
                                           "): " + spec.slots[i]->config->lt_refusal());
  }
  return spec;
}

}  // namespace dpusim::platform
