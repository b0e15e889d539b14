// The P4_16 source that loopback.json stands for: every frame goes back, unchanged, out of
// the port it came in on (p4c turns the bare assignment into the keyless table
// tbl_loopback23 with a const default action).
#include <core.p4>
#include <v1model.p4>

struct headers { }
struct metadata { }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start { transition accept; }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    apply { standard_metadata.egress_spec = standard_metadata.ingress_port; }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) { apply { } }
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
