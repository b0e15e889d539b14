"""The ionic NIC's RDMA side on one NIC (no mesh: the local semantics): the devcmds 50-53 and
their limits, every RDMA admin opcode's status, multi-stride admin WQEs, completion statuses,
the CQ colour across wraps, arming as a level, SEND_MSN and SEND_NPG, atomics, immediates,
REG_MR and LOCAL_INV."""
import struct

from dpusim.drivers.ionic import IonicError, cmd_bytes
from dpusim.drivers.ionic_rdma import (ADMIN, CQE_BYTES, IONIC_CMD_RDMA_CREATE_ADMINQ, IONIC_CMD_RDMA_CREATE_CQ,
                                       IONIC_CMD_RDMA_CREATE_EQ, IonicRdma, Sge)
from dpusim.testing import run_ok
from dpusim.units import us
from ionic_util import bring_up, ionic_platform


async def rdma_up(sim):
    _, (nic,) = await bring_up(sim)
    r = await IonicRdma(nic).probe()
    cq = await r.create_cq(64)
    qp = await r.create_qp(cq, cq)
    await r.connect(qp, qp.id)  # looped onto itself
    return nic, r, cq, qp


def statuses(wcs):
    return [(wc.wr_id, wc.status) for wc in wcs]


def test_devcmds_limits_and_statuses():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()          # RESET_LIF, one EQ, CQ + ADMINQ
        out = {}

        async def cmd(op, qid, cid=0, via="adminq"):
            c = r._queue_cmd(op, qid, cid, 4, 2, r.h.alloc(64, 64))
            comp = await (nic.adminq_cmd(c, check=False) if via == "adminq" else nic.dev_cmd(c, check=False))
            return comp[0]

        out["adminq without a pending CQ"] = await cmd(IONIC_CMD_RDMA_CREATE_ADMINQ, 1)
        out["EQs 2..32"] = {await cmd(IONIC_CMD_RDMA_CREATE_EQ, q, 40 + q) for q in range(1, 32)}
        out["EQ 33"] = await cmd(IONIC_CMD_RDMA_CREATE_EQ, 32)
        out["EQ 33 on the devcmd window"] = await cmd(IONIC_CMD_RDMA_CREATE_EQ, 32, via="devcmd")
        pairs = []
        for q in range(1, 5):
            pairs.append((await cmd(IONIC_CMD_RDMA_CREATE_CQ, q), await cmd(IONIC_CMD_RDMA_CREATE_ADMINQ, q)))
        out["CQ + adminq 2..5"] = pairs
        return out

    res = run_ok(scenario, ionic_platform({}))
    assert res.result == {"adminq without a pending CQ": 1, "EQs 2..32": {0}, "EQ 33": 1,
                          "EQ 33 on the devcmd window": 1,
                          "CQ + adminq 2..5": [(0, 0), (0, 0), (0, 0), (0, 1)]}
    refused = [e["reason"] for e in res.events("rdma_devcmd", path="ep0") if e["status"]]
    assert refused == ["no CREATE_CQ before it", "more than 32 EQs", "more than 32 EQs", "more than 4 admin queues"]


def test_every_admin_opcode_answers_as_rocm_ernic():
    async def scenario(sim):
        nic, r, cq, qp = await rdma_up(sim)
        got = {}
        for name, body in [("NOOP", b""), ("CREATE_CQ", b"\0" * 8), ("CREATE_QP", b"\0" * 8),
                           ("CREATE_MR", b"\0" * 8), ("STATS_HDRS", b""), ("STATS_VALS", b""),
                           ("DESTROY_MR", struct.pack("<I", 0x12345678)), ("RSVD_7", b""),
                           ("DESTROY_CQ", struct.pack("<I", 999)), ("MODIFY_QP", bytes(60)),
                           ("QUERY_QP", struct.pack("<QQQIIH", 0, 0, 0, 0, 999, 0)),
                           ("DESTROY_QP", struct.pack("<I", 999)), ("DEBUG", b""), ("CREATE_AH", b""),
                           ("QUERY_AH", b""), ("MODIFY_DCQCN", b""), ("DESTROY_AH", b""),
                           ("QP_STATS_HDRS", b""), ("QP_STATS_VALS", b""), (19, b""), (255, b"")]:
            got[name] = (await r.admin(name, body, check=False))[0]
        # A CREATE_QP naming a CQ that does not exist; then one 68 bytes long: two strides.
        other = await r.create_cq(4)
        body = struct.pack("<II", 0, 0) + struct.pack("<IBBBBIIQ", 77, 2, 6, 0, 12, 0, 1, r.h.alloc(256, 4096))
        got["CREATE_QP unknown CQ"] = (await r.admin("CREATE_QP", body.ljust(64, b"\0"), check=False))[0]
        wide = await r.create_qp(other, other)
        got["DESTROY_MR known"] = (await r.admin("DESTROY_MR", struct.pack("<I", (await r.reg_mr(64)).key),
                                                 check=False))[0]
        return got, wide.id

    res = run_ok(scenario, ionic_platform({}))
    got, wide = res.result
    assert got == {"NOOP": 0, "CREATE_CQ": 1, "CREATE_QP": 1, "CREATE_MR": 0, "STATS_HDRS": 0, "STATS_VALS": 0,
                   "DESTROY_MR": 1, "RSVD_7": 1, "DESTROY_CQ": 0, "MODIFY_QP": 1, "QUERY_QP": 1, "DESTROY_QP": 0,
                   "DEBUG": 0, "CREATE_AH": 1, "QUERY_AH": 0, "MODIFY_DCQCN": 0, "DESTROY_AH": 1,
                   "QP_STATS_HDRS": 0, "QP_STATS_VALS": 0, 19: 1, 255: 1,
                   "CREATE_QP unknown CQ": 1, "DESTROY_MR known": 0}
    admin = res.events("rdma_admin", path="ep0")
    # Every command its CQE and an EQE; the CREATE_QP of 4 + 64 bytes took two strides.
    assert [e["op"] for e in admin if e["strides"] == 2] == ["CREATE_QP"] * 3
    assert {e["strides"] for e in admin} == {1, 2}
    assert admin[-3]["op"] == "CREATE_QP" and admin[-3]["status"] == 0
    assert any(e["qp"] == wide for e in res.events("rdma_qp", path="ep0"))
    # 31 commands went through the 16-deep admin CQ: its colour flipped once and the driver,
    # which checks it, saw each.
    assert len(admin) == 31


def test_completion_statuses_on_one_nic():
    async def scenario(sim):
        nic, r, cq, qp = await rdma_up(sim)
        src, dst = await r.reg_mr(4096), await r.reg_mr(4096, access=1)   # dst: LOCAL_WRITE only
        sim.host.write(src.buf, bytes(range(256)))
        out = {}

        async def one(qp, op, sges, **kw):
            await r.post_send(qp, op, sges, wr_id=len(out), **kw)
            return statuses(await r.wait(cq, 1))

        out["write"] = await one(qp, "RDMA_WRITE", [src.sge(0, 64)], remote_addr=dst.addr, rkey=dst.rkey)
        qp2 = await r.create_qp(cq, cq)
        await r.connect(qp2, qp2.id)
        out["bad rkey"] = await one(qp2, "RDMA_WRITE", [src.sge(0, 64)], remote_addr=dst.addr, rkey=0x99000099)
        qp3 = await r.create_qp(cq, cq)
        await r.connect(qp3, qp3.id)
        out["past the region"] = await one(qp3, "RDMA_WRITE", [src.sge(0, 64)], remote_addr=dst.addr + 4090,
                                           rkey=dst.rkey)
        qp4 = await r.create_qp(cq, cq)
        await r.connect(qp4, qp4.id)
        bad = src.sge(0, 64)
        bad.lkey = 0x77000077
        out["bad lkey"] = await one(qp4, "SEND", [bad])
        qp5 = await r.create_qp(cq, cq)
        await r.connect(qp5, qp5.id)
        out["unknown opcode"] = await one(qp5, 13, [src.sge(0, 8)])
        # A receive too small for the message: the receive completes LOCAL_LEN_ERR, the send OK.
        qp6 = await r.create_qp(cq, cq)
        await r.connect(qp6, qp6.id)
        await r.post_recv(qp6, [dst.sge(0, 10)], wr_id=60)
        await r.post_send(qp6, "SEND", [src.sge(0, 100)], wr_id=61)
        out["short receive"] = sorted(statuses(await r.wait(cq, 2)))
        # LOCAL_ACC_ERR: the gather's read request is lost on the link, the DMA times out.
        sim.expect_violation("completion_timeout")
        qp7 = await r.create_qp(cq, cq)
        await r.connect(qp7, qp7.id)
        rule = sim.faults.drop(type="MRd", dir="up", path="link_dsp0", address_lo=src.buf + 128,
                               address_hi=src.buf + 129)
        await r.post_send(qp7, "RDMA_WRITE", [src.sge(128, 32)], wr_id=70, remote_addr=dst.addr, rkey=dst.rkey)
        out["gather lost"] = statuses(await r.wait(cq, 1, timeout_ps=1_000_000_000_000))
        sim.faults.remove(rule)
        # A message over 16 MiB (less the mesh header) fails before anything is read.
        qp8 = await r.create_qp(cq, cq)
        await r.connect(qp8, qp8.id)
        await r.post_send(qp8, "SEND", [Sge(src.buf, 8 << 20, 0), Sge(src.buf, 8 << 20, 0)], wr_id=80)
        out["over 16 MiB"] = statuses(await r.wait(cq, 1))
        return out, sim.host.read(dst.buf, 64) == bytes(range(64))

    out, landed = run_ok(scenario, ionic_platform({})).result
    assert landed
    assert out == {"write": [(0, "OK")], "bad rkey": [(1, "REMOTE_ACC_ERR")],
                   "past the region": [(2, "REMOTE_ACC_ERR")], "bad lkey": [(3, "LOCAL_PROT_ERR")],
                   "unknown opcode": [(4, "LOCAL_QP_OPER_ERR")],
                   "short receive": [(60, "LOCAL_LEN_ERR"), (61, "OK")], "gather lost": [(70, "LOCAL_ACC_ERR")],
                   "over 16 MiB": [(80, "LOCAL_LEN_ERR")]}


def test_cq_colour_flips_per_wrap_and_msn_runs_from_one():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        cq = await r.create_cq(4)
        qp = await r.create_qp(cq, cq)
        await r.connect(qp, qp.id)
        mr = await r.reg_mr(64)
        done = []
        for n in range(7):
            await r.post_send(qp, "RDMA_WRITE", [mr.sge(0, 8)], wr_id=n, remote_addr=mr.addr + 32, rkey=mr.rkey)
            done += statuses(await r.wait(cq, 1))
        ring = [sim.host.read(cq.ring + i * CQE_BYTES, CQE_BYTES) for i in range(4)]
        colours = [struct.unpack_from(">I", c, 28)[0] & 1 for c in ring]
        msns = [struct.unpack_from(">I", c, 4)[0] for c in ring]
        return done, colours, msns, cq.color, cq.tail

    done, colours, msns, colour, tail = run_ok(scenario, ionic_platform({})).result
    assert done == [(n, "OK") for n in range(7)]
    # Seven CQEs in a ring of four: slots 0..2 on their second pass (colour 0, MSNs 5..7), slot 3
    # still the first pass's (colour 1, MSN 4); the driver expects colour 0 at slot 3 next.
    assert colours == [0, 0, 0, 1] and msns == [5, 6, 7, 4] and (colour, tail) == (0, 3)


def test_arming_is_a_level_and_fires_once():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await IonicRdma(nic).probe()
        cq = await r.create_cq(16)
        qp = await r.create_qp(cq, cq)
        await r.connect(qp, qp.id)
        mr = await r.reg_mr(64)
        seen = []

        async def write():
            await r.post_send(qp, "RDMA_WRITE", [mr.sge(0, 8)], remote_addr=mr.addr + 32, rkey=mr.rkey)
            await sim.sleep(us(20))

        await write()                   # unarmed: a CQE, no event
        seen.append(cq.events)
        await r.req_notify_cq(cq)       # armed with one unread: fires at once
        await sim.sleep(us(20))
        seen.append(cq.events)
        assert len(r.poll_cq(cq)) == 1
        await r.req_notify_cq(cq)       # armed, nothing unread: quiet ...
        await sim.sleep(us(20))
        seen.append(cq.events)
        await write()                   # ... until the next CQE, which fires it
        seen.append(cq.events)
        await write()                   # not re-armed: no event
        seen.append(cq.events)
        return seen, len(r.poll_cq(cq))

    seen, left = run_ok(scenario, ionic_platform({})).result
    assert seen == [0, 1, 1, 2, 2] and left == 2


def test_atomics_immediates_ud_and_local_keys():
    async def scenario(sim):
        nic, r, cq, qp = await rdma_up(sim)
        mr = await r.reg_mr(4096)
        h = sim.host
        h.write(mr.buf + 64, struct.pack("<Q", 1000))
        out = {}

        async def atomic(op, **kw):
            await r.post_send(qp, op, [mr.sge(128, 8)], remote_addr=mr.addr + 64, rkey=mr.rkey, **kw)
            (wc,) = await r.wait(cq, 1)
            return wc.status, struct.unpack("<Q", h.read(mr.buf + 128, 8))[0], \
                struct.unpack("<Q", h.read(mr.buf + 64, 8))[0]

        out["FA +5"] = await atomic("ATOMIC_FA", swap_add=5)
        out["CS miss"] = await atomic("ATOMIC_CS", compare=1000, swap_add=7)
        out["CS hit"] = await atomic("ATOMIC_CS", compare=1005, swap_add=7)
        out["FA wraps"] = await atomic("ATOMIC_FA", swap_add=(1 << 64) - 8)

        # WRITE_IMM: the data through the rkey, the immediate on a consumed receive.
        h.write(mr.buf, b"immediate!")
        await r.post_recv(qp, [mr.sge(2048, 16)], wr_id=90)
        await r.post_send(qp, "RDMA_WRITE_IMM", [mr.sge(0, 10)], wr_id=91, remote_addr=mr.addr + 1024,
                          rkey=mr.rkey, imm=0xCAFEF00D)
        wcs = sorted(await r.wait(cq, 2), key=lambda w: w.wr_id)
        out["WRITE_IMM"] = [(w.wr_id, w.status, w.opcode, w.imm, w.byte_len) for w in wcs]
        out["WRITE_IMM data"] = h.read(mr.buf + 1024, 10)
        await r.post_recv(qp, [mr.sge(2048, 16)], wr_id=92)
        await r.post_send(qp, "SEND_IMM", [mr.sge(0, 10)], wr_id=93, imm=0x01020304)
        wcs = sorted(await r.wait(cq, 2), key=lambda w: w.wr_id)
        out["SEND_IMM"] = [(w.wr_id, w.status, w.imm, w.byte_len) for w in wcs]

        # UD: SEND_NPG only when signalled; an unsignalled datagram completes nothing.
        ud = await r.create_qp(cq, cq, qp_type="UD")
        await r.connect(ud, ud.id)
        await r.post_recv(ud, [mr.sge(3000, 64)], wr_id=94)
        await r.post_recv(ud, [mr.sge(3000, 64)], wr_id=95)
        await r.post_send(ud, "SEND", [mr.sge(0, 4)], wr_id=96, signaled=False)
        await r.post_send(ud, "SEND", [mr.sge(0, 4)], wr_id=97)
        wcs = await r.wait(cq, 3)
        await sim.sleep(us(20))
        out["UD"] = sorted(statuses(wcs + r.poll_cq(cq)))

        # REG_MR binds a key to a buffer by a work request; LOCAL_INV removes it.
        other = h.alloc(256, 64)
        key = 0x42000042
        await r.post_reg_mr(qp, key, 256, other, wr_id=98)
        out["REG_MR"] = statuses(await r.wait(cq, 1))
        await r.post_send(qp, "RDMA_WRITE", [mr.sge(0, 10)], wr_id=99, remote_addr=other + 100, rkey=key)
        out["write via REG_MR key"] = statuses(await r.wait(cq, 1)) + [h.read(other + 100, 10)]
        await r.post_send(qp, "LOCAL_INV", [], wr_id=100, key=key)
        out["LOCAL_INV"] = statuses(await r.wait(cq, 1))
        await r.post_send(qp, "RDMA_WRITE", [mr.sge(0, 10)], wr_id=101, remote_addr=other, rkey=key)
        out["write via the invalidated key"] = statuses(await r.wait(cq, 1))
        return out

    out = run_ok(scenario, ionic_platform({})).result
    assert out["FA +5"] == ("OK", 1000, 1005)
    assert out["CS miss"] == ("OK", 1005, 1005)
    assert out["CS hit"] == ("OK", 1005, 7)
    assert out["FA wraps"] == ("OK", 7, (7 - 8) % (1 << 64))
    assert out["WRITE_IMM"] == [(90, "OK", "RECV_RDMA_WITH_IMM", 0xCAFEF00D, 10), (91, "OK", "RDMA_WRITE_IMM", 0, 0)]
    assert out["WRITE_IMM data"] == b"immediate!"
    assert out["SEND_IMM"] == [(92, "OK", 0x01020304, 10), (93, "OK", 0, 0)]
    assert out["UD"] == [(94, "OK"), (95, "OK"), (97, "OK")]
    assert out["REG_MR"] == [(98, "OK")]
    assert out["write via REG_MR key"] == [(99, "OK"), b"immediate!"]
    assert out["LOCAL_INV"] == [(100, "OK")]
    assert out["write via the invalidated key"] == [(101, "REMOTE_ACC_ERR")]
