"""PTF-style helpers for P4 tests, after p4lang/ptf's testutils: ``send_packet`` puts a
frame on a port, ``verify_packet`` checks the next frame out of a port (optionally through
a ``Mask`` of don't-care bits), ``verify_no_other_packets`` checks nothing else came out.

    dp = Dataplane(engine)
    send_packet(dp, 0, frame)
    verify_packet(dp, expected, 1)
    verify_no_other_packets(dp)
"""
from collections import defaultdict, deque

from dpusim.p4 import Dropped


class Mask:
    """An expected frame with don't-care bits (ptf.mask.Mask)."""

    def __init__(self, exp_pkt):
        self.exp_pkt = bytes(exp_pkt)
        self.mask = bytearray(b"\xff" * len(self.exp_pkt))

    def set_do_not_care(self, offset_bits, bitwidth):
        for bit in range(offset_bits, offset_bits + bitwidth):
            self.mask[bit // 8] &= ~(0x80 >> (bit % 8)) & 0xff

    def matches(self, pkt):
        if len(pkt) != len(self.exp_pkt):
            return False
        return all((a & m) == (b & m) for a, b, m in zip(pkt, self.exp_pkt, self.mask))


class Dataplane:
    """The engine's output ports as queues, and the drops it reported."""

    def __init__(self, engine):
        self.engine = engine
        self.queues = defaultdict(deque)
        self.drops = []

    def send(self, port, frame):
        result = self.engine.process(port, frame)
        if isinstance(result, Dropped):
            self.drops.append(result)
        else:
            self.queues[result.port].append(result.data)
        return result


def send_packet(dataplane, port, pkt):
    return dataplane.send(port, bytes(pkt))


def verify_packet(dataplane, exp_pkt, port):
    queue = dataplane.queues[port]
    assert queue, f"expected a packet on port {port}, none came out (drops: {dataplane.drops})"
    got = queue.popleft()
    if isinstance(exp_pkt, Mask):
        assert exp_pkt.matches(got), f"port {port}: got {got.hex()}, expected {exp_pkt.exp_pkt.hex()} under mask"
    else:
        assert got == bytes(exp_pkt), f"port {port}: got {got.hex()}, expected {bytes(exp_pkt).hex()}"


def verify_no_packet(dataplane, exp_pkt, port):
    queue = dataplane.queues[port]
    for got in queue:
        assert got != bytes(exp_pkt), f"port {port}: unexpected packet {got.hex()}"


def verify_no_other_packets(dataplane):
    left = {port: [p.hex() for p in q] for port, q in dataplane.queues.items() if q}
    assert not left, f"unexpected packets: {left}"


def verify_dropped(dataplane, reason=None):
    """The last frame sent was dropped (for the given reason, when one is named)."""
    assert dataplane.drops, "expected a drop, none was reported"
    last = dataplane.drops.pop()
    if reason is not None:
        assert last.reason == reason, f"dropped for {last.reason} ({last.fault}), expected {reason}"
