// The P4_16 source that features.json stands for: a parser select with masks and several
// fields, an LPM and a ternary table, and an action for every arithmetic primitive and
// every comparison (the legacy primitives add, subtract, bit_and... and add_to_field have
// no P4_16 spelling; the JSON calls them directly, as p4c-bm did for P4_14 programs).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header ops_t { bit<8> op; bit<32> a; bit<32> b; bit<32> r; bit<8> flags; }

struct headers { ethernet_t ethernet; vlan_t vlan; ipv4_t ipv4; ops_t ops; }
struct metadata { bit<8> class; }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x8100: parse_vlan; 0x0800: parse_ipv4_untagged; 0x88b5: parse_ops; default: accept;
        }
    }
    state parse_vlan {
        packet.extract(hdr.vlan);
        // The key is 0x000a0800 for VLAN 10 over IPv4: each field right-aligned in whole bytes.
        transition select(hdr.vlan.vid, hdr.vlan.etherType) {
            (10, 0x0800): parse_ipv4_vlan10;
            (0x000 &&& 0xf00, 0x0800): parse_ipv4_lowvid;
            (_, 0x88b5): parse_ops;
            default: accept;
        }
    }
    state parse_ipv4_vlan10 { meta.class = 1; packet.extract(hdr.ipv4); transition accept; }
    state parse_ipv4_lowvid { meta.class = 2; packet.extract(hdr.ipv4); transition accept; }
    state parse_ipv4_untagged { meta.class = 3; packet.extract(hdr.ipv4); transition accept; }
    state parse_ops { packet.extract(hdr.ops); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    action op_add() { hdr.ops.r = hdr.ops.a + hdr.ops.b; }
    action op_sub() { hdr.ops.r = hdr.ops.a - hdr.ops.b; }
    action op_mul() { hdr.ops.r = hdr.ops.a * hdr.ops.b; }
    action op_div() { hdr.ops.r = hdr.ops.a / hdr.ops.b; }
    action op_mod() { hdr.ops.r = hdr.ops.a % hdr.ops.b; }
    action op_shl() { hdr.ops.r = hdr.ops.a << hdr.ops.b; }
    action op_shr() { hdr.ops.r = hdr.ops.a >> hdr.ops.b; }
    action op_and() { hdr.ops.r = hdr.ops.a & hdr.ops.b; }
    action op_or() { hdr.ops.r = hdr.ops.a | hdr.ops.b; }
    action op_xor() { hdr.ops.r = hdr.ops.a ^ hdr.ops.b; }
    action op_not() { hdr.ops.r = ~hdr.ops.a; }
    action op_cmp() {
        hdr.ops.flags = (bit<8>)(hdr.ops.a == hdr.ops.b) << 5 | (bit<8>)(hdr.ops.a != hdr.ops.b) << 4
                      | (bit<8>)(hdr.ops.a < hdr.ops.b) << 3 | (bit<8>)(hdr.ops.a <= hdr.ops.b) << 2
                      | (bit<8>)(hdr.ops.a > hdr.ops.b) << 1 | (bit<8>)(hdr.ops.a >= hdr.ops.b);
    }
    action op_logic() {
        hdr.ops.flags = (bit<8>)(hdr.ops.a < hdr.ops.b && !(hdr.ops.a == 0)) << 1
                      | (bit<8>)(hdr.ops.a == 0 || hdr.ops.b == 0);
    }
    action op_min() { hdr.ops.r = hdr.ops.a < hdr.ops.b ? hdr.ops.a : hdr.ops.b; }
    action op_satsub() { hdr.ops.r = hdr.ops.a |-| hdr.ops.b; }
    // op_prim_add ... op_prim_shift_right, op_add_to_field, op_subtract_from_field and
    // op_modify_field call bmv2's primitives of those names (see the comment at the top).
    action bounce() { standard_metadata.egress_spec = standard_metadata.ingress_port; }
    action set_port(bit<9> port) { standard_metadata.egress_spec = port; }
    action drop() { mark_to_drop(standard_metadata); }
    action mark(bit<8> tos) { hdr.ipv4.diffserv = tos; }
    action record_class() { hdr.ipv4.identification = (bit<16>)meta.class; }

    table ops_tbl { key = { hdr.ops.op : exact; } actions = { op_add; op_sub; /* ... */ NoAction; } default_action = NoAction(); }
    table ipv4_lpm { key = { hdr.ipv4.dstAddr : lpm; } actions = { set_port; drop; } default_action = drop(); }
    table acl {
        key = { hdr.ipv4.srcAddr : ternary; hdr.ipv4.protocol : ternary; }
        actions = { drop; mark; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.ops.isValid()) {
            ops_tbl.apply();
            bounce();
        } else if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            acl.apply();
            record_class();
        } else {
            bounce();
        }
    }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) { apply { } }
control DeparserImpl(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.vlan); packet.emit(hdr.ipv4); packet.emit(hdr.ops); }
}
control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
