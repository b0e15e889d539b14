"""The hand-written test programs of tests/data/p4 through the Python binding, on the
device's two ports. Expected frames are built here, field by field."""
import pathlib

import pytest

from dpusim import p4
from dpusim.ptf import Dataplane, send_packet, verify_dropped, verify_no_other_packets, verify_packet
from p4_frames import ETH_OPS, ethernet

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "p4"


def load(name, policy="device"):
    return p4.Engine.load_file(DATA / name, policy)


def test_loopback_returns_each_frame_unchanged_to_its_ingress_port():
    dp = Dataplane(load("loopback.json"))
    frames = [b"\x01", ethernet() + b"payload", bytes(range(256)) * 64]  # 1, 21 and 16384 bytes
    for port in (p4.HOST, p4.UPLINK):
        for frame in frames:
            send_packet(dp, port, frame)
            verify_packet(dp, frame, port)
    verify_no_other_packets(dp)
    stats = dp.engine.stats
    assert (stats["host_in"], stats["host_out"], stats["uplink_in"], stats["uplink_out"]) == (3, 3, 3, 3)


def test_loopback_drops_and_counts_frames_it_cannot_run():
    dp = Dataplane(load("loopback.json"))
    send_packet(dp, p4.HOST, b"")
    verify_dropped(dp, "too_small")
    send_packet(dp, p4.HOST, bytes(16385))
    verify_dropped(dp, "too_big")
    verify_no_other_packets(dp)
    stats = dp.engine.stats
    assert (stats["dropped"], stats["too_big"], stats["host_out"]) == (2, 1, 0)


def test_minimal_forward_drops_until_an_entry_for_the_destination_exists():
    engine = load("minimal_forward.json")
    dp = Dataplane(engine)
    frame = ethernet(dst="0a:00:00:00:00:01") + b"hello"
    send_packet(dp, p4.HOST, frame)
    verify_dropped(dp, "ingress_drop")
    engine.insert("ingress.fwd", [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}],
                  "ingress.forward", {"port": 1})
    send_packet(dp, p4.HOST, frame)
    verify_packet(dp, frame, p4.UPLINK)
    other = ethernet(dst="0a:00:00:00:00:02") + b"hello"
    send_packet(dp, p4.HOST, other)
    verify_dropped(dp, "ingress_drop")
    engine.update({"type": "MODIFY", "table": "ingress.fwd",
                   "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}],
                   "action": "ingress.forward", "params": {"port": "0"}})
    send_packet(dp, p4.UPLINK, frame)
    verify_packet(dp, frame, p4.HOST)
    engine.update({"type": "DELETE", "table": "ingress.fwd",
                   "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}]})
    send_packet(dp, p4.HOST, frame)
    verify_dropped(dp, "ingress_drop")
    verify_no_other_packets(dp)


def test_minimal_forward_to_a_port_the_device_does_not_have_is_a_drop():
    engine = load("minimal_forward.json")
    engine.insert("ingress.fwd", [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}],
                  "ingress.forward", {"port": 2})
    result = engine.process(p4.HOST, ethernet(dst="0a:00:00:00:00:01"))
    assert result == p4.Dropped("no_such_port")


def tag(id_, addr, out=0):
    return id_.to_bytes(2, "big") + addr.to_bytes(16, "big") + out.to_bytes(16, "big")


def test_key_mask_puts_packet_key_and_entries_under_the_mask():
    engine = load("key_mask.json")
    engine.insert("ingress.ids", [{"field": "hdr.tag.id & 0x00ff", "value": "0x1234"}], "ingress.by_id", {"port": 1})
    dp = Dataplane(engine)
    # Under 0x00ff the entry for 0x1234 is the entry for 0x0034: it matches 0xab34 too.
    for id_ in (0x1234, 0xAB34, 0x0034):
        frame = ethernet(ethertype=ETH_OPS) + tag(id_, 0)
        send_packet(dp, p4.HOST, frame)
        verify_packet(dp, frame, p4.UPLINK)
    send_packet(dp, p4.HOST, ethernet(ethertype=ETH_OPS) + tag(0x1235, 0))
    verify_dropped(dp, "ingress_drop")
    with pytest.raises(p4.UpdateError) as refused:
        engine.insert("ingress.ids", [{"field": "hdr.tag.id & 0x00ff", "value": "0x5634"}], "ingress.by_id", {"port": 0})
    assert refused.value.code == "duplicate_entry"


def test_key_mask_128_bit_key_and_argument():
    engine = load("key_mask.json")
    engine.insert("ingress.ids", [{"field": "hdr.tag.id & 0x00ff", "value": 7}], "ingress.by_id", {"port": 0})
    addr = 0x0123456789ABCDEF_0011223344556677
    value = 0xFEDCBA9876543210_8899AABBCCDDEEFF
    engine.insert("ingress.addrs", [{"field": "hdr.tag.addr", "value": hex(addr)}], "ingress.by_addr", {"value": hex(value)})
    frame = ethernet(ethertype=ETH_OPS) + tag(7, addr) + b"tail"
    assert engine.process(p4.UPLINK, frame) == p4.Forwarded(0, ethernet(ethertype=ETH_OPS) + tag(7, addr, value) + b"tail")
    miss = ethernet(ethertype=ETH_OPS) + tag(7, addr ^ 1)
    assert engine.process(p4.UPLINK, miss) == p4.Forwarded(0, miss)
    with pytest.raises(p4.UpdateError) as refused:
        engine.insert("ingress.addrs", [{"field": "hdr.tag.addr", "value": hex(1 << 128)}], "ingress.by_addr", {"value": 0})
    assert refused.value.code == "value_width"
    with pytest.raises(p4.UpdateError) as refused:
        engine.insert("ingress.addrs", [{"field": "hdr.tag.addr", "value": 5}], "ingress.by_addr", {"value": hex(1 << 128)})
    assert refused.value.code == "params"
