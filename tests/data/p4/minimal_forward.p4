// The P4_16 source that minimal_forward.json stands for (written by hand in the shape
// p4c-bm2-ss emits, since p4c is not packaged for Debian): a frame is dropped until the
// control plane installs an entry for its destination, and forwarded afterwards.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers { ethernet_t ethernet; }
struct metadata { }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start { packet.extract(hdr.ethernet); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    action forward(bit<9> port) { standard_metadata.egress_spec = port; }
    action drop() { mark_to_drop(standard_metadata); }
    table fwd {
        key = { hdr.ethernet.dstAddr : exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    apply { fwd.apply(); }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) { apply { packet.emit(hdr.ethernet); } }
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
