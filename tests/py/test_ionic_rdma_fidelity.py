"""The ionic NIC's RDMA datapath held to rocm-ernic's documented behaviour, one rule per test,
each quoting the sentence it holds: the SGEs a work request carries, when the P4 program runs,
which send work requests run it, and the completions of UD."""
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.ionic_regs import LIF_ID_RDMA
from dpusim.drivers.ionic_rdma import QTYPE_SQ, IonicRdma
from dpusim.testing import run_ok
from dpusim.units import us
from ionic_util import bring_up, ionic_platform, program
from rdma_util import sequence


def pieces(mr, count, first=3, step=1, gap=5):
    """`count` SGEs of `mr` of lengths first, first + step, ... with `gap` bytes between them."""
    out, at = [], 0
    for i in range(count):
        n = first + i * step
        out.append(mr.sge(at, n))
        at += n + gap
    return out


def gathered(host, mr, sges):
    return b"".join(host.read(mr.buf + (s.addr - mr.addr), s.length) for s in sges)


def test_a_wqe_carries_up_to_32_sges_as_the_stride_allows():
    # rocm-ernic (ionic_v1_wqe): "SGEs | from @32, 16 B each: be64 va, be32 len, be32 lkey; at
    # most 32, and no more than the stride allows". A WQE of stride 2^9 holds (512 - 32) / 16 =
    # 30 of them, one of 2^10 all 32.
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        h = sim.host
        cq = await r.create_cq(64)
        qp = await r.create_qp(cq, cq, sq_stride_log2=9, rq_stride_log2=9)
        await r.connect(qp, qp.id)
        src, dst, rcv = await r.reg_mr(4096), await r.reg_mr(4096), await r.reg_mr(4096)
        h.write(src.buf, sequence(4096, 29))
        out = {}

        # A 16-SGE RDMA WRITE: every byte of the 16 pieces lands, in order.
        sges = pieces(src, 16)                       # 3 + 4 + ... + 18 = 168 bytes
        await r.post_send(qp, "RDMA_WRITE", sges, wr_id=1, remote_addr=dst.addr + 7, rkey=dst.rkey)
        out["write"] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]
        out["write bytes"] = h.read(dst.buf + 7, 168) == gathered(h, src, sges)
        out["write past"] = h.read(dst.buf + 7 + 168, 8)

        # A 16-SGE SEND into a 16-SGE receive: gathered and scattered whole.
        landing = pieces(rcv, 16, first=10, step=2)   # 10 + 12 + ... + 40 = 400 bytes
        await r.post_recv(qp, landing, wr_id=2)
        await r.post_send(qp, "SEND", sges, wr_id=3)
        wcs = sorted(await r.wait(cq, 2), key=lambda w: w.wr_id)
        out["send"] = [(w.wr_id, w.status, w.byte_len) for w in wcs]
        message = gathered(h, src, sges)
        got, left = b"", 168
        for s in landing:
            n = min(s.length, left)
            got += h.read(rcv.buf + (s.addr - rcv.addr), n)
            left -= n
        out["send bytes"] = got == message

        # The limit: a WQE at stride 2^9 whose count says 31 has room for 30; the device reads
        # the 30 and nothing of the next slot.
        ones = [src.sge(i * 2, 1) for i in range(30)]
        await r.post_recv(qp, [rcv.sge(0, 64)], wr_id=4)
        slot = qp.sq_head % qp.sq_depth
        r._write_send(qp, "SEND", ones, wr_id=5)
        h.write(qp.sq_ring + slot * qp.sq_stride + 9, bytes([31]))    # num_sge_key
        await r.doorbell(QTYPE_SQ, qp.id, qp.sq_head % qp.sq_depth)
        wcs = sorted(await r.wait(cq, 2), key=lambda w: w.wr_id)
        out["31 at 2^9"] = [(w.wr_id, w.status, w.byte_len) for w in wcs]
        out["31 at 2^9 bytes"] = h.read(rcv.buf, 30) == gathered(h, src, ones)

        # At stride 2^10 the room is 62: 33 SGEs in the WQE, the device takes 32.
        wide = await r.create_qp(cq, cq, sq_stride_log2=10)
        await r.connect(wide, wide.id)
        more = [src.sge(i * 2, 1) for i in range(33)]
        await r.post_recv(wide, [rcv.sge(0, 64)], wr_id=6)
        await r.post_send(wide, "SEND", more, wr_id=7)
        wcs = sorted(await r.wait(cq, 2), key=lambda w: w.wr_id)
        out["33 at 2^10"] = [(w.wr_id, w.status, w.byte_len) for w in wcs]
        out["33 at 2^10 bytes"] = h.read(rcv.buf, 32) == gathered(h, src, more[:32])
        return out

    out = run_ok(scenario, ionic_platform({})).result
    assert out["write"] == [(1, "OK")]
    assert out["write bytes"] is True
    assert out["write past"] == bytes(8)
    assert out["send"] == [(2, "OK", 168), (3, "OK", 0)]
    assert out["send bytes"] is True
    assert out["31 at 2^9"] == [(4, "OK", 30), (5, "OK", 0)]
    assert out["31 at 2^9 bytes"] is True
    assert out["33 at 2^10"] == [(6, "OK", 32), (7, "OK", 0)]
    assert out["33 at 2^10 bytes"] is True


def deny(opcode):
    """fp8_policy.json's entry denying one opcode."""
    return {"type": "INSERT", "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": str(opcode)}], "action": "ingress.deny",
            "params": {}}


def denial_lines(res):
    return [e["msg"] for e in res.events("log", path="ep0") if "denied work request" in e["msg"]]


def test_the_program_sees_a_request_only_after_its_own_memory_checks():
    # The rocm-ernic P4 engine guide: "The RDMA data path runs the pipeline for every send work
    # request, after the request's own memory has been checked and before it is dispatched, so a
    # program never sees an operation that is already a protection error." A READ or an atomic
    # whose local SGE names no region is LOCAL_PROT_ERR under a deny entry for its opcode.
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        await IonicP4(nic, claim="write").update([deny(3), deny(6), deny(7)])
        cq = await r.create_cq(64)
        mr = await r.reg_mr(4096)
        bad = mr.sge(128, 8)
        bad.lkey = 0x77000077
        out = {}

        async def one(name, op, sge, **kw):
            qp = await r.create_qp(cq, cq)      # a fresh QP each: an error flushes its QP
            await r.connect(qp, qp.id)
            await r.post_send(qp, op, [sge], wr_id=len(out), remote_addr=mr.addr, rkey=mr.rkey, **kw)
            out[name] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]

        await one("READ, bad lkey", "RDMA_READ", bad)
        await one("ATOMIC_FA, bad lkey", "ATOMIC_FA", bad, swap_add=1)
        await one("ATOMIC_CS, bad lkey", "ATOMIC_CS", bad, compare=0, swap_add=1)
        short = mr.sge(128, 8)
        await one("READ, scatter list shorter than the length", "RDMA_READ", short, length=16)
        await one("READ", "RDMA_READ", mr.sge(128, 8))
        await one("ATOMIC_FA", "ATOMIC_FA", mr.sge(128, 8), swap_add=1)
        return out

    res = run_ok(scenario, ionic_platform({"p4-program": program("fp8_policy.json"), "p4-guest-scope": "write"}))
    assert res.result == {"READ, bad lkey": [(0, "LOCAL_PROT_ERR")], "ATOMIC_FA, bad lkey": [(1, "LOCAL_PROT_ERR")],
                          "ATOMIC_CS, bad lkey": [(2, "LOCAL_PROT_ERR")],
                          "READ, scatter list shorter than the length": [(3, "LOCAL_PROT_ERR")],
                          "READ": [(4, "LOCAL_QP_OPER_ERR")], "ATOMIC_FA": [(5, "LOCAL_QP_OPER_ERR")]}
    # The program ran for the two whose memory was good, and denied them; never for the others.
    assert [(e["op"], e["action"]) for e in res.events("rdma_p4", path="ep0")] == [("RDMA_READ", "deny"),
                                                                                   ("ATOMIC_FA", "deny")]
    assert len(denial_lines(res)) == 2


def test_reg_mr_and_local_inv_run_the_program():
    # The rocm-ernic P4 engine guide: "On the RDMA path it runs over every send work request";
    # rocm-ernic: REG_MR and LOCAL_INV are send queue WQEs (ionic_v1_op 8 and 9), "REG_MR and
    # LOCAL_INV: always an NPG CQE". A deny entry for either refuses it: LOCAL_QP_OPER_ERR, the
    # key left as it was.
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        p4 = IonicP4(nic, claim="write")
        cq = await r.create_cq(64)
        src = await r.reg_mr(4096)
        sim.host.write(src.buf, b"0123456789")
        out = {}

        async def qp():
            q = await r.create_qp(cq, cq)      # a fresh QP each: an error flushes its QP
            await r.connect(q, q.id)
            return q

        async def write(name, rkey, addr):
            await r.post_send(await qp(), "RDMA_WRITE", [src.sge(0, 10)], wr_id=len(out), remote_addr=addr, rkey=rkey)
            out[name] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]

        await p4.update([deny(8)])
        other = sim.host.alloc(256, 64)
        await r.post_reg_mr(await qp(), 0x42000042, 256, other, wr_id=len(out))
        out["REG_MR denied"] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]
        await write("write through the key REG_MR did not bind", 0x42000042, other)

        dst = await r.reg_mr(256)               # CREATE_MR: an admin command, not a work request
        await p4.update([deny(9)])
        await r.post_send(await qp(), "LOCAL_INV", [], wr_id=len(out), key=dst.key)
        out["LOCAL_INV denied"] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]
        await write("write through the key LOCAL_INV did not remove", dst.rkey, dst.addr)
        landed = sim.host.read(dst.buf, 10)
        # The denials' CQEs are SEND_NPG (type 3) on this RC QP, with the error bit.
        npg = [c for c in (sim.host.read(cq.ring + 32 * i, 32) for i in range(cq.depth))
               if (c[31] >> 5) & 7 == 3]
        return out, landed, [(c[31] >> 1) & 1 for c in npg]

    res = run_ok(scenario, ionic_platform({"p4-program": program("fp8_policy.json"), "p4-guest-scope": "write"}))
    out, landed, npg_errors = res.result
    assert out == {"REG_MR denied": [(0, "LOCAL_QP_OPER_ERR")],
                   "write through the key REG_MR did not bind": [(1, "REMOTE_ACC_ERR")],
                   "LOCAL_INV denied": [(2, "LOCAL_QP_OPER_ERR")],
                   "write through the key LOCAL_INV did not remove": [(3, "OK")]}
    assert landed == b"0123456789"
    assert npg_errors == [1, 1]
    assert [(e["op"], e["action"]) for e in res.events("rdma_p4", path="ep0")] == [
        ("REG_MR", "deny"), ("RDMA_WRITE", "dispatch"), ("LOCAL_INV", "deny"), ("RDMA_WRITE", "dispatch")]
    assert [line.split("P4 program ")[1] for line in denial_lines(res)] == [
        "denied work request: qp=%d opcode=8 (REG_MR) length=256" % res.events("rdma_p4", path="ep0")[0]["qp"],
        "denied work request: qp=%d opcode=9 (LOCAL_INV) length=0" % res.events("rdma_p4", path="ep0")[2]["qp"]]


def test_ud_writes_a_send_completion_only_if_signalled():
    # rocm-ernic: "UD/GSI: a SEND_NPG CQE only if SIG is set", an error included: an unsignalled
    # UD send with a bad lkey completes nothing, so the provider does not flush the next send,
    # which the device executes. A P4 denial is the exception (the rocm-ernic P4 engine guide:
    # the request "completes with a local QP operation error ... whether or not it was
    # signalled ... so a UD send fails the same way as an RC operation").
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        cq = await r.create_cq(64)
        ud = await r.create_qp(cq, cq, qp_type="UD")
        await r.connect(ud, ud.id)
        mr = await r.reg_mr(4096)
        sim.host.write(mr.buf, b"good")
        bad = mr.sge(0, 4)
        bad.lkey = 0x77000077
        out = {}
        await r.post_recv(ud, [mr.sge(1024, 64)], wr_id=10)
        await r.post_recv(ud, [mr.sge(2048, 64)], wr_id=11)
        await r.post_send(ud, "SEND", [bad], wr_id=12, signaled=False)
        await r.post_send(ud, "SEND", [mr.sge(0, 4)], wr_id=13)
        wcs = await r.wait(cq, 2)
        await sim.sleep(us(50))
        wcs += r.poll_cq(cq)
        out["bad lkey unsignalled, then a good send"] = sorted((w.wr_id, w.status, w.byte_len) for w in wcs)
        out["landed"] = sim.host.read(mr.buf + 1024, 4)
        out["flushing"] = ud.flushing
        await IonicP4(nic, claim="write").update([deny(0)])
        await r.post_send(ud, "SEND", [mr.sge(0, 4)], wr_id=14, signaled=False)
        out["denied unsignalled"] = [(w.wr_id, w.status) for w in await r.wait(cq, 1)]
        return out

    res = run_ok(scenario, ionic_platform({"p4-program": program("fp8_policy.json"), "p4-guest-scope": "write"}))
    assert res.result == {"bad lkey unsignalled, then a good send": [(10, "OK", 4), (13, "OK", 0)],
                          "landed": b"good", "flushing": False,
                          "denied unsignalled": [(14, "LOCAL_QP_OPER_ERR")]}
    # The device did fail the first send; it wrote no completion for it.
    assert [(e["wqe_id"], e["status"]) for e in res.events("rdma_wc", path="ep0")] == [
        (0, "LOCAL_PROT_ERR"), (1, "OK"), (2, "LOCAL_QP_OPER_ERR")]


def test_no_srq_as_rocm_ernic_before_its_srq_patch_set():
    # rocm-ernic: "Newer rocm-ernic versions add an SRQ qtype record with qid_count =
    # IONIC_EMU_SRQ_COUNT" to LIF_IDENTIFY, and answer the admin opcodes 26-29 (CREATE_SRQ ...
    # DESTROY_SRQ); before that set, "other (7, 19–25, …) | | status 1". The device is the
    # version without SRQs (docs/fidelity.md): no SRQ record, and 26-29 fail with status 1.
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        statuses = [(await r.admin(op, bytes(64), check=False))[0] for op in (26, 27, 28, 29)]
        return statuses, nic.lif_ident

    statuses, lif = run_ok(scenario, ionic_platform({})).result
    assert statuses == [1, 1, 1, 1]
    records = [lif[LIF_ID_RDMA + 32 + 12 * i] for i in range(8)]
    assert records == [5, 6, 7, 8, 9, 0, 0, 0]   # AQ, SQ, RQ, CQ, EQ; no SRQ record after them
