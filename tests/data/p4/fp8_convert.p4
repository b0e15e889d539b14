// The P4_16 source that fp8_convert.json stands for (written by hand in the shape
// `p4c-bm2-ss --emit-externs` emits, since p4c is not packaged for Debian): the fp8 unit's
// conversion, chosen by a table entry that names both formats.
//
// An RDMA write (ionic opcode 4) whose gather list is one buffer is converted element by
// element into the write's destination: the same number of elements in another format, so a
// longer, shorter or equal-length result. The table is keyed on the opcode and the QP, so
// one QP can narrow fp32 to fp8_e4m3 while another widens fp8_e5m2 to fp16:
//   convert_policy: opcode 4, qp 17 -> convert(src_fmt 0, dst_fmt 3)
//   convert_policy: opcode 4, qp 18 -> convert(src_fmt 4, dst_fmt 1)
// A two-SGE write is declined and dispatches as usual: the pipeline stops at the call, before
// convert()'s mark_to_drop.
#include <core.p4>
#include <v1model.p4>

// The ionic target's fp8 unit (docs/rdma.md).
extern fp8_unit {
    fp8_unit();
    void apply(in bit<8> op, in bit<8> fmt);
    void cvt(in bit<8> src_fmt, in bit<8> dst_fmt);
}

// Only the fields the policy reads: each of rdma_metadata's fields is optional.
struct rdma_metadata_t {
    bit<8>  opcode;
    bit<24> qp_num;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers { ethernet_t ethernet; }
struct metadata { rdma_metadata_t rdma_metadata; }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start { packet.extract(hdr.ethernet); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    fp8_unit() fp8;
    action convert(bit<8> src_fmt, bit<8> dst_fmt) {
        fp8.cvt(src_fmt, dst_fmt);
        mark_to_drop(standard_metadata);
    }
    table convert_policy {
        key = {
            meta.rdma_metadata.opcode : exact;
            meta.rdma_metadata.qp_num : exact;
        }
        actions = { convert; NoAction; }
        default_action = NoAction();
    }
    apply { convert_policy.apply(); }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) { apply { packet.emit(hdr.ethernet); } }
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
