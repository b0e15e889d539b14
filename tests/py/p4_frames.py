"""Frames for the P4 tests, built field by field with struct (no packet library)."""
import struct

ETH_IPV4 = 0x0800
ETH_VLAN = 0x8100
ETH_OPS = 0x88B5  # IEEE local experimental EtherType, used by the test programs' own headers


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def ip(text):
    return bytes(int(x) for x in text.split("."))


def ethernet(dst="02:00:00:00:00:02", src="02:00:00:00:00:01", ethertype=ETH_IPV4):
    return mac(dst) + mac(src) + struct.pack("!H", ethertype)


def vlan(vid, ethertype, pcp=0, dei=0):
    return struct.pack("!HH", (pcp << 13) | (dei << 12) | vid, ethertype)


def ipv4(src="10.0.0.1", dst="10.0.0.2", proto=6, ttl=64, tos=0, ident=0, total_len=20):
    return struct.pack("!BBHHHBBH4s4s", 0x45, tos, total_len, ident, 0, ttl, proto, 0, ip(src), ip(dst))


def ops(op, a, b, r=0, flags=0):
    return struct.pack("!BIIIB", op, a, b, r, flags)


def unpack_ops(data):
    op, a, b, r, flags = struct.unpack("!BIIIB", data[:14])
    return {"op": op, "a": a, "b": b, "r": r, "flags": flags}
