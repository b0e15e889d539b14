// Loading a program as the ionic device does, and the rdma_metadata rules.
#include "dpusim/p4/rdma/program.h"

namespace dpusim::p4::rdma {

namespace {

struct MetadataField {
  const char* name;
  int width;
  int RdmaProgramInfo::*handle;
};
// The work request's fields as the RDMA path fills them (P4 engine guide, "Status").
constexpr MetadataField kFields[] = {
    {"opcode", 8, &RdmaProgramInfo::opcode},     {"qp_num", 24, &RdmaProgramInfo::qp_num},
    {"length", 32, &RdmaProgramInfo::length},    {"imm_data", 32, &RdmaProgramInfo::imm_data},
    {"rkey", 32, &RdmaProgramInfo::rkey},
};

bool refuse(LoadError* error, LoadCode code, std::string message) {
  *error = {code, std::move(message)};
  return false;
}

std::unique_ptr<Engine> checked(std::unique_ptr<Engine> engine, LoadError* error) {
  RdmaProgramInfo info;
  if (engine && !analyze_rdma_program(*engine, &info, error)) return nullptr;
  return engine;
}

LoadOptions device_options(FeaturePolicy features) {
  LoadOptions options;
  options.policy = PortPolicy::kDevice;
  options.externs = &device_externs();
  options.features = features;
  return options;
}

}  // namespace

bool analyze_rdma_program(const Engine& engine, RdmaProgramInfo* info, LoadError* error) {
  *info = RdmaProgramInfo{};
  for (const HeaderDesc& h : engine.describe_headers()) {
    if (h.name != kRdmaMetadataHeader) continue;
    const std::string where = "header 'rdma_metadata' (type '" + h.type + "')";
    if (h.emitted)
      return refuse(error, LoadCode::kRdmaMetadataWire,
                    "deparser 'deparser' emits header 'rdma_metadata': the RDMA path's metadata is architecture state, "
                    "not something to put on a wire");
    if (!h.metadata)
      return refuse(error, LoadCode::kRdmaMetadataWire,
                    where + " is not metadata: the RDMA path's metadata is architecture state, so declare it as a struct "
                            "in the program's metadata rather than as a header that could go on a wire");
    for (const auto& [name, width] : h.fields) {
      if (name.compare(0, 8, "_padding") == 0) continue;  // p4c's byte padding
      const MetadataField* known = nullptr;
      for (const MetadataField& f : kFields)
        if (name == f.name) known = &f;
      if (known == nullptr)
        return refuse(error, LoadCode::kRdmaMetadataField,
                      where + " field '" + name +
                          "' is not one the RDMA path fills (opcode, qp_num, length, imm_data, rkey); it would always "
                          "read as zero");
      if (width != known->width)
        return refuse(error, LoadCode::kRdmaMetadataWidth,
                      where + " field '" + name + "' is bit<" + std::to_string(width) + ">; the RDMA path fills it as bit<" +
                          std::to_string(known->width) + ">");
      info->*(known->handle) = engine.metadata().field_handle(h.name + "." + name);
    }
    info->is_rdma = true;
  }
  return true;
}

std::unique_ptr<Engine> load_device_program(std::string_view json, LoadError* error, FeaturePolicy features) {
  return checked(Engine::load(json, device_options(features), error), error);
}

std::unique_ptr<Engine> load_device_program_file(const std::string& path, LoadError* error, FeaturePolicy features) {
  return checked(Engine::load_file(path, device_options(features), error), error);
}

}  // namespace dpusim::p4::rdma
