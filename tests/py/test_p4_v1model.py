"""simple_switch's v1model features on tests/data/p4/v1model_ops.json (its P4 source is
v1model_ops.p4): counters, meters, registers, hashes, clone, multicast, resubmit,
recirculate, digests, log_msg, truncate, random, range match, direct counters, action
selectors and the IPv4 checksum, each driven through simple_switch_CLI commands and checked
byte for byte."""
import json
import struct
from pathlib import Path

import pytest

from dpusim import p4

PROG = Path(__file__).resolve().parents[1] / "data" / "p4" / "v1model_ops.json"


def engine():
    return p4.Engine.load_file(PROG, "v1model")


def tag(op, arg=0, out=0, data=0):
    """Ethernet (EtherType 0x88b5) and the program's tag header: op, arg, out, data, then
    inst, rid and qdepth, which egress stamps."""
    return (bytes.fromhex("020000000002" "020000000001" "88b5") + bytes([op, arg]) + out.to_bytes(2, "big") +
            data.to_bytes(4, "big") + bytes(4))


def tags(run):
    """Each output as (port, the tag header's bytes, instance type)."""
    return [(o.port, o.data[14:].hex(), o.instance_type) for o in run.outputs]


def crc(data, width, poly, init, xor_out, reflect):
    """A bit-at-a-time CRC (the textbook form), to check the engine's table-driven one."""
    def refl(v, n):
        return int(f"{v:0{n}b}"[::-1], 2)
    reg = init
    top = 1 << (width - 1)
    for byte in data:
        reg ^= (refl(byte, 8) if reflect else byte) << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) if reg & top else reg << 1
            reg &= (1 << width) - 1
    return (refl(reg, width) if reflect else reg) ^ xor_out


def test_counter_counts_packets_and_ingress_bytes_and_an_index_past_the_array_counts_nothing():
    e = engine()
    e.cli("table_add ingress.ops ingress.count_it 1 => 3")
    e.cli("table_add ingress.ops ingress.count_it 2 => 8")  # the array has 8 cells: 0..7
    for _ in range(3):
        e.run(1, tag(1))
    e.run(1, tag(2))
    assert e.cli("counter_read ingress.ctr 3") == "ingress.ctr[3]= (78 bytes, 3 packets)\n"
    assert [e.cli(f"counter_read ingress.ctr {i}") for i in (0, 7)] == ["ingress.ctr[0]= (0 bytes, 0 packets)\n",
                                                                     "ingress.ctr[7]= (0 bytes, 0 packets)\n"]
    with pytest.raises(p4.CliError, match="index 8 is past its 8 cells"):
        e.cli("counter_read ingress.ctr 8")


def test_register_read_returns_the_previous_write():
    e = engine()
    e.cli("table_add ingress.ops ingress.reg_rw 2 => 5")
    assert tags(e.run(1, tag(2, data=0xdeadbeef))) == [(1, "020000000000000000000000", 0)]
    assert tags(e.run(1, tag(2, data=7))) == [(1, "02000000deadbeef00000000", 0)]
    assert e.cli("register_read ingress.reg 5") == "ingress.reg[5]= 7\n"
    e.cli("register_write ingress.reg 5 0x1234")
    assert tags(e.run(1, tag(2, data=1))) == [(1, "020000000000123400000000", 0)]


def test_hash_based_offset_is_crc16_and_crc32_of_the_field():
    e = engine()
    e.cli("table_add ingress.ops ingress.hash_it 3 =>")
    e.cli("table_add ingress.ops ingress.hash32 4 =>")
    data = b"1234"
    c16 = crc(data, 16, 0x8005, 0, 0, True)
    c32 = crc(data, 32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True)
    assert crc(b"123456789", 16, 0x8005, 0, 0, True) == 0xBB3D  # CRC-16/ARC's check value
    assert tags(e.run(1, tag(3, data=0x31323334)))[0][1] == f"0300{c16:04x}3132333400000000"
    assert tags(e.run(1, tag(4, data=0x31323334)))[0][1] == f"04000000{c32:08x}00000000"


def test_meter_colours_follow_the_engine_clock():
    e = engine()
    e.cli("table_add ingress.ops ingress.meter_it 5 => 2")
    # One packet per second committed and two per second peak, bursts of 2 and 3 packets.
    e.cli("meter_set_rates ingress.mtr 2 0.000001:2 0.000002:3")
    colours = [e.run(1, tag(5), time_ns=t * 1000).outputs[0].data[17] for t in range(6)]
    assert colours == [0, 0, 1, 2, 2, 2]  # green, green, yellow, then red
    # Half a second later the peak bucket holds one more packet, the committed none yet.
    assert e.run(1, tag(5), time_ns=500_000_000).outputs[0].data[17] == 1
    # An unconfigured meter is green.
    e.cli("table_add ingress.ops ingress.meter_it 7 => 3")
    assert e.run(1, tag(7)).outputs[0].data[17] == 0


def test_ingress_clone_goes_first_as_the_reparsed_original_frame():
    e = engine()
    e.cli("table_add ingress.ops ingress.clone_i2e 8 => 5")
    e.cli("mirroring_add 5 7")
    # The clone: the frame as it came in (arg 0), instance type 1; the original: arg 0x55.
    assert tags(e.run(1, tag(8))) == [(7, "080000000000000001000000", 1), (1, "085500000000000000000000", 0)]
    e.cli("mirroring_delete 5")
    assert tags(e.run(1, tag(8))) == [(1, "085500000000000000000000", 0)]


def test_egress_clone_follows_the_original_with_egress_headers():
    e = engine()
    e.cli("table_add ingress.ops ingress.set_port 1 => 2")
    e.cli("table_add egress.e2e egress.clone_e2e 1 0 => 9")  # op 1, instance type 0: not the clone again
    e.cli("mirroring_add 9 3")
    assert tags(e.run(1, tag(1))) == [(2, "010000000000000000000000", 0), (3, "010000000000000002000000", 2)]


def test_multicast_replicates_per_node_and_port_with_rids_and_queue_depths():
    e = engine()
    e.cli("table_add ingress.ops ingress.mcast 9 => 3")
    e.cli("mc_mgrp_create 3")
    e.cli("mc_node_create 10 4 2")
    e.cli("mc_node_create 11 2")
    e.cli("mc_node_associate 3 0")
    e.cli("mc_node_associate 3 1")
    # Node order, ports ascending within a node; the second copy for port 2 queues behind
    # the first (enq_qdepth 1).
    assert tags(e.run(1, tag(9))) == [(2, "090000000000000005000a00", 5), (4, "090000000000000005000a00", 5),
                                      (2, "090000000000000005000b01", 5)]
    # A group nobody created: the packet is dropped.
    e.cli("table_add ingress.ops ingress.mcast 10 => 4")
    r = e.run(1, tag(10))
    assert r.outputs == [] and r.drops == 1


def test_resubmit_and_recirculate_keep_their_field_list():
    e = engine()
    e.cli("table_add ingress.ops ingress.resubmit_it 10 =>")
    e.cli("table_add ingress.ops ingress.recirc_it 11 =>")
    # meta.pass counts the passes; it survives in field list 1, so the second pass sees 2.
    assert tags(e.run(1, tag(10))) == [(1, "0a0200000000000000000000", 0)]
    assert tags(e.run(1, tag(11))) == [(1, "0b0200000000000000000000", 0)]


def test_digest_log_msg_and_truncate():
    e = engine()
    e.cli("table_add ingress.ops ingress.digest_it 12 =>")
    e.cli("table_add ingress.ops ingress.log_it 13 =>")
    e.cli("table_add ingress.ops ingress.trunc 14 => 16")
    r = e.run(4, tag(12))
    assert r.digests == [p4.Digest("learn_src", (("ethernet.srcAddr", "0x20000000001"), ("standard_metadata.ingress_port", "0x4")))]
    assert e.run(1, tag(13, data=99)).logs == ["op 13 data 99"]
    assert [len(o.data) for o in e.run(1, tag(14)).outputs] == [16]


def mt19937_64(seed):
    """The standard's mt19937_64, to check the engine's random numbers from a seed."""
    n, m = 312, 156
    mt = [seed]
    for i in range(1, n):
        mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & (2**64 - 1))
    i = n
    while True:
        if i >= n:
            for k in range(n):
                x = (mt[k] & 0xFFFFFFFF80000000) | (mt[(k + 1) % n] & 0x7FFFFFFF)
                mt[k] = mt[(k + m) % n] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            i = 0
        y = mt[i]
        i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        yield y & (2**64 - 1)


def test_random_draws_from_the_seed():
    e = engine()
    e.cli("table_add ingress.ops ingress.rand 6 =>")
    e.set_seed(7)
    got = [e.run(1, tag(6)).outputs[0].data[15] for _ in range(8)]
    ref = mt19937_64(7)
    assert got == [next(ref) % 256 for _ in range(8)]  # 256 divides 2^64: no rejection


def test_range_entries_rank_by_cli_priority_lower_wins():
    e = engine()
    e.cli("table_add ingress.ops ingress.set_port 1 => 2")
    e.cli("table_add ingress.ranges ingress.set_out 100->200 0&&&0 => 0x1111 5")
    e.cli("table_add ingress.ranges ingress.set_out 150->300 0&&&0 => 0x2222 1")
    outs = [e.run(1, tag(1, data=d)).outputs[0].data[16:18].hex() for d in (99, 100, 149, 150, 300, 301)]
    assert outs == ["0000", "1111", "1111", "2222", "2222", "0000"]
    with pytest.raises(p4.CliError, match="low end 0x12c is above high end 0x64"):
        e.cli("table_add ingress.ranges ingress.set_out 300->100 0&&&0 => 0x3333 1")


def test_direct_counter_counts_its_entry_by_handle():
    e = engine()
    e.cli("table_add ingress.ops ingress.set_port 1 => 2")
    e.cli("table_add ingress.stats NoAction 2 =>")
    e.cli("table_add ingress.stats NoAction 1 =>")  # handle 1
    e.run(1, tag(1))
    e.run(1, tag(1))
    assert e.cli("counter_read ingress.stats_ctr 1") == ("this is the direct counter for table ingress.stats\n"
                                                         "ingress.stats_ctr[1]= (52 bytes, 2 packets)\n")
    e.cli("table_delete ingress.stats 1")
    with pytest.raises(p4.CliError, match="has no entry of handle 1"):
        e.cli("counter_read ingress.stats_ctr 1")


def test_selector_picks_the_member_the_crc16_of_the_data_names():
    e = engine()
    e.cli("act_prof_create_member ingress.ap ingress.pick 3 0xaaaa")
    e.cli("act_prof_create_member ingress.ap ingress.pick 4 0xbbbb")
    e.cli("act_prof_create_group ingress.ap")
    e.cli("act_prof_add_member_to_group ingress.ap 0 0")
    e.cli("act_prof_add_member_to_group ingress.ap 1 0")
    e.cli("table_indirect_add_with_group ingress.select 1 => 0")
    for d in range(6):
        h = crc(d.to_bytes(4, "big"), 16, 0x8005, 0, 0, True)
        port, data, _ = tags(e.run(1, tag(1, data=d)))[0]
        assert (port, data[4:8]) == ((3, "aaaa") if h % 2 == 0 else (4, "bbbb"))
    with pytest.raises(p4.CliError, match="in_use"):
        e.cli("act_prof_delete_member ingress.ap 0")


def ipv4_frame(ttl, dst, checksum=None):
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20, 1, 0, ttl, 17, 0, bytes([10, 0, 0, 1]), bytes(dst)))
    if checksum is None:
        s = sum(ip[i] << 8 | ip[i + 1] for i in range(0, 20, 2))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        checksum = ~s & 0xFFFF
    ip[10:12] = checksum.to_bytes(2, "big")
    return bytes.fromhex("020000000002020000000001" "0800") + bytes(ip)


def test_route_decrements_ttl_and_the_deparser_rewrites_the_ipv4_checksum():
    e = engine()
    e.cli("table_add ingress.routes ingress.route 10.1.0.0/16 => 5")
    out = e.run(1, ipv4_frame(64, [10, 1, 2, 3])).outputs
    assert [(o.port, o.data) for o in out] == [(5, ipv4_frame(63, [10, 1, 2, 3]))]
    # No route: the default drops.
    r = e.run(1, ipv4_frame(64, [10, 2, 0, 1]))
    assert r.outputs == [] and r.first_drop == "ingress_drop"


def test_a_program_that_always_recirculates_is_cut_after_4096_passes():
    doc = json.loads(PROG.read_text())
    recirc = next(a for a in doc["actions"] if a["name"] == "ingress.recirc_it")
    recirc["primitives"][3]["parameters"][1]["value"] = "0x4"  # the jump lands on recirculate: always
    e = p4.Engine.load(json.dumps(doc), "v1model")
    e.cli("table_add ingress.ops ingress.recirc_it 11 =>")
    r = e.run(1, tag(11))
    assert r.outputs == [] and r.first_drop == "fault" and "4096 pipeline passes" in r.fault
