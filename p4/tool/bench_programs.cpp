// The benchmark programs, built as JSON objects in the layout of p4c-bm2-ss output
// (JSON_format.md): header types, headers with v1model's standard_metadata, one parser,
// one deparser, ingress and egress pipelines, actions with source_info-free primitives.
#include "bench_programs.h"

#include <nlohmann/json.hpp>

namespace dpusim::p4::tool {

namespace {

using Json = nlohmann::json;

Json field(const char* h, const char* f) { return {{"type", "field"}, {"value", {h, f}}}; }
Json hexstr(const char* v) { return {{"type", "hexstr"}, {"value", v}}; }
Json local(int i) { return {{"type", "runtime_data"}, {"value", i}}; }

Json standard_metadata_type() {
  return {{"name", "standard_metadata"}, {"id", 1},
          {"fields", Json::array({{"ingress_port", 9, false}, {"egress_spec", 9, false}, {"egress_port", 9, false},
                                  {"instance_type", 32, false}, {"packet_length", 32, false}, {"enq_timestamp", 32, false},
                                  {"enq_qdepth", 19, false}, {"deq_timedelta", 32, false}, {"deq_qdepth", 19, false},
                                  {"ingress_global_timestamp", 48, false}, {"egress_global_timestamp", 48, false},
                                  {"mcast_grp", 16, false}, {"egress_rid", 16, false}, {"checksum_error", 1, false},
                                  {"parser_error", 32, false}, {"priority", 3, false}, {"_padding", 3, false}})}};
}

Json base_program(bool with_ipv4) {
  Json p;
  p["__meta__"] = {{"version", {2, 23}}, {"compiler", "https://github.com/p4lang/p4c"}};
  p["program"] = "bench.p4";
  p["header_types"] = Json::array({{{"name", "scalars_0"}, {"id", 0}, {"fields", Json::array()}}, standard_metadata_type(),
                                   {{"name", "ethernet_t"}, {"id", 2},
                                    {"fields", Json::array({{"dstAddr", 48, false}, {"srcAddr", 48, false}, {"etherType", 16, false}})}}});
  p["headers"] = Json::array({{{"name", "scalars"}, {"id", 0}, {"header_type", "scalars_0"}, {"metadata", true}},
                              {{"name", "standard_metadata"}, {"id", 1}, {"header_type", "standard_metadata"}, {"metadata", true}},
                              {{"name", "ethernet"}, {"id", 2}, {"header_type", "ethernet_t"}, {"metadata", false}}});
  Json start = {{"name", "start"}, {"id", 0},
                {"parser_ops", Json::array({{{"op", "extract"}, {"parameters", Json::array({{{"type", "regular"}, {"value", "ethernet"}}})}}})},
                {"transition_key", Json::array()},
                {"transitions", Json::array({{{"type", "default"}, {"value", nullptr}, {"mask", nullptr}, {"next_state", nullptr}}})}};
  Json order = Json::array({"ethernet"});
  Json states = Json::array();
  if (with_ipv4) {
    p["header_types"].push_back(
        {{"name", "ipv4_t"}, {"id", 3},
         {"fields", Json::array({{"version", 4, false}, {"ihl", 4, false}, {"diffserv", 8, false}, {"totalLen", 16, false},
                                 {"identification", 16, false}, {"flags", 3, false}, {"fragOffset", 13, false}, {"ttl", 8, false},
                                 {"protocol", 8, false}, {"hdrChecksum", 16, false}, {"srcAddr", 32, false}, {"dstAddr", 32, false}})}});
    p["headers"].push_back({{"name", "ipv4"}, {"id", 3}, {"header_type", "ipv4_t"}, {"metadata", false}});
    start["transition_key"] = Json::array({field("ethernet", "etherType")});
    start["transitions"] = Json::array(
        {{{"type", "hexstr"}, {"value", "0x0800"}, {"mask", nullptr}, {"next_state", "parse_ipv4"}},
         {{"type", "default"}, {"value", nullptr}, {"mask", nullptr}, {"next_state", nullptr}}});
    states.push_back(start);
    states.push_back({{"name", "parse_ipv4"}, {"id", 1},
                      {"parser_ops", Json::array({{{"op", "extract"}, {"parameters", Json::array({{{"type", "regular"}, {"value", "ipv4"}}})}}})},
                      {"transition_key", Json::array()},
                      {"transitions", Json::array({{{"type", "default"}, {"value", nullptr}, {"mask", nullptr}, {"next_state", nullptr}}})}});
    order.push_back("ipv4");
  } else {
    states.push_back(start);
  }
  p["parsers"] = Json::array({{{"name", "parser"}, {"id", 0}, {"init_state", "start"}, {"parse_states", states}}});
  p["deparsers"] = Json::array({{{"name", "deparser"}, {"id", 0}, {"order", order}, {"primitives", Json::array()}}});
  for (const char* k : {"header_stacks", "header_union_types", "header_unions", "header_union_stacks", "field_lists", "enums",
                        "parse_vsets", "meter_arrays", "counter_arrays", "register_arrays", "calculations", "learn_lists",
                        "checksums", "extern_instances", "field_aliases"})
    p[k] = Json::array();
  p["errors"] = Json::array({{"NoError", 0}, {"PacketTooShort", 1}, {"NoMatch", 2}, {"StackOutOfBounds", 3},
                             {"HeaderTooShort", 4}, {"ParserTimeout", 5}, {"ParserInvalidArgument", 6}});
  // Action 0 forwards (and decrements the TTL when there is an IPv4 header), action 1 drops.
  Json forward = {{"name", with_ipv4 ? "ingress.route" : "ingress.forward"}, {"id", 0},
                  {"runtime_data", Json::array({{{"name", "port"}, {"bitwidth", 9}}})},
                  {"primitives", Json::array({{{"op", "assign"}, {"parameters", {field("standard_metadata", "egress_spec"), local(0)}}}})}};
  if (with_ipv4)
    forward["primitives"].push_back(
        {{"op", "assign"},
         {"parameters",
          {field("ipv4", "ttl"),
           {{"type", "expression"},
            {"value", {{"type", "expression"},
                       {"value", {{"op", "&"},
                                  {"left", {{"type", "expression"}, {"value", {{"op", "+"}, {"left", field("ipv4", "ttl")}, {"right", hexstr("0xff")}}}}},
                                  {"right", hexstr("0xff")}}}}}}}}});
  Json drop = {{"name", "ingress.drop"}, {"id", 1}, {"runtime_data", Json::array()},
               {"primitives", Json::array({{{"op", "mark_to_drop"}, {"parameters", Json::array({{{"type", "header"}, {"value", "standard_metadata"}}})}}})}};
  p["actions"] = Json::array({forward, drop});
  p["pipelines"] = Json::array({{{"name", "ingress"}, {"id", 0}, {"init_table", nullptr}, {"tables", Json::array()},
                                 {"action_profiles", Json::array()}, {"conditionals", Json::array()}},
                                {{"name", "egress"}, {"id", 1}, {"init_table", nullptr}, {"tables", Json::array()},
                                 {"action_profiles", Json::array()}, {"conditionals", Json::array()}}});
  return p;
}

std::string with_table(Json p, const char* name, const char* match_type, Json keys) {
  std::string fwd = p["actions"][0]["name"];
  Json t = {{"name", name}, {"id", 0}, {"key", keys}, {"match_type", match_type}, {"type", "simple"},
            {"max_size", 65536}, {"with_counters", false}, {"support_timeout", false}, {"direct_meters", nullptr},
            {"action_ids", {0, 1}}, {"actions", {fwd, "ingress.drop"}}, {"base_default_next", nullptr},
            {"next_tables", {{fwd, nullptr}, {"ingress.drop", nullptr}}},
            {"default_entry", {{"action_id", 1}, {"action_const", false}, {"action_data", Json::array()}, {"action_entry_const", false}}}};
  p["pipelines"][0]["init_table"] = name;
  p["pipelines"][0]["tables"].push_back(t);
  return p.dump();
}

Json key(const char* match, const char* h, const char* f) {
  return {{"match_type", match}, {"name", std::string("hdr.") + h + "." + f}, {"target", {h, f}}, {"mask", nullptr}};
}

BenchFrame frame(bool ipv4) {
  BenchFrame f;
  f.bytes.assign(64, 0);
  f.bytes[12] = ipv4 ? 0x08 : 0x88;  // EtherType: IPv4, or a local experimental one
  f.bytes[13] = ipv4 ? 0x00 : 0xb5;
  if (ipv4) {
    f.bytes[14] = 0x45;  // version 4, IHL 5
    f.bytes[17] = 50;    // total length
    f.bytes[22] = 64;    // TTL
    f.bytes[23] = 6;     // TCP
  }
  return f;
}

}  // namespace

std::string bench_l2_program() {
  return with_table(base_program(false), "ingress.dmac", "exact", Json::array({key("exact", "ethernet", "dstAddr")}));
}
std::string bench_l3_program() {
  return with_table(base_program(true), "ingress.ipv4_lpm", "lpm", Json::array({key("lpm", "ipv4", "dstAddr")}));
}
std::string bench_acl_program() {
  return with_table(base_program(true), "ingress.acl", "ternary",
                    Json::array({key("ternary", "ipv4", "srcAddr"), key("ternary", "ipv4", "dstAddr"), key("ternary", "ipv4", "protocol")}));
}

const BenchFrame& bench_l2_frame() {
  static const BenchFrame f = [] {
    BenchFrame b = frame(false);
    b.key_a = 0;
    b.bytes_a = 6;
    return b;
  }();
  return f;
}
const BenchFrame& bench_l3_frame() {
  static const BenchFrame f = [] {
    BenchFrame b = frame(true);
    b.key_a = 30;  // IPv4 destination
    b.bytes_a = 4;
    return b;
  }();
  return f;
}
const BenchFrame& bench_acl_frame() {
  static const BenchFrame f = [] {
    BenchFrame b = frame(true);
    b.key_a = 26;  // source
    b.bytes_a = 4;
    b.key_b = 30;  // destination
    b.bytes_b = 4;
    b.key_c = 23;  // protocol
    b.bytes_c = 1;
    return b;
  }();
  return f;
}

}  // namespace dpusim::p4::tool
