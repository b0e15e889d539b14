"""The P4 RDMA path on the ionic NIC, driven only through the guest's control surface: an entry
that turns an ordinary two-SGE RDMA write into an fp8 reduction, modified into another
arithmetic with no change to the device; a one-SGE write still dispatched; a reduction naming a
peer's rkey refused; a program replaced by an Ethernet one leaves the path as if none were
loaded."""
from dpusim import formats
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.ionic_rdma import IonicRdma
from dpusim.testing import run_ok
from ionic_util import bring_up, ionic_platform, program


def policy(kind, action, params):
    return {"type": kind, "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"}], "action": action, "params": params}


def test_the_control_surface_turns_a_write_into_a_reduction():
    a_bytes = bytes([0x38, 0x40, 0x44, 0xB8, 0x01, 0x7E, 0x30, 0x00])
    b_bytes = bytes([0x38, 0x3C, 0xC4, 0x38, 0x01, 0x7E, 0x31, 0x80])

    async def scenario(sim):
        _, nics = await bring_up(sim)
        r, peer = [await IonicRdma(n).probe() for n in nics]
        p4 = IonicP4(nics[0], claim="load")
        cq, pcq = await r.create_cq(64), await peer.create_cq(64)
        local = await r.create_qp(cq, cq)
        await r.connect(local, local.id, dest_ip="10.0.0.1")   # on a mesh: its own address
        remote, pqp = await r.create_qp(cq, cq), await peer.create_qp(pcq, pcq)
        await r.connect(remote, pqp.id, dest_ip="10.0.0.2")
        await peer.connect(pqp, remote.id, dest_ip="10.0.0.1")
        a, b, dst = await r.reg_mr(64), await r.reg_mr(64), await r.reg_mr(64)
        far = await peer.reg_mr(64)
        h = sim.host
        h.write(a.buf, a_bytes)
        h.write(b.buf, b_bytes)
        out = {}

        async def write(qp, sges, mr, wr_id):
            h.write(mr.buf, bytes(16))
            await r.post_send(qp, "RDMA_WRITE", sges, wr_id=wr_id, remote_addr=mr.addr, rkey=mr.rkey)
            (wc,) = await r.wait(cq, 1)
            return wc.status, h.read(mr.buf, 16) if mr is not far else h.read(far.buf, 16)

        two = [a.sge(0, 8), b.sge(0, 8)]
        out["no entry"] = await write(local, two, dst, 1)
        await p4.update([policy("INSERT", "ingress.reduce", {"op": "0", "fmt": "3"})])
        out["e4m3 add"] = await write(local, two, dst, 2)
        await p4.update([policy("MODIFY", "ingress.reduce", {"op": "2", "fmt": "4"})])
        out["e5m2 mul"] = await write(local, two, dst, 3)
        out["one SGE"] = await write(local, [a.sge(0, 8)], dst, 4)
        out["peer rkey"] = await write(remote, two, far, 5)
        await p4.load_program(program("minimal_forward.json"))
        remote2 = await r.create_qp(cq, cq)        # the refusal above flushed `remote`
        await r.connect(remote2, pqp.id, dest_ip="10.0.0.2")
        out["Ethernet program"] = await write(local, two, dst, 6)
        return out

    res = run_ok(scenario, ionic_platform({"p4-program": program("fp8_policy.json"), "p4-guest-scope": "load"}, {},
                                          mesh=True))
    out = res.result
    assert out["no entry"] == ("OK", a_bytes + b_bytes)
    assert out["e4m3 add"] == ("OK", formats.apply("add", "fp8_e4m3", a_bytes, b_bytes) + bytes(8))
    assert out["e5m2 mul"] == ("OK", formats.apply("mul", "fp8_e5m2", a_bytes, b_bytes) + bytes(8))
    assert out["one SGE"] == ("OK", a_bytes + bytes(8))
    assert out["peer rkey"] == ("LOCAL_QP_OPER_ERR", bytes(16))
    assert out["Ethernet program"] == ("OK", a_bytes + b_bytes)
    reasons = [(e["action"], e.get("reason")) for e in res.events("rdma_p4", path="ep0")]
    assert reasons == [("dispatch", None), ("done", None), ("done", None), ("dispatch", None),
                       ("fail", "peer_rkey")]


def widen_in_place(chunk_bytes):
    """fp16 -> fp32 of 8192 bytes into the same pages, named by a second key with a virtual
    address of its own. Returns (status, the 16384 bytes after, the fp16 source)."""
    src_bytes = bytes((i * 37 + 11) & 0x7B for i in range(8192))  # finite fp16 values

    async def scenario(sim):
        _, nics = await bring_up(sim)
        r = await IonicRdma(nics[0]).probe()
        p4 = IonicP4(nics[0], claim="write")
        cq = await r.create_cq(64)
        qp = await r.create_qp(cq, cq)
        await r.connect(qp, qp.id, dest_ip="10.0.0.1")
        h = sim.host
        buf = h.alloc(16384, 4096)
        h.write(buf, src_bytes)
        src = await r.reg_mr(8192, buf=buf, pages=True)
        dst = await r.reg_mr(16384, buf=buf, pages=True)  # the same pages under another key
        await p4.update([{"type": "INSERT", "table": "ingress.convert_policy",
                          "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"},
                                    {"field": "meta.rdma_metadata.qp_num", "value": str(qp.id)}],
                          "action": "ingress.convert", "params": {"src_fmt": "1", "dst_fmt": "0"}}])
        await r.post_send(qp, "RDMA_WRITE", [src.sge()], wr_id=1, remote_addr=dst.addr, rkey=dst.rkey)
        (wc,) = await r.wait(cq, 1)
        return wc.status, h.read(buf, 16384)

    slot = {"p4-program": program("fp8_convert.json"), "p4-guest-scope": "write"}
    if chunk_bytes:
        slot["fp8-chunk-bytes"] = chunk_bytes
    res = run_ok(scenario, ionic_platform(slot, {}, mesh=True))
    return res.result[0], res.result[1], src_bytes


def test_a_conversion_onto_its_own_unread_source_is_streamed_a_page_at_a_time():
    """The P4 engine guide: "A conversion is streamed a chunk at a time -- read, convert, write
    -- so a destination overlapping the part of the source still to be read destroys it before
    it is used, and the operation then completes successfully with wrong results from that point
    on". Two keys over one buffer overlap on the bus, whatever their virtual addresses."""
    status, after, src = widen_in_place(None)  # the default chunk: 4096 source bytes
    exact = formats.convert("fp16", "fp32", src)
    assert status == "OK"
    assert after[:8192] == exact[:8192]
    # The second chunk reads the first chunk's fp32 results where its fp16 source was.
    assert after[8192:] == formats.convert("fp16", "fp32", exact[4096:8192]) != exact[8192:]


def test_a_chunk_as_long_as_the_source_converts_in_place_exactly():
    status, after, src = widen_in_place(8192)
    assert (status, after) == ("OK", formats.convert("fp16", "fp32", src))
