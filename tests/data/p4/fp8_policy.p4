// The P4_16 source that fp8_policy.json stands for (written by hand in the shape
// `p4c-bm2-ss --emit-externs` emits, since p4c is not packaged for Debian): the ionic target's
// RDMA path hands a send work request to the fp8 unit when a table entry says so.
//
// A table keyed on the work request's opcode turns an ordinary RDMA write (ionic opcode 4)
// whose gather list is two equal-length buffers into an elementwise fp8 reduction into the
// write's destination. The entry's parameters pick the arithmetic: installing
//   rdma_policy: opcode 4 -> reduce(op 0, fmt 3)     the fp8_e4m3 sum
// and then modifying it to reduce(op 2, fmt 4) makes the same write an fp8_e5m2 product, with
// no change to the program or the device. A one-SGE write still dispatches as usual: the
// extern declines a request that is not the two-operand shape and the pipeline stops at the
// call, before reduce()'s mark_to_drop. When the extern does the operation the action goes on
// and drops the request, as it must: the extern writes the destination itself, and the
// ordinary transfer would land on top of the result. (A mark_to_drop before the call would
// deny every write the entry matches that the extern declines.)
#include <core.p4>
#include <v1model.p4>

// The ionic target's fp8 unit (docs/rdma.md).
extern fp8_unit {
    fp8_unit();
    void apply(in bit<8> op, in bit<8> fmt);        // 0 add, 1 sub, 2 mul, 3 min, 4 max
    void cvt(in bit<8> src_fmt, in bit<8> dst_fmt);  // 0 fp32, 1 fp16, 2 bf16, 3 fp8_e4m3,
}                                                    // 4 fp8_e5m2, 5 fp4_e2m1

// What the RDMA path fills in for each send work request (architecture state: never emitted).
struct rdma_metadata_t {
    bit<8>  opcode;    // enum ionic_v1_op
    bit<24> qp_num;
    bit<32> length;
    bit<32> imm_data;
    bit<32> rkey;
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
    action reduce(bit<8> op, bit<8> fmt) {
        fp8.apply(op, fmt);
        mark_to_drop(standard_metadata);
    }
    action deny() { mark_to_drop(standard_metadata); }
    table rdma_policy {
        key = { meta.rdma_metadata.opcode : exact; }
        actions = { reduce; deny; NoAction; }
        default_action = NoAction();
    }
    apply { rdma_policy.apply(); }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) { apply { packet.emit(hdr.ethernet); } }
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
