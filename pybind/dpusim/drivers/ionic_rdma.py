"""A verbs-shaped RDMA driver for the ionic NIC, doing what Linux's ionic_rdma.ko
(drivers/infiniband/hw/ionic: ionic_ibdev.c, ionic_admin.c, ionic_controlpath.c,
ionic_datapath.c) and rdma-core's ionic provider do, as device commands, admin WQEs, work
requests, doorbells and interrupts against the emulated NIC (models/ionic/rdma_engine.h).

  probe (on top of a probed ionic.Ionic): RDMA_RESET_LIF, one CREATE_EQ per CPU (each with its
  own interrupt after the Ethernet queues'), then CREATE_CQ (the admin CQ, held pending) and
  CREATE_ADMINQ, all on the Ethernet admin queue. Each EQ's interrupt handler takes the EQEs
  whose colour matches, completes the admin commands of the admin CQ and wakes the waiters of
  the CQs they name, then re-arms with credits.
  verbs: create_cq, create_qp (RC or UD; qpid 1 is GSI), reg_mr (direct, or by a page table
  with pages=True), modify_qp to INIT, RTR (the destination QP and a RoCE header template whose
  IPv4 destination is the peer's address on the mesh) and RTS, post_send, post_send_list (a
  chain with one doorbell), post_reg_mr, post_recv, poll_cq, req_notify_cq and wait (an event),
  destroy_*, query_qp.

Work completions carry the device's status names (OK, LOCAL_LEN_ERR, LOCAL_QP_OPER_ERR,
LOCAL_PROT_ERR, LOCAL_ACC_ERR, REMOTE_ACC_ERR, RETRY_EXCEEDED, RNR_RETRY_EXCEEDED). After an
error completion the provider flushes the QP's other outstanding send work requests with
WR_FLUSH_ERR, as rdma-core's provider does; the device itself goes on.
"""
import struct
from dataclasses import dataclass, field

from dpusim.drivers.ionic import IonicError, cmd_bytes
from dpusim.drivers.ionic_regs import (INTR_CTRL_MASK_ASSERT, IONIC_BAR0_INTR_CTRL_OFFSET, IONIC_DB_PAGE_SIZE,
                                       IONIC_INTR_CRED_REARM, IONIC_INTR_CTRL_BYTES, IONIC_INTR_MASK_SET)
from dpusim.errors import SimTimeout
from dpusim.futures import Future
from dpusim.units import ms, s

IONIC_CMD_RDMA_RESET_LIF, IONIC_CMD_RDMA_CREATE_EQ, IONIC_CMD_RDMA_CREATE_CQ, IONIC_CMD_RDMA_CREATE_ADMINQ = 50, 51, 52, 53
QTYPE_AQ, QTYPE_SQ, QTYPE_RQ, QTYPE_CQ, QTYPE_EQ = 5, 6, 7, 8, 9
ADMIN = {"NOOP": 0, "CREATE_CQ": 1, "CREATE_QP": 2, "CREATE_MR": 3, "STATS_HDRS": 4, "STATS_VALS": 5,
         "DESTROY_MR": 6, "RSVD_7": 7, "DESTROY_CQ": 8, "MODIFY_QP": 9, "QUERY_QP": 10, "DESTROY_QP": 11,
         "DEBUG": 12, "CREATE_AH": 13, "QUERY_AH": 14, "MODIFY_DCQCN": 15, "DESTROY_AH": 16,
         "QP_STATS_HDRS": 17, "QP_STATS_VALS": 18}
OPS = {"SEND": 0, "SEND_INV": 1, "SEND_IMM": 2, "RDMA_READ": 3, "RDMA_WRITE": 4, "RDMA_WRITE_IMM": 5,
       "ATOMIC_CS": 6, "ATOMIC_FA": 7, "REG_MR": 8, "LOCAL_INV": 9}
STATUS = {0: "OK", 1: "LOCAL_LEN_ERR", 2: "LOCAL_QP_OPER_ERR", 3: "LOCAL_PROT_ERR", 4: "WQE_FLUSHED_ERR",
          7: "LOCAL_ACC_ERR", 9: "REMOTE_ACC_ERR", 11: "RETRY_EXCEEDED", 12: "RNR_RETRY_EXCEEDED"}
QPT = {"RC": 0, "UC": 1, "UD": 3}
QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS = 0, 1, 2, 3
IB_QP_STATE, IB_QP_AV, IB_QP_DEST_QPN = 1 << 0, 1 << 7, 1 << 20
IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_WRITE, IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_ATOMIC = 1, 2, 4, 8
ACCESS_ALL = 0xF
FLAG_INL, FLAG_SIG = 0x4, 0x8
CQE_BYTES = 32
EQ_DEPTH_LOG2, AQ_DEPTH_LOG2 = 8, 4
LOCAL_OPS = (OPS["REG_MR"], OPS["LOCAL_INV"])


class RdmaError(IonicError):
    pass


@dataclass
class WorkCompletion:
    wr_id: int
    status: str
    opcode: str
    qp: int
    byte_len: int = 0
    src_qp: int = 0
    imm: int = 0
    time_ps: int = 0


@dataclass
class Sge:
    addr: int
    length: int
    lkey: int


@dataclass
class Mr:
    key: int
    addr: int      # the region's virtual address (the bus address for a direct region)
    length: int
    buf: int       # where its bytes live in host memory
    table: int = 0

    @property
    def lkey(self):
        return self.key

    rkey = lkey

    def sge(self, offset=0, length=None):
        return Sge(self.addr + offset, self.length - offset if length is None else length, self.key)


@dataclass
class Cq:
    id: int
    depth: int
    ring: int
    eq: int
    tail: int = 0
    color: int = 1
    armed: bool = False
    waiters: list = field(default_factory=list)
    events: int = 0
    soft: list = field(default_factory=list)   # completions the provider made (flushes)


@dataclass
class Qp:
    id: int
    type: str
    send_cq: Cq
    recv_cq: Cq
    sq_depth: int
    rq_depth: int
    sq_ring: int
    rq_ring: int
    sq_stride: int
    rq_stride: int
    sq_head: int = 0
    rq_head: int = 0
    msn: int = 0
    outstanding: list = field(default_factory=list)   # [wr_id, msn or None, signaled, opcode, slot]
    recv_ids: dict = field(default_factory=dict)      # RQ slot -> wr_id
    flushing: bool = False
    dest_qp: int = None


class IonicRdma:
    """ionic_rdma.ko and rdma-core's provider over one probed ionic.Ionic."""

    def __init__(self, nic, neqs=None):
        self.nic = nic
        self.sim = nic.sim
        self.h = nic.sim.host
        self.neqs = neqs or max(1, nic.neqs)
        self.eqs = []
        self.cqs = {}
        self.qps = {}
        self.mrs = {}
        self.admin_waiters = {}
        self._next_cq, self._next_qp, self._next_mr, self._next_ah = 1, 2, 1, 1

    def log(self, step, **fields):
        self.sim.log_event("host.ionic_rdma", "ionic_rdma", bdf=self.nic.bdf, step=step, **fields)

    # ---- probe ---------------------------------------------------------------------------
    async def probe(self):
        nic = self.nic
        await nic.adminq_cmd(cmd_bytes(IONIC_CMD_RDMA_RESET_LIF))
        first_intr = 1 + nic.nxqs
        for i in range(self.neqs):
            intr = first_intr + i
            ring = self.h.alloc(4 << EQ_DEPTH_LOG2, 4096)
            await nic.adminq_cmd(self._queue_cmd(IONIC_CMD_RDMA_CREATE_EQ, i, intr, EQ_DEPTH_LOG2, 2, ring))
            eq = {"id": i, "intr": intr, "ring": ring, "depth": 1 << EQ_DEPTH_LOG2, "tail": 0, "color": 1}
            self.eqs.append(eq)
            await self.h.mem_write32(nic.regs + IONIC_BAR0_INTR_CTRL_OFFSET + intr * IONIC_INTR_CTRL_BYTES
                                     + INTR_CTRL_MASK_ASSERT, IONIC_INTR_MASK_SET)
            await nic.pci.request_irq(nic.dev, intr)
            self._start_eq(eq)
            await nic.enable_interrupt(intr)
        # The admin CQ (id 0, on EQ 0), then the admin queue that takes it.
        self.aq = {"depth": 1 << AQ_DEPTH_LOG2, "ring": self.h.alloc(64 << AQ_DEPTH_LOG2, 4096), "head": 0,
                   "cq_ring": self.h.alloc(CQE_BYTES << AQ_DEPTH_LOG2, 4096), "cq_tail": 0, "cq_color": 1}
        await nic.adminq_cmd(self._queue_cmd(IONIC_CMD_RDMA_CREATE_CQ, 0, 0, AQ_DEPTH_LOG2, 5, self.aq["cq_ring"]))
        await nic.adminq_cmd(self._queue_cmd(IONIC_CMD_RDMA_CREATE_ADMINQ, 0, 0, AQ_DEPTH_LOG2, 6, self.aq["ring"]))
        self.log("probed", eqs=self.neqs)
        return self

    @staticmethod
    def _queue_cmd(op, qid, cid, depth_log2, stride_log2, dma):
        return cmd_bytes(op, [(4, "I", qid | 1 << 24), (8, "I", cid), (14, "B", depth_log2), (15, "B", stride_log2),
                              (16, "Q", dma)])

    async def doorbell(self, qtype, qid, p_index, ring=0):
        value = (qid & 0xFF) << 24 | ring << 16 | (p_index & 0xFFFF) | (qid >> 8) << 32
        await self.h.mem_write64(self.nic.bar2.base + self.nic.kern_pid * IONIC_DB_PAGE_SIZE + 8 * qtype, value)

    # ---- events (ionic_eq) -----------------------------------------------------------------
    def _start_eq(self, eq):
        nic = self.nic

        async def loop():
            seen = self.h.msi_mark()
            while True:
                m = await self.h.wait_msi(data=nic.irqs[eq["intr"]], requester=nic.dev.rid, since=seen)
                seen = self.h.msis.index(m, seen) + 1
                work = 0
                while True:
                    evt = struct.unpack(">I", self.h.read(eq["ring"] + 4 * eq["tail"], 4))[0]
                    if (evt & 1) != eq["color"]:
                        break
                    eq["tail"] = (eq["tail"] + 1) % eq["depth"]
                    if eq["tail"] == 0:
                        eq["color"] ^= 1
                    self._cq_event(evt >> 8)
                    work += 1
                await nic.intr_credits(eq["intr"], work, IONIC_INTR_CRED_REARM)

        self.sim.spawn(loop(), f"ionic_rdma {nic.bdf} eq {eq['id']}")

    def _cq_event(self, cq_id):
        if cq_id == 0:
            return self._poll_admin()
        cq = self.cqs.get(cq_id)
        if cq is None:
            return
        cq.armed = False
        cq.events += 1
        waiters, cq.waiters = cq.waiters, []
        for fut in waiters:
            if not fut.done:
                fut.set_result(None)

    # ---- the admin queue (ionic_admin_post) ---------------------------------------------
    def _poll_admin(self):
        aq = self.aq
        while True:
            cqe = self.h.read(aq["cq_ring"] + CQE_BYTES * aq["cq_tail"], CQE_BYTES)
            qtf = struct.unpack_from(">I", cqe, 28)[0]
            if (qtf & 1) != aq["cq_color"]:
                return
            aq["cq_tail"] = (aq["cq_tail"] + 1) % aq["depth"]
            if aq["cq_tail"] == 0:
                aq["cq_color"] ^= 1
            slot = struct.unpack_from(">H", cqe, 0)[0]
            status_length = struct.unpack_from(">I", cqe, 24)[0]
            status = status_length >> 24 if qtf & 2 else 0
            fut = self.admin_waiters.pop(slot, None)
            if fut is not None and not fut.done:
                fut.set_result((status, 0 if qtf & 2 else status_length))

    async def admin(self, op, body, check=True, timeout_ps=s(5)):
        """Posts one admin WQE (op by name or number, the body bytes) and waits for its CQE;
        returns (status, response length). Raises RdmaError on a non-zero status when `check`."""
        op = ADMIN.get(op, op)
        aq = self.aq
        wqe = struct.pack("<BxH", op, len(body)) + bytes(body)
        strides = (len(wqe) + 63) // 64
        wqe = wqe.ljust(64 * strides, b"\0")
        slot = aq["head"]
        for i in range(strides):
            self.h.write(aq["ring"] + 64 * ((slot + i) % aq["depth"]), wqe[64 * i:64 * i + 64])
        aq["head"] = (slot + strides) % aq["depth"]
        fut = Future(self.sim, f"rdma admin {op}")
        self.admin_waiters[slot] = fut
        await self.doorbell(QTYPE_AQ, 0, aq["head"])
        try:
            status, length = await self.sim.timeout(fut, timeout_ps)
        except SimTimeout:
            raise RdmaError(f"{self.nic.bdf}: RDMA admin op {op} not completed") from None
        if check and status:
            raise RdmaError(f"{self.nic.bdf}: RDMA admin op {op} failed: status {status}", status)
        return status, length

    # ---- verbs: resources ------------------------------------------------------------------
    async def create_cq(self, depth=64, eq=0):
        cq_id = self._next_cq
        self._next_cq += 1
        ring = self.h.alloc(CQE_BYTES * depth, 4096)
        body = struct.pack("<IBBBBIIIIQH", eq, depth.bit_length() - 1, 5, 0, 12, 0, cq_id | 1 << 24, 0, 1, ring, 0)
        await self.admin("CREATE_CQ", body)
        cq = Cq(cq_id, depth, ring, eq)
        self.cqs[cq_id] = cq
        return cq

    async def create_qp(self, send_cq, recv_cq, qp_type="RC", sq_depth=64, rq_depth=64, sq_stride_log2=7,
                        rq_stride_log2=6, qp_id=None):
        if qp_id is None:
            qp_id = self._next_qp
            self._next_qp += 1
        sq = self.h.alloc(sq_depth << sq_stride_log2, 4096)
        rq = self.h.alloc(rq_depth << rq_stride_log2, 4096)
        body = (struct.pack("<I", 0) + struct.pack(">I", 0)
                + struct.pack("<IBBBBIIQ", send_cq.id, sq_depth.bit_length() - 1, sq_stride_log2, 0, 12, 0, 1, sq)
                + struct.pack("<IBBBBIIQ", recv_cq.id, rq_depth.bit_length() - 1, rq_stride_log2, 0, 12, 0xFFFFFFFF,
                              1, rq)
                + struct.pack("<IHB", qp_id | 1 << 24, 0, QPT[qp_type]))
        await self.admin("CREATE_QP", body.ljust(64, b"\0"))
        qp = Qp(qp_id, qp_type, send_cq, recv_cq, sq_depth, rq_depth, sq, rq, 1 << sq_stride_log2, 1 << rq_stride_log2)
        self.qps[qp_id] = qp
        return qp

    async def reg_mr(self, length, access=ACCESS_ALL, buf=None, pages=False):
        """Registers `length` bytes (a new zeroed buffer unless `buf` is given). Direct regions
        use the bus address as their virtual address; with pages=True the region gets a page
        table of its 4 KiB pages and a virtual address of its own."""
        mr_id = self._next_mr
        self._next_mr += 1
        key = mr_id | (0x5A << 24)
        if buf is None:
            buf = self.h.alloc(max(length, 1), 4096)
        if pages:
            n = (length + (buf & 0xFFF) + 4095) // 4096
            if n > 1:
                table = self.h.alloc(8 * n, 64)
                self.h.write(table, b"".join(struct.pack("<Q", (buf & ~0xFFF) + 4096 * i) for i in range(n)))
            else:  # one page goes direct, at the first byte (ionic_pgtbl_dma)
                table = buf
            va = 0x7F00_0000_0000 + mr_id * 0x1_0000_0000 + (buf & 0xFFF)
            body = struct.pack("<QQIIIIQHBBB", va, length, 0, key, 0, n, table, access, 1, 0, 12)
            mr = Mr(key, va, length, buf, table)
        else:
            body = struct.pack("<QQIIIIQHBBB", buf, length, 0, key, 0, 1, buf, access, 0, 0, 12)
            mr = Mr(key, buf, length, buf)
        await self.admin("CREATE_MR", body)
        self.mrs[key] = mr
        return mr

    async def dereg_mr(self, mr):
        await self.admin("DESTROY_MR", struct.pack("<I", mr.key))
        self.mrs.pop(mr.key, None)

    def template(self, dest_ip, dest_mac=b"\x02\x00\x00\x00\x00\x01"):
        """A RoCE v2 header template (ib_ud_header_pack without BTH/DETH): Ethernet, IPv4, UDP."""
        dst = bytes(int(x) for x in dest_ip.split("."))
        eth = dest_mac + self.nic.mac + b"\x08\x00"
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28, 0, 0x4000, 64, 17, 0, bytes(4), dst)
        return eth + ip + struct.pack(">HHHH", 0xC000, 4791, 8, 0)

    async def modify_qp(self, qp, state, dest_qp=None, dest_ip=None, access=ACCESS_ALL, from_state=QPS_RESET):
        mask = IB_QP_STATE
        tmpl_len, tmpl_dma = 0, 0
        if dest_qp is not None:
            mask |= IB_QP_DEST_QPN | IB_QP_AV
            tmpl = self.template(dest_ip or "0.0.0.0")
            tmpl_dma = self.h.alloc(len(tmpl), 64)
            self.h.write(tmpl_dma, tmpl)
            tmpl_len = len(tmpl)
            qp.dest_qp = dest_qp
        body = (struct.pack(">I", mask) + struct.pack(">BBH", 0, 0, access)
                + struct.pack("<IIII", 0, 0, dest_qp or 0, 0)
                + struct.pack("<BBBBBBH", 10, 7, 7, 14, 1, 1, 0)
                + struct.pack("<I", tmpl_len << 24) + bytes(3) + bytes([from_state << 4 | state])
                + struct.pack("<II", 0, 0) + struct.pack("<Q", tmpl_dma) + struct.pack("<I", qp.id | 1 << 24))
        status, _ = await self.admin("MODIFY_QP", body, check=False)
        if status:
            raise RdmaError(f"{self.nic.bdf}: MODIFY_QP {qp.id} to state {state} failed: status {status}", status)

    async def connect(self, qp, dest_qp, dest_ip=None):
        """INIT, RTR (with the destination) and RTS, as rdma_cm's modify sequence does."""
        await self.modify_qp(qp, QPS_INIT)
        await self.modify_qp(qp, QPS_RTR, dest_qp=dest_qp, dest_ip=dest_ip, from_state=QPS_INIT)
        await self.modify_qp(qp, QPS_RTS, from_state=QPS_RTR)

    async def query_qp(self, qp):
        """QUERY_QP into the two buffers: {'state', 'pmtu', 'dest_qp', 'flags', 'sq_psn', 'rq_psn'}."""
        sq, rq = self.h.alloc(20, 64), self.h.alloc(12, 64)
        await self.admin("QUERY_QP", struct.pack("<QQQIIH", 0, sq, rq, 0, qp.id | 1 << 24, 0))
        a, b = self.h.read(sq, 20), self.h.read(rq, 12)
        return {"state": b[0] >> 4, "pmtu": (b[0] & 0xF) - 7, "retry": b[1], "dest_qp": struct.unpack_from(">I", a, 8)[0],
                "flags": struct.unpack_from(">H", a, 2)[0], "rq_psn": struct.unpack_from(">I", a, 16)[0],
                "sq_psn": struct.unpack_from(">I", b, 4)[0]}

    async def destroy_qp(self, qp):
        await self.admin("DESTROY_QP", struct.pack("<I", qp.id))
        self.qps.pop(qp.id, None)

    async def destroy_cq(self, cq):
        await self.admin("DESTROY_CQ", struct.pack("<I", cq.id))
        self.cqs.pop(cq.id, None)

    # ---- verbs: the datapath (rdma-core providers/ionic) -------------------------------------
    @staticmethod
    def _sges(sges):
        return b"".join(struct.pack(">QII", sg.addr, sg.length, sg.lkey) for sg in sges)

    async def post_send(self, qp, op, sges=(), wr_id=0, signaled=True, remote_addr=0, rkey=0, imm=0,
                        compare=0, swap_add=0, inline=None, key=0, length=None):
        """Posts one send work request (op by name, or a raw opcode number) and rings the SQ
        doorbell."""
        await self.post_send_list(qp, [dict(op=op, sges=sges, wr_id=wr_id, signaled=signaled,
                                            remote_addr=remote_addr, rkey=rkey, imm=imm, compare=compare,
                                            swap_add=swap_add, inline=inline, key=key, length=length)])

    async def post_send_list(self, qp, wrs):
        """Posts a list of send work requests (each a dict of post_send's arguments) and rings
        the SQ doorbell once, as ibv_post_send does with a chain of WRs."""
        rung = False
        for wr in wrs:
            rung |= self._write_send(qp, **wr)
        if rung:
            await self.doorbell(QTYPE_SQ, qp.id, qp.sq_head % qp.sq_depth)

    def _write_send(self, qp, op, sges=(), wr_id=0, signaled=True, remote_addr=0, rkey=0, imm=0, compare=0,
                    swap_add=0, inline=None, key=0, length=None):
        """Writes one WQE into the SQ; False when the QP is flushing (the provider completes it)."""
        opc = OPS[op] if isinstance(op, str) else int(op)
        slot = qp.sq_head % qp.sq_depth
        if qp.flushing:  # an errored QP: the provider flushes without the device
            qp.outstanding.append([wr_id, None, True, op, slot])
            self._flush(qp)
            return False
        flags = FLAG_SIG if signaled else 0
        total = sum(sg.length for sg in sges) if length is None else length
        body = b""
        if opc in (OPS["SEND"], OPS["SEND_INV"], OPS["SEND_IMM"]):
            body = struct.pack(">IIII", 0, qp.dest_qp or 0, 0, total)
        elif opc in (OPS["RDMA_READ"], OPS["RDMA_WRITE"], OPS["RDMA_WRITE_IMM"]):
            body = struct.pack(">IIII", remote_addr >> 32, remote_addr & 0xFFFFFFFF, rkey, total)
        elif opc in (OPS["ATOMIC_CS"], OPS["ATOMIC_FA"]):
            body = (struct.pack(">III", remote_addr >> 32, remote_addr & 0xFFFFFFFF, rkey)
                    + struct.pack(">II", swap_add >> 32, swap_add & 0xFFFFFFFF)
                    + struct.pack(">II", compare >> 32, compare & 0xFFFFFFFF) + bytes(4)
                    + self._sges(sges[:1]))
        if inline is not None:
            flags |= FLAG_INL
            body = body[:12] + struct.pack(">I", len(inline))
            payload = bytes(inline)
            nsge = 0
        else:
            payload = b"" if opc in (OPS["ATOMIC_CS"], OPS["ATOMIC_FA"]) else self._sges(sges)
            nsge = len(sges)
        imm_key = key if opc in LOCAL_OPS else imm
        wqe = struct.pack("<QBB", qp.sq_head, opc, nsge) + struct.pack(">HI", flags, imm_key) + body.ljust(16, b"\0")
        wqe = (wqe + payload).ljust(qp.sq_stride, b"\0")
        if len(wqe) > qp.sq_stride:
            raise RdmaError(f"work request of {len(wqe)} bytes over the SQ stride of {qp.sq_stride}")
        self.h.write(qp.sq_ring + slot * qp.sq_stride, wqe)
        msn = None
        if qp.type in ("RC", "UC") and opc not in LOCAL_OPS:
            qp.msn += 1
            msn = qp.msn
        qp.outstanding.append([wr_id, msn, signaled, op, qp.sq_head])
        qp.sq_head = (qp.sq_head + 1) & 0xFFFF
        return True

    async def post_reg_mr(self, qp, key, length, buf, access=ACCESS_ALL, wr_id=0, signaled=True):
        """A REG_MR work request (ib_reg_mr_wr): binds `key` to `length` bytes at `buf`
        (direct, the bus address as the virtual address)."""
        slot = qp.sq_head % qp.sq_depth
        wqe = (struct.pack("<QBB", qp.sq_head, OPS["REG_MR"], 0) + struct.pack(">HI", FLAG_SIG if signaled else 0, key)
               + struct.pack(">QQHxxxxxxQIxxxB", buf, length, access, buf, 1, 12))
        self.h.write(qp.sq_ring + slot * qp.sq_stride, wqe.ljust(qp.sq_stride, b"\0"))
        qp.outstanding.append([wr_id, None, signaled, "REG_MR", qp.sq_head])
        qp.sq_head = (qp.sq_head + 1) & 0xFFFF
        self.mrs[key] = Mr(key, buf, length, buf)
        await self.doorbell(QTYPE_SQ, qp.id, qp.sq_head % qp.sq_depth)
        return self.mrs[key]

    async def post_recv(self, qp, sges, wr_id=0):
        slot = qp.rq_head % qp.rq_depth
        wqe = struct.pack("<QBB", slot, 0, len(sges)) + bytes(22) + self._sges(sges)
        self.h.write(qp.rq_ring + slot * qp.rq_stride, wqe.ljust(qp.rq_stride, b"\0"))
        qp.recv_ids[slot] = wr_id
        qp.rq_head = (qp.rq_head + 1) & 0xFFFF
        await self.doorbell(QTYPE_RQ, qp.id, qp.rq_head)

    def _flush(self, qp):
        """The provider's flush after an error: every outstanding send WR completes with
        WR_FLUSH_ERR (reported on the send CQ's software list)."""
        qp.flushing = True
        flushed = qp.outstanding
        qp.outstanding = []
        cq = qp.send_cq
        for wr_id, _msn, _sig, op, _slot in flushed:
            cq.soft.append(WorkCompletion(wr_id, "WR_FLUSH_ERR", op, qp.id, time_ps=self.sim.now))
        if flushed:
            self.log("flush", qp=qp.id, wrs=len(flushed), status="WR_FLUSH_ERR")
        self._cq_event_soft(cq)

    def _cq_event_soft(self, cq):
        waiters, cq.waiters = cq.waiters, []
        for fut in waiters:
            if not fut.done:
                fut.set_result(None)

    def poll_cq(self, cq, max_entries=64):
        """Takes the completions the device wrote (colour matching), as WorkCompletions."""
        out, cq.soft = cq.soft[:max_entries], cq.soft[max_entries:]
        while len(out) < max_entries:
            cqe = self.h.read(cq.ring + CQE_BYTES * cq.tail, CQE_BYTES)
            qtf = struct.unpack_from(">I", cqe, 28)[0]
            if (qtf & 1) != cq.color:
                break
            cq.tail = (cq.tail + 1) % cq.depth
            if cq.tail == 0:
                cq.color ^= 1
            out.extend(self._completion(cqe, qtf))
        return out

    def _completion(self, cqe, qtf):
        qp = self.qps.get(qtf >> 8)
        if qp is None:
            return []
        kind = (qtf >> 5) & 7
        sl = struct.unpack_from(">I", cqe, 24)[0]
        err = bool(qtf & 2)
        status = STATUS.get(sl if err else 0, str(sl))
        now = self.sim.now
        if kind == 1:  # a receive
            slot = struct.unpack_from("<Q", cqe, 0)[0] % qp.rq_depth
            op_qpn = struct.unpack_from(">I", cqe, 8)[0]
            op = {0: "RECV", 1: "RECV", 2: "RECV", 3: "RECV_RDMA_WITH_IMM"}.get((op_qpn >> 24) & 0x7F, "RECV")
            return [WorkCompletion(qp.recv_ids.pop(slot, slot), status, op, qp.id, 0 if err else sl,
                                   op_qpn & 0xFFFFFF, struct.unpack_from(">I", cqe, 20)[0], now)]
        out = []
        if kind == 2:  # SEND_MSN: retires the WR of that MSN, and unsignaled ones before it
            msn = struct.unpack_from(">I", cqe, 4)[0]
            keep = []
            for wr in qp.outstanding:
                wr_id, wmsn, signaled, op, _slot = wr
                if wmsn is not None and wmsn == msn:
                    if signaled or err:
                        out.append(WorkCompletion(wr_id, status, op, qp.id, time_ps=now))
                elif wmsn is not None and wmsn < msn and not signaled:
                    continue
                else:
                    keep.append(wr)
            qp.outstanding = keep
        elif kind == 3:  # SEND_NPG: by SQ index
            index = struct.unpack_from("<Q", cqe, 16)[0] & 0xFFFF
            for wr in qp.outstanding:
                if wr[4] == index:
                    qp.outstanding.remove(wr)
                    out.append(WorkCompletion(wr[0], status, wr[3], qp.id, time_ps=now))
                    break
        if err:
            self._flush(qp)
        return out

    async def req_notify_cq(self, cq):
        """Updates the consumer index, then arms the CQ (a level: it fires at once when
        completions are unread)."""
        cq.armed = True
        await self.doorbell(QTYPE_CQ, cq.id, cq.tail, ring=0)
        await self.doorbell(QTYPE_CQ, cq.id, 0, ring=1)

    async def wait(self, cq, count=1, timeout_ps=ms(100)):
        """Completions until at least `count` have come, sleeping on the CQ's events (poll,
        arm, wait, poll again); SimTimeout when they do not come in time."""
        got = []
        deadline = self.sim.now + timeout_ps
        while True:
            got += self.poll_cq(cq)
            if len(got) >= count:
                return got
            fut = Future(self.sim, f"cq {cq.id} event")
            cq.waiters.append(fut)
            await self.req_notify_cq(cq)
            got += self.poll_cq(cq)
            if len(got) >= count:
                return got
            left = deadline - self.sim.now
            if left <= 0:
                raise SimTimeout(f"{self.nic.bdf}: {len(got)} of {count} completions on CQ {cq.id} within {timeout_ps} ps")
            try:
                await self.sim.timeout(fut, left)
            except SimTimeout:
                raise SimTimeout(f"{self.nic.bdf}: {len(got)} of {count} completions on CQ {cq.id} "
                                 f"within {timeout_ps} ps") from None


__all__ = ["IonicRdma", "RdmaError", "WorkCompletion", "Sge", "Mr", "Cq", "Qp", "OPS", "ADMIN", "STATUS", "QPT",
           "ACCESS_ALL"]
