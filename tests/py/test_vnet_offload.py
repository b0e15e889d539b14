"""The vnet endpoint's transmit offloads (docs/vnet.md, "Transmit offloads"): a virtio_net_hdr_v1
asking for a checksum or TCP segmentation, as the driver writes it, and what reaches the wire.
The checksums are verified here with the test's own sum."""
import struct

from dpusim.testing import run_ok
from dpusim.vnet import vnet
from vnet_util import bring_up, vnet_platform, wait_mq_started

NEEDS_CSUM, GSO_TCPV4, GSO_UDP_L4 = 1, 1, 5
SRC, DST = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])


def csum(data, start=0):
    """RFC 1071: the folded ones' complement sum (not complemented)."""
    if len(data) % 2:
        data += b"\0"
    s = start + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def pseudo(proto, length):
    return csum(SRC + DST + struct.pack("!BBH", 0, proto, length))


def hdr(flags=0, gso_type=0, hdr_len=0, gso_size=0, csum_start=0, csum_offset=0):
    return struct.pack("<BBHHHHH", flags, gso_type, hdr_len, gso_size, csum_start, csum_offset, 0)


def eth(src):
    return b"\x02\x00\x00\x00\x00\xaa" + src + b"\x08\x00"


def ipv4(proto, total, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, ident, 0x4000, 64, proto, 0, SRC, DST)
    return h[:10] + struct.pack("!H", ~csum(h) & 0xFFFF) + h[12:]


def tso4_frame(src, data):
    """What Linux hands over for TSO: IPv4 total length of the whole, the pseudo-header's sum in
    the TCP checksum field; a 32-byte TCP header (timestamps), PSH|ACK."""
    tcp = struct.pack("!HHIIBBHHH", 49152, 5001, 7000, 1, 0x80, 0x18, 502, pseudo(6, 32 + len(data)), 0)
    tcp += b"\x01\x01\x08\x0a" + bytes(8)
    return eth(src) + ipv4(6, 20 + 32 + len(data), 0x100) + tcp + data


def test_tso4_frame_leaves_as_segments_with_valid_checksums():
    payload = bytes(i % 251 for i in range(3000))

    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await wait_mq_started(sim, 0, 4)
        await net.send(tso4_frame(net.mac, payload), hdr=hdr(NEEDS_CSUM, GSO_TCPV4, 66, 1448, 34, 16))
        got = [(await sim.net.recv(0)).data for _ in range(3)]
        return got, vnet(sim).counters(0)

    res = run_ok(scenario, vnet_platform(peer="python"))
    segments, counters = res.result
    assert [len(s) for s in segments] == [1514, 1514, 170]
    for i, s in enumerate(segments):
        ip, tcp = s[14:34], s[34:]
        assert struct.unpack("!H", ip[2:4])[0] == len(s) - 14            # IPv4 total length
        assert struct.unpack("!H", ip[4:6])[0] == 0x100 + i              # IPv4 ID
        assert csum(ip) == 0xFFFF                                          # IPv4 header checksum
        assert struct.unpack("!I", tcp[4:8])[0] == 7000 + 1448 * i        # sequence number
        assert tcp[13] == (0x18 if i == 2 else 0x10)                       # PSH on the last only
        assert csum(tcp, pseudo(6, len(tcp))) == 0xFFFF                    # TCP checksum
        assert tcp[32:] == payload[1448 * i:1448 * (i + 1)]
    assert {k: counters[k] for k in ("tx_frames", "tx_gso_frames", "tx_segments", "tx_csum_filled",
                                     "tx_offload_drops", "tx_dropped")} == {
        "tx_frames": 3, "tx_gso_frames": 1, "tx_segments": 3, "tx_csum_filled": 3, "tx_offload_drops": 0,
        "tx_dropped": 0}
    (gso,) = res.events("tx_gso")
    assert (gso["len"], gso["gso_type"], gso["gso_size"], gso["segments"]) == (3066, 1, 1448, 3)


def test_udp_checksum_filled():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await wait_mq_started(sim, 0, 4)
        data = b"hello world"
        udp = struct.pack("!HHHH", 40000, 53, 8 + len(data), pseudo(17, 8 + len(data))) + data
        await net.send(eth(net.mac) + ipv4(17, 20 + len(udp), 1) + udp, hdr=hdr(NEEDS_CSUM, csum_start=34, csum_offset=6))
        return (await sim.net.recv(0)).data, vnet(sim).counters(0)

    res = run_ok(scenario, vnet_platform(peer="python"))
    got, counters = res.result
    udp = got[34:]
    assert struct.unpack("!H", udp[6:8])[0] == 0x4D80
    assert csum(udp, pseudo(17, len(udp))) == 0xFFFF
    assert counters["tx_csum_filled"] == 1 and counters["tx_segments"] == 0


def test_bad_offload_requests_are_counted_drops():
    bad = [(hdr(NEEDS_CSUM, GSO_TCPV4, 66, 0, 34, 16), "gso_size 0"),
           (hdr(NEEDS_CSUM, GSO_TCPV4, 4000, 1448, 34, 16), "hdr_len 4000 beyond the 3066-byte frame"),
           (hdr(NEEDS_CSUM, 0, 0, 0, 3060, 16), "csum_start 3060 + csum_offset 16 puts the checksum outside the 3066-byte frame"),
           (hdr(NEEDS_CSUM, GSO_UDP_L4, 42, 1472, 34, 6), "gso_type 5 (UDP_L4) not negotiated")]

    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await wait_mq_started(sim, 0, 4)
        for h, _ in bad:
            await net.send(tso4_frame(net.mac, bytes(3000)), hdr=h)
        await net.send(tso4_frame(net.mac, bytes(100)))  # no offload: leaves as it is
        return (await sim.net.recv(0)).data, vnet(sim).counters(0)

    res = run_ok(scenario, vnet_platform(peer="python"))
    got, counters = res.result
    assert len(got) == 166
    assert (counters["tx_offload_drops"], counters["tx_dropped"], counters["tx_frames"]) == (4, 4, 1)
    drops = res.events("tx_drop")
    assert [e["reason"] for e in drops] == [why for _, why in bad]
    assert [(e["len"], e["gso_type"], e["hdr_len"], e["gso_size"], e["csum_start"], e["csum_offset"]) for e in drops] == [
        (3066, 1, 66, 0, 34, 16), (3066, 1, 4000, 1448, 34, 16), (3066, 0, 0, 0, 3060, 16), (3066, 5, 42, 1472, 34, 6)]
