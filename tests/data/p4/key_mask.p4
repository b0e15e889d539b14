// The P4_16 source that key_mask.json stands for: a table key under a constant mask (p4c
// writes `hdr.tag.id & 0x00ff` as the whole field with the constant as its mask), and a
// 128-bit key with a 128-bit action argument.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header tag_t { bit<16> id; bit<128> addr; bit<128> out; }

struct headers { ethernet_t ethernet; tag_t tag; }
struct metadata { }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x88b5: parse_tag; default: accept; }
    }
    state parse_tag { packet.extract(hdr.tag); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    action by_id(bit<9> port) { standard_metadata.egress_spec = port; }
    action by_addr(bit<128> value) { hdr.tag.out = value; }
    action drop() { mark_to_drop(standard_metadata); }
    table ids {
        key = { hdr.tag.id & 0x00ff : exact; }
        actions = { by_id; drop; }
        default_action = drop();
    }
    table addrs {
        key = { hdr.tag.addr : exact; }
        actions = { by_addr; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.tag.isValid()) {
            ids.apply();
            addrs.apply();
        }
    }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) { apply { packet.emit(hdr.ethernet); packet.emit(hdr.tag); } }
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
