// Programs as the ionic device loads them, and what makes one an RDMA program.
//
// The device's target offers one extern type, `fp8_unit` (fp8_unit.h), so a program is loaded
// with device_externs(): one that instantiates or calls any other extern is refused by name.
//
// A program that declares the metadata header `rdma_metadata` is an RDMA program; any other is
// an Ethernet program, and the RDMA path behaves as if none were loaded (P4 engine guide,
// "Status"). Its fields are the work request's, each optional:
//   opcode bit<8> (enum ionic_v1_op), qp_num bit<24>, length, imm_data, rkey bit<32>.
// Refused at load, each with its code:
//   rdma_metadata_width  a field at another width;
//   rdma_metadata_field  a field the RDMA path does not fill (it would read as zero, silently);
//   rdma_metadata_wire   rdma_metadata declared as a header rather than metadata, which a
//                        deparser could put on a wire (the engine itself refuses a deparser
//                        that emits metadata, as operand_kind).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dpusim/p4/engine.h"

namespace dpusim::p4::rdma {

inline constexpr const char* kRdmaMetadataHeader = "rdma_metadata";

// The extern types of the ionic target: fp8_unit. One registry for the process; immutable.
const ExternRegistry& device_externs();

// Loads a program as the device does: PortPolicy::kDevice, device_externs(), the rules above,
// and a feature policy: the device's default is rocm-ernic's (FeaturePolicy::kErnic); a slot's
// "p4-features": "bmv2" opts it into everything the engine builds.
std::unique_ptr<Engine> load_device_program(std::string_view json, LoadError* error,
                                            FeaturePolicy features = FeaturePolicy::kErnic);
std::unique_ptr<Engine> load_device_program_file(const std::string& path, LoadError* error,
                                                 FeaturePolicy features = FeaturePolicy::kErnic);

// What the RDMA path needs of a loaded program: whether it is an RDMA program, and the handle
// of each rdma_metadata field it declares (-1 for one it does not).
struct RdmaProgramInfo {
  bool is_rdma = false;
  int opcode = -1;
  int qp_num = -1;
  int length = -1;
  int imm_data = -1;
  int rkey = -1;
};

// Checks a loaded program against the rules above. False, with *error, when one is broken.
bool analyze_rdma_program(const Engine& engine, RdmaProgramInfo* info, LoadError* error);

}  // namespace dpusim::p4::rdma
