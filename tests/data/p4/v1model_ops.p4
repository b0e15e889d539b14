// The P4 source that v1model_ops.json stands for: one action for each of simple_switch's
// v1model primitives (counters, meters, registers, hashes, random, clone, multicast,
// resubmit, recirculate, digests, log_msg, truncate), a range table, a table with direct
// counters, an action selector, an LPM table with a direct meter that routes IPv4, and the
// IPv4 checksum verified and updated. The ops table dispatches on the tag header's op; egress
// stamps the instance type, the replication id and the queue depth into the tag. (The JSON
// is written in the shape p4c emits; resubmit_it and recirc_it act on the first pass only,
// through a _jump_if_zero.)
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tag_t { bit<8> op; bit<8> arg; bit<16> out; bit<32> data; bit<8> inst; bit<16> rid; bit<8> qdepth; }

struct headers { ethernet_t ethernet; ipv4_t ipv4; tag_t tag; }
struct metadata {
    bit<8> color; bit<32> reg;
    @field_list(1) bit<8> pass;
    bit<16> hash;
}
struct learn_src { bit<48> srcAddr; bit<9> ingress_port; }

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: parse_ipv4; 0x88b5: parse_tag; default: accept; }
    }
    state parse_ipv4 { packet.extract(hdr.ipv4); transition accept; }
    state parse_tag { packet.extract(hdr.tag); transition accept; }
}

control verifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(), { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
            hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
            hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    counter(8, CounterType.packets_and_bytes) ctr;
    meter(8, MeterType.packets) mtr;
    register<bit<32>>(8) reg;
    direct_counter(CounterType.packets_and_bytes) stats_ctr;
    direct_meter<bit<8>>(MeterType.bytes) dmtr;
    action_selector(HashAlgorithm.crc16, 64, 16) ap;

    action set_port(bit<9> port) { standard_metadata.egress_spec = port; }
    action count_it(bit<32> idx) { ctr.count(idx); standard_metadata.egress_spec = 1; }
    action meter_it(bit<32> idx) { mtr.execute_meter(idx, meta.color); hdr.tag.out = (bit<16>)meta.color; standard_metadata.egress_spec = 1; }
    action reg_rw(bit<32> idx) { reg.read(meta.reg, idx); reg.write(idx, hdr.tag.data); hdr.tag.data = meta.reg; standard_metadata.egress_spec = 1; }
    action hash_it() { hash(hdr.tag.out, HashAlgorithm.crc16, 16w0, { hdr.tag.data }, 32w0x10000); standard_metadata.egress_spec = 1; }
    action hash32() { hash(hdr.tag.data, HashAlgorithm.crc32, 32w0, { hdr.tag.data }, 33w0x100000000); standard_metadata.egress_spec = 1; }
    action rand() { random(hdr.tag.arg, 8w0, 8w255); standard_metadata.egress_spec = 1; }
    action clone_i2e(bit<32> session) { clone_preserving_field_list(CloneType.I2E, session, 1); hdr.tag.arg = 0x55; standard_metadata.egress_spec = 1; }
    action mcast(bit<16> grp) { standard_metadata.mcast_grp = grp; }
    action resubmit_it() {
        meta.pass = meta.pass + 1; hdr.tag.arg = meta.pass; standard_metadata.egress_spec = 1;
        if (meta.pass == 1) { resubmit_preserving_field_list(1); }
    }
    action recirc_it() {
        meta.pass = meta.pass + 1; hdr.tag.arg = meta.pass; standard_metadata.egress_spec = 1;
        if (meta.pass == 1) { recirculate_preserving_field_list(1); }
    }
    action digest_it() { digest<learn_src>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port }); standard_metadata.egress_spec = 1; }
    action log_it() { log_msg("op {} data {}", { hdr.tag.op, hdr.tag.data }); standard_metadata.egress_spec = 1; }
    action trunc(bit<32> len) { truncate(len); standard_metadata.egress_spec = 1; }
    action drop() { mark_to_drop(standard_metadata); }
    action set_out(bit<16> v) { hdr.tag.out = v; }
    action pick(bit<9> port, bit<16> v) { standard_metadata.egress_spec = port; hdr.tag.out = v; }
    action route(bit<9> port) { standard_metadata.egress_spec = port; hdr.ipv4.ttl = hdr.ipv4.ttl - 1; dmtr.read(meta.color); }

    table ops {
        key = { hdr.tag.op: exact; }
        actions = { set_port; count_it; meter_it; reg_rw; hash_it; hash32; rand; clone_i2e; mcast; resubmit_it; recirc_it;
                    digest_it; log_it; trunc; drop; NoAction; }
        default_action = NoAction();
    }
    table ranges { key = { hdr.tag.data: range; hdr.tag.arg: ternary; } actions = { set_out; NoAction; } default_action = NoAction(); }
    table stats { key = { hdr.tag.op: exact; } actions = { NoAction; } counters = stats_ctr; }
    table select { key = { hdr.tag.op: exact; hdr.tag.data: selector; } actions = { pick; NoAction; } implementation = ap; }
    table routes { key = { hdr.ipv4.dstAddr: lpm; } actions = { route; drop; } default_action = drop(); meters = dmtr; }
    apply {
        if (hdr.tag.isValid()) { ops.apply(); ranges.apply(); stats.apply(); select.apply(); }
        else { routes.apply(); }
    }
}

control egress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    action clone_e2e(bit<32> session) { clone_preserving_field_list(CloneType.E2E, session, 1); }
    action stamp() {
        hdr.tag.inst = (bit<8>)standard_metadata.instance_type;
        hdr.tag.rid = standard_metadata.egress_rid;
        hdr.tag.qdepth = (bit<8>)standard_metadata.enq_qdepth;
    }
    table e2e { key = { hdr.tag.op: exact; standard_metadata.instance_type: exact; } actions = { clone_e2e; NoAction; } default_action = NoAction(); }
    table mark { actions = { stamp; } default_action = stamp(); }
    apply { if (hdr.tag.isValid()) { e2e.apply(); mark.apply(); } }
}

control computeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(), { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
            hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
            hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control DeparserImpl(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.ipv4); packet.emit(hdr.tag); }
}

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
