// The ionic target's fp8 extern, `fp8_unit`: elementwise arithmetic and format conversion over
// an RDMA write's memory, chosen by a table entry (P4 engine guide, "Status" and "Converting
// between formats"). P4 has no floating point; the codec is p4/formats.
//
//   extern fp8_unit {
//       fp8_unit();
//       void apply(in bit<8> op, in bit<8> fmt);        // op: 0 add, 1 sub, 2 mul, 3 min, 4 max
//       void cvt(in bit<8> src_fmt, in bit<8> dst_fmt);  // fmt: 0 fp32 .. 5 fp4_e2m1
//   }
//
// p4c --emit-externs writes an instance to extern_instances ({"type": "fp8_unit"}) and a call
// as the primitive `_fp8_unit_apply` / `_fp8_unit_cvt` whose first parameter is the instance
// ({"type": "extern", "value": "<instance>"}) and whose others are the arguments, typically
// runtime_data, so a table entry picks the arithmetic. The constructor takes nothing: an
// instance with attribute values is refused (bad_value).
//
// On the Ethernet path (Engine::process, no RDMA request in hand) a call declines and does
// nothing: the action goes on. On the RDMA path the call works on the request path.h
// describes, and its outcome is decided when the pipeline ends.
#pragma once

namespace dpusim::p4::rdma {

inline constexpr const char* kFp8UnitType = "fp8_unit";
inline constexpr const char* kFp8UnitApply = "apply";  // primitive _fp8_unit_apply
inline constexpr const char* kFp8UnitCvt = "cvt";      // primitive _fp8_unit_cvt

}  // namespace dpusim::p4::rdma
