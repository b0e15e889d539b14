"""An ionic driver doing what Linux's does (drivers/net/ethernet/pensando/ionic: ionic_bus_pci.c
ionic_probe, ionic_dev.c, ionic_main.c, ionic_lif.c, ionic_txrx.c), step by step, as MMIO,
DMA'd rings and MSI-X interrupts, against the emulated ionic NIC (models/ionic).

  probe: BAR0 at least 0x8000 and its 'DEVI' signature -> fw_status RUNNING -> devcmd RESET ->
  IDENTIFY (the driver's identity in the data area, version 2) -> LIF_IDENTIFY (CLASSIC, 1) ->
  INIT -> PORT_IDENTIFY, PORT_INIT (port_info by DMA), PORT_SETATTR STATE=UP -> lif_size: one
  interrupt for the admin and notify queues, one per TX/RX pair, the RDMA EQs' -> MSI-X ->
  lif_alloc: LIF_IDENTIFY, Q_IDENTIFY of qtypes 0..3 -> lif_init: LIF_INIT (lif_info by DMA),
  the admin queue's Q_INIT as a devcmd, its interrupt unmasked, the notify queue's Q_INIT on the
  admin queue, LIF_SETATTR FEATURES, LIF_GETATTR MAC, RX_FILTER_ADD of the MAC, LIF_SETATTR
  NAME (register_netdev).
  open (ip link set up): per pair, Q_INIT of the TX and RX queues on the admin queue,
  RX_MODE_SET, the RX ring filled and its doorbell rung, Q_CONTROL ENABLE of RX then TX.

A devcmd is written to the command area, `done` cleared and the doorbell rung; `done` is
polled every 100 us up to DEVCMD_TIMEOUT (5 s), then the area is cleaned. Admin-queue commands
are posted to the ring and completed by the admin interrupt's handler. Each interrupt has a
task running its NAPI poll when its MSI-X message arrives: completions are taken while their
colour matches the expected one (which flips on each wrap), then the interrupt is re-armed by
returning credits with UNMASK | RESET_COALESCE (the vectors are mask-on-assert).
"""
import struct

from dpusim.drivers import pci_driver
from dpusim.drivers.guest_datapath import CppDatapath
from dpusim.drivers.pci_driver import PciDriver, pci_register_driver
from dpusim.drivers.ionic_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.errors import PollTimeout, SimTimeout
from dpusim.futures import Future
from dpusim.units import ms, s, us

DEVCMD_TIMEOUT = s(5)
DEVCMD_POLL = us(100)
ADMINQ_LENGTH = 16
NOTIFYQ_LENGTH = 64
DEFAULT_RING_LENGTH = 256     # the device takes 2..2^15 entries; Linux's default is 1024
IONIC_ITR_COAL_USEC_DEFAULT = 8
IONIC_IDENTITY_VERSION_2 = 2
IONIC_LIF_TYPE_CLASSIC = 0
IONIC_RX_MODE_F_UNICAST = 1 << 0
IONIC_RX_MODE_F_MULTICAST = 1 << 1
IONIC_RX_MODE_F_BROADCAST = 1 << 2
IONIC_RX_FILTER_MATCH_MAC = 1
IONIC_LIF_ATTR_FEATURES = 4
IONIC_LIF_ATTR_NAME = 1
IONIC_Q_ENABLE = 1
IONIC_TXQ_DESC_OPCODE_CSUM_NONE = 0
ETH_HLEN, VLAN_HLEN = 14, 4


class IonicError(RuntimeError):
    """A command failed: `status` is the device's status code (None for a timeout)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def status_name(status):
    return STATUS_NAMES.get(status, str(status))


def cmd_bytes(opcode, fields=()):
    """A 64-byte command: the opcode, then (offset, struct format, value) fields."""
    b = bytearray(IONIC_CMD_BYTES)
    b[0] = opcode
    for off, fmt, value in fields:
        struct.pack_into("<" + fmt, b, off, value)
    return bytes(b)


class Queue:
    """A descriptor ring and its completion ring in host memory (ionic_qcq)."""

    def __init__(self, sim, qtype, index, depth, desc_size, comp_size, intr, sg_size=0):
        h = sim.host
        self.qtype, self.index, self.depth = qtype, index, depth
        self.desc_size, self.comp_size, self.intr = desc_size, comp_size, intr
        self.ring = h.alloc(depth * desc_size, 4096)
        self.cq_ring = h.alloc(depth * comp_size, 4096)
        self.sg_ring = h.alloc(depth * sg_size, 4096) if sg_size else 0
        self.head = 0           # next descriptor the driver fills (the producer index)
        self.tail = 0           # next descriptor the device completes
        self.cq_tail = 0
        self.done_color = 1     # ionic_cq_init: the first pass carries colour 1
        self.hw_index = index
        self.hw_type = qtype
        self.info = [None] * depth   # per descriptor: what the driver keeps (buffers, futures)

    def ring_size_log2(self):
        return self.depth.bit_length() - 1

    def space(self):
        return (self.tail - self.head - 1) % self.depth

    def next_completion(self, host):
        """The completion at the tail if the device has written it (its colour matches), else
        None; advances past it (flipping the expected colour at the wrap)."""
        addr = self.cq_ring + self.cq_tail * self.comp_size
        comp = host.read(addr, self.comp_size)
        if bool(comp[COMP_COLOR] & IONIC_COMP_COLOR_MASK) != bool(self.done_color):
            return None
        self.cq_tail = (self.cq_tail + 1) % self.depth
        if self.cq_tail == 0:
            self.done_color ^= 1
        return comp


class Ionic(CppDatapath):
    def __init__(self, sim, pci, dev, cpus=None, ring_length=DEFAULT_RING_LENGTH,
                 coalesce_usecs=IONIC_ITR_COAL_USEC_DEFAULT):
        self.sim, self.pci, self.dev = sim, pci, dev
        self.h = sim.host
        self.bdf = dev.bdf
        self.cpus = cpus or pci.cpus
        self.ring_length = ring_length
        self.coalesce_usecs = coalesce_usecs
        self.bar0 = next(b for b in dev.bars if b.index == 0)
        self.bar2 = next((b for b in dev.bars if b.index == IONIC_BAR_DBELL), None)
        self.regs = self.bar0.base
        self.dev_ident = {}
        self.lif_ident = b""
        self.capabilities = 0
        self.mac = None
        self.irqs = []
        self.txqs, self.rxqs = [], []
        self.adminq = self.notifyq = None
        self.rx_frames = []          # frames received, (qid, bytes), in order
        self._rx_waiters = []
        self.tx_done = 0
        self.rx_errors = 0
        self.kern_pid = 0
        self.fast = None             # the C++ datapath's id once it has the queues

    def log(self, step, **fields):
        self.sim.log_event("host.ionic", "ionic", bdf=self.bdf, step=step, **fields)

    # ---- devcmd (ionic_dev.c, ionic_main.c) ------------------------------------------------
    def _devcmd_reg(self, off):
        return self.regs + IONIC_BAR0_DEV_CMD_REGS_OFFSET + off

    async def dev_cmd(self, cmd, data=None, timeout_ps=DEVCMD_TIMEOUT, check=True):
        """ionic_dev_cmd_go + ionic_dev_cmd_wait: the command (64 bytes; `data` first into the
        data area), done cleared, the doorbell rung; done polled every 100 us. Returns the
        16-byte completion; raises IonicError on a non-zero status (unless check=False) or a
        timeout. The command area is cleaned afterwards either way (ionic_dev_cmd_clean)."""
        h = self.h
        if data:
            await h.mem_write(self._devcmd_reg(DEV_CMD_DATA), data)
        await h.mem_write(self._devcmd_reg(DEV_CMD_CMD), cmd)
        await h.mem_write32(self._devcmd_reg(DEV_CMD_DONE), 0)
        await h.mem_write32(self._devcmd_reg(DEV_CMD_DOORBELL), 1)
        try:
            await self.sim.poll(lambda: h.mem_read32(self._devcmd_reg(DEV_CMD_DONE)), lambda d: d & IONIC_DEV_CMD_DONE,
                                DEVCMD_POLL, timeout_ps, f"{self.bdf}: devcmd {cmd[0]} done", give_up="before_wait")
        except PollTimeout:
            await self._dev_cmd_clean()
            raise IonicError(f"{self.bdf}: devcmd {cmd[0]} timed out after {timeout_ps} ps") from None
        comp = (await h.mem_read(self._devcmd_reg(DEV_CMD_COMP), IONIC_COMP_BYTES)).data
        await self._dev_cmd_clean()
        if check and comp[COMP_STATUS]:
            raise IonicError(f"{self.bdf}: devcmd {cmd[0]} failed: status {comp[COMP_STATUS]} "
                             f"({status_name(comp[COMP_STATUS])})", comp[COMP_STATUS])
        return comp

    async def _dev_cmd_clean(self):
        await self.h.mem_write32(self._devcmd_reg(DEV_CMD_DOORBELL), 0)
        await self.h.mem_write(self._devcmd_reg(DEV_CMD_CMD), bytes(IONIC_CMD_BYTES))

    async def dev_cmd_data(self, size):
        return (await self.h.mem_read(self._devcmd_reg(DEV_CMD_DATA), size)).data

    # ---- interrupts (ionic_regs.h) ---------------------------------------------------------
    def _intr(self, index, off):
        return self.regs + IONIC_BAR0_INTR_CTRL_OFFSET + index * IONIC_INTR_CTRL_BYTES + off

    async def intr_mask(self, index, value):
        await self.h.mem_write32(self._intr(index, INTR_CTRL_MASK), value)

    async def intr_credits(self, index, credits, flags):
        await self.h.mem_write32(self._intr(index, INTR_CTRL_CREDITS), (credits & IONIC_INTR_CRED_COUNT) | flags)

    async def intr_clean(self, index):
        """ionic_intr_clean: return the credits outstanding, resetting the coalescing timer."""
        credits = await self.h.mem_read32(self._intr(index, INTR_CTRL_CREDITS))
        await self.h.mem_write32(self._intr(index, INTR_CTRL_CREDITS),
                                 (credits & IONIC_INTR_CRED_COUNT_SIGNED) | IONIC_INTR_CRED_RESET_COALESCE)

    async def alloc_interrupt(self, index, coalesce_usecs=0):
        """ionic_alloc_qcq_interrupt: mask on assert, coalescing, the vector's IRQ requested."""
        await self.h.mem_write32(self._intr(index, INTR_CTRL_MASK_ASSERT), IONIC_INTR_MASK_SET)
        if coalesce_usecs:
            mult = self.dev_ident["intr_coal_mult"]
            div = self.dev_ident["intr_coal_div"]
            await self.h.mem_write32(self._intr(index, INTR_CTRL_COAL_INIT), coalesce_usecs * mult // div)
        await self.pci.request_irq(self.dev, index)

    def _start_napi(self, index, poll):
        """The interrupt's handler: on each message, poll (which returns the work done), then
        re-arm with the credits."""
        async def loop():
            seen = self.h.msi_mark()
            while True:
                m = await self.h.wait_msi(data=self.irqs[index], requester=self.dev.rid, since=seen)
                seen = self.h.msis.index(m, seen) + 1
                work = poll()
                await self.intr_credits(index, work, IONIC_INTR_CRED_REARM)

        self.sim.spawn(loop(), f"ionic {self.bdf} irq {index}")

    async def enable_interrupt(self, index):
        """ionic_qcq_enable's part for the interrupt: clean, then unmask."""
        await self.intr_clean(index)
        await self.intr_mask(index, IONIC_INTR_MASK_CLEAR)

    # ---- doorbells -------------------------------------------------------------------------
    async def ring_doorbell(self, q, p_index, ring=0):
        """ionic_dbell_ring: hw_index << 24 | ring << 16 | p_index at the page + 8 x hw_type."""
        addr = self.bar2.base + self.kern_pid * IONIC_DB_PAGE_SIZE + 8 * q.hw_type
        value = (q.hw_index & 0xFF) << IONIC_DBELL_QID_SHIFT | ring << IONIC_DBELL_RING_SHIFT | p_index
        value |= (q.hw_index >> 8) << 32
        await self.h.mem_write64(addr, value)

    # ---- admin queue (ionic_main.c ionic_adminq_post_wait) ---------------------------------
    async def adminq_cmd(self, cmd, timeout_ps=DEVCMD_TIMEOUT, check=True):
        """Posts a command on the admin queue and waits for its completion (the admin
        interrupt's handler takes it). Returns the 16-byte completion; raises IonicError on a
        non-zero status (unless check=False) or when it does not come within the timeout."""
        q = self.adminq
        if q.space() < 1:
            raise IonicError(f"{self.bdf}: admin queue full")
        index = q.head
        self.h.write(q.ring + index * ADMIN_CMD_BYTES, cmd)
        fut = Future(self.sim, f"adminq {cmd[0]}")
        q.info[index] = fut
        q.head = (q.head + 1) % q.depth
        await self.ring_doorbell(q, q.head)
        try:
            comp = await self.sim.timeout(fut, timeout_ps)
        except SimTimeout:
            raise IonicError(f"{self.bdf}: admin command {cmd[0]} not completed within {timeout_ps} ps") from None
        if check and comp[COMP_STATUS]:
            raise IonicError(f"{self.bdf}: admin command {cmd[0]} failed: status {comp[COMP_STATUS]} "
                             f"({status_name(comp[COMP_STATUS])})", comp[COMP_STATUS])
        return comp

    def _adminq_poll(self):
        q = self.adminq
        work = 0
        while (comp := q.next_completion(self.h)) is not None:
            index = struct.unpack_from("<H", comp, COMP_INDEX)[0] % q.depth
            # The device completes in order: everything up to comp_index is done.
            while True:
                fut, q.info[q.tail] = q.info[q.tail], None
                done_index = q.tail
                q.tail = (q.tail + 1) % q.depth
                if fut is not None and not fut.done:
                    fut.set_result(comp if done_index == index else bytes(IONIC_COMP_BYTES))
                if done_index == index or q.tail == q.head:
                    break
            work += 1
        return work

    # ---- probe -----------------------------------------------------------------------------
    async def probe(self):
        """ionic_probe up to a registered netdev; returns self."""
        h = self.h
        self.log("probe")
        if self.bar0.size < IONIC_BAR0_REGS_SIZE:
            raise IonicError(f"{self.bdf}: BAR0 of {self.bar0.size} bytes, below {IONIC_BAR0_REGS_SIZE:#x}")
        if self.bar2 is None:
            raise IonicError(f"{self.bdf}: no doorbell BAR")
        sig = await h.mem_read32(self.regs + DEV_INFO_SIGNATURE)
        if sig != IONIC_DEV_INFO_SIGNATURE:
            raise IonicError(f"{self.bdf}: Incompatible firmware signature {sig:#x}")
        self.asic_type = await h.mem_read8(self.regs + DEV_INFO_ASIC_TYPE)
        self.fw_status = await h.mem_read8(self.regs + DEV_INFO_FW_STATUS)
        self.fw_version = (await h.mem_read(self.regs + DEV_INFO_FW_VERSION, 32)).data.split(b"\0")[0].decode()
        if not self.fw_status & IONIC_FW_STS_F_RUNNING:
            raise IonicError(f"{self.bdf}: firmware not running (fw_status {self.fw_status:#x})")
        await self.dev_cmd(cmd_bytes(IONIC_CMD_RESET))
        await self.identify()
        await self.dev_cmd(cmd_bytes(IONIC_CMD_INIT))
        await self.port_init()
        await self.lif_size()
        await self.lif_alloc()
        await self.lif_init()
        self.log("probed", mac=self.mac.hex(":"), nxqs=self.nxqs, capabilities=self.capabilities,
                 fw_version=self.fw_version)
        return self

    async def identify(self):
        """ionic_identify: the driver's identity into the data area, IDENTIFY version 2, the
        device's identity back; then LIF_IDENTIFY."""
        drv = bytearray(DEV_ID_BYTES)
        struct.pack_into("<I", drv, 0, 1)  # os_type Linux
        drv[136:136 + 6] = b"6.18.0"       # kernel_ver_str
        drv[168:168 + 5] = b"dpusim"       # driver_ver_str
        comp = await self.dev_cmd(cmd_bytes(IONIC_CMD_IDENTIFY, [(1, "B", IONIC_IDENTITY_VERSION_2)]), data=drv)
        d = await self.dev_cmd_data(DEV_ID_BYTES)
        names = ("nlifs", "nintrs", "ndbpgs_per_lif", "intr_coal_mult", "intr_coal_div", "eq_count")
        values = struct.unpack_from("<6I", d, DEV_ID_NLIFS)
        self.dev_ident = dict(zip(names, values), version=comp[1], nports=d[DEV_ID_NPORTS])
        await self.lif_identify()

    async def lif_identify(self):
        await self.dev_cmd(cmd_bytes(IONIC_CMD_LIF_IDENTIFY, [(1, "B", IONIC_LIF_TYPE_CLASSIC), (2, "B", 1)]))
        self.lif_ident = await self.dev_cmd_data(DEV_CMD_DATA_BYTES)
        self.capabilities = struct.unpack_from("<Q", self.lif_ident, LIF_ID_CAPABILITIES)[0]
        self.queue_count = struct.unpack_from("<16I", self.lif_ident, LIF_ID_CONFIG_QUEUE_COUNT)
        return self.lif_ident

    async def port_init(self):
        """ionic_port_identify, ionic_port_init (port_info by DMA), PORT_SETATTR STATE=UP."""
        await self.dev_cmd(cmd_bytes(IONIC_CMD_PORT_IDENTIFY))
        self.port_info = self.h.alloc(4096, 4096)
        await self.dev_cmd(cmd_bytes(IONIC_CMD_PORT_INIT, [(CMD_INFO_PA, "Q", self.port_info)]))
        try:
            await self.dev_cmd(cmd_bytes(IONIC_CMD_PORT_SETATTR, [(1, "B", 1), (4, "B", IONIC_PORT_ADMIN_STATE_UP)]))
        except IonicError:
            pass  # ionic_port_init ignores a failure of the state change

    async def lif_size(self):
        """ionic_lif_size: one interrupt for the admin and notify queues, one per queue pair,
        one per RDMA EQ; MSI-X with exactly that many vectors."""
        self.nxqs = max(1, min(self.queue_count[IONIC_QTYPE_TXQ], self.queue_count[IONIC_QTYPE_RXQ], self.cpus))
        self.neqs = min(self.dev_ident["eq_count"], self.cpus) if self.capabilities & IONIC_LIF_CAP_RDMA else 0
        nintrs = 1 + self.nxqs + self.neqs
        if nintrs > self.dev_ident["nintrs"]:
            raise IonicError(f"{self.bdf}: {nintrs} interrupts wanted, the device has {self.dev_ident['nintrs']}")
        self.irqs = await self.pci.alloc_irq_vectors(self.dev, nintrs)
        self.log("lif_size", nxqs=self.nxqs, neqs=self.neqs, nintrs=nintrs)

    async def lif_alloc(self):
        """ionic_lif_alloc: LIF_IDENTIFY, the queue identities, the admin and notify queues
        (the notify queue shares the admin queue's interrupt 0)."""
        await self.lif_identify()
        self.q_ident = {}
        for qtype in (IONIC_QTYPE_ADMINQ, IONIC_QTYPE_NOTIFYQ, IONIC_QTYPE_RXQ, IONIC_QTYPE_TXQ):
            ver = {IONIC_QTYPE_RXQ: 2, IONIC_QTYPE_TXQ: 3}.get(qtype, 0)
            await self.dev_cmd(cmd_bytes(IONIC_CMD_Q_IDENTIFY, [(2, "H", IONIC_LIF_TYPE_CLASSIC), (4, "B", qtype),
                                                                (5, "B", ver)]))
            self.q_ident[qtype] = await self.dev_cmd_data(Q_ID_BYTES)
        self.adminq = Queue(self.sim, IONIC_QTYPE_ADMINQ, 0, ADMINQ_LENGTH, ADMIN_CMD_BYTES, ADMIN_COMP_BYTES, 0)
        self.notifyq = Queue(self.sim, IONIC_QTYPE_NOTIFYQ, 0, NOTIFYQ_LENGTH, 64, 64, 0)
        await self.alloc_interrupt(0)
        self.lif_info = self.h.alloc(4096, 4096)

    def q_init_cmd(self, q, flags):
        return cmd_bytes(IONIC_CMD_Q_INIT, [
            (CMD_LIF_INDEX, "H", 0), (Q_INIT_TYPE, "B", q.qtype), (Q_INIT_INDEX, "I", q.index),
            (Q_INIT_PID, "H", self.kern_pid), (Q_INIT_INTR_INDEX, "H", q.intr), (Q_INIT_FLAGS, "H", flags),
            (Q_INIT_RING_SIZE, "B", q.ring_size_log2()), (Q_INIT_RING_BASE, "Q", q.ring),
            (Q_INIT_CQ_RING_BASE, "Q", q.cq_ring), (Q_INIT_SG_RING_BASE, "Q", q.sg_ring)])

    @staticmethod
    def take_hw(q, comp):
        q.hw_index = struct.unpack_from("<I", comp, Q_INIT_COMP_HW_INDEX)[0]
        q.hw_type = comp[Q_INIT_COMP_HW_TYPE]

    async def lif_init(self):
        """ionic_lif_init: LIF_INIT, the admin queue by devcmd, its interrupt enabled, the
        notify queue on the admin queue, features, the station MAC and its filter, the name."""
        comp = await self.dev_cmd(cmd_bytes(IONIC_CMD_LIF_INIT, [(CMD_LIF_INDEX, "H", 0),
                                                                 (CMD_INFO_PA, "Q", self.lif_info)]))
        self.hw_index = struct.unpack_from("<H", comp, 2)[0]
        comp = await self.dev_cmd(self.q_init_cmd(self.adminq, IONIC_QINIT_F_IRQ | IONIC_QINIT_F_ENA))
        self.take_hw(self.adminq, comp)
        self._start_napi(0, self._adminq_poll)
        await self.enable_interrupt(0)
        comp = await self.adminq_cmd(self.q_init_cmd(self.notifyq, IONIC_QINIT_F_IRQ | IONIC_QINIT_F_ENA))
        self.take_hw(self.notifyq, comp)
        await self.adminq_cmd(cmd_bytes(IONIC_CMD_LIF_SETATTR, [(1, "B", IONIC_LIF_ATTR_FEATURES), (4, "Q", 0)]))
        comp = await self.adminq_cmd(cmd_bytes(IONIC_CMD_LIF_GETATTR, [(1, "B", IONIC_LIF_ATTR_MAC)]))
        self.mac = bytes(comp[LIF_ATTR_VALUE:LIF_ATTR_VALUE + 6])
        await self.adminq_cmd(cmd_bytes(IONIC_CMD_RX_FILTER_ADD, [(1, "B", IONIC_QTYPE_RXQ),
                                                                  (8, "H", IONIC_RX_FILTER_MATCH_MAC),
                                                                  (10, "6s", self.mac)]))
        await self.adminq_cmd(cmd_bytes(IONIC_CMD_LIF_SETATTR, [(1, "B", IONIC_LIF_ATTR_NAME),
                                                                (LIF_ATTR_VALUE, "16s", b"eth0")]))

    def link_up(self):
        """ionic_link_status_check: the link status the device wrote into lif_info."""
        status = self.h.read(self.lif_info + IONIC_LIF_INFO_STATUS, 16)
        return struct.unpack_from("<H", status, LIF_STATUS_LINK_STATUS)[0] == IONIC_PORT_OPER_STATUS_UP

    # ---- open (ionic_open, ionic_txrx_alloc/init, ionic_start_queues) ------------------------
    def rx_buf_len(self):
        return 1500 + ETH_HLEN + VLAN_HLEN

    async def open(self, nxqs=None):
        """ip link set up: TX/RX pairs (the RX queue owns interrupt 1 + i, TX shares it), their
        Q_INITs on the admin queue, RX_MODE_SET, then, with the link up, RX filled and the
        queues enabled (RX first)."""
        n = nxqs or self.nxqs
        for i in range(n):
            intr = 1 + i
            tx = Queue(self.sim, IONIC_QTYPE_TXQ, i, self.ring_length, ETH_DESC_BYTES, ETH_COMP_BYTES, intr,
                       TXQ_SG_DESC_BYTES)
            rx = Queue(self.sim, IONIC_QTYPE_RXQ, i, self.ring_length, ETH_DESC_BYTES, ETH_COMP_BYTES, intr)
            await self.alloc_interrupt(intr, self.coalesce_usecs)
            self.txqs.append(tx)
            self.rxqs.append(rx)
        for tx, rx in zip(self.txqs, self.rxqs):
            self.take_hw(tx, await self.adminq_cmd(self.q_init_cmd(tx, IONIC_QINIT_F_IRQ | IONIC_QINIT_F_SG)))
            self.take_hw(rx, await self.adminq_cmd(self.q_init_cmd(rx, IONIC_QINIT_F_IRQ | IONIC_QINIT_F_SG)))
        await self.adminq_cmd(cmd_bytes(IONIC_CMD_RX_MODE_SET, [(4, "H", IONIC_RX_MODE_F_UNICAST |
                                                                 IONIC_RX_MODE_F_MULTICAST |
                                                                 IONIC_RX_MODE_F_BROADCAST)]))
        if not self.link_up():
            raise IonicError(f"{self.bdf}: link down after LIF_INIT")
        for i, (tx, rx) in enumerate(zip(self.txqs, self.rxqs)):
            self._start_napi(rx.intr, lambda tx=tx, rx=rx: self._txrx_poll(tx, rx))
            await self.rx_fill(rx)
            await self.enable_interrupt(rx.intr)
            await self.adminq_cmd(cmd_bytes(IONIC_CMD_Q_CONTROL, [(1, "B", IONIC_QTYPE_RXQ), (4, "I", rx.index),
                                                                  (8, "B", IONIC_Q_ENABLE)]))
            await self.adminq_cmd(cmd_bytes(IONIC_CMD_Q_CONTROL, [(1, "B", IONIC_QTYPE_TXQ), (4, "I", tx.index),
                                                                  (8, "B", IONIC_Q_ENABLE)]))
        self.log("open", nxqs=n)

    async def rx_fill(self, rx):
        """ionic_rx_fill: a buffer per free descriptor, then the doorbell with the new head."""
        n = rx.space()
        for _ in range(n):
            self._post_rx(rx)
        if n:
            await self.ring_doorbell(rx, rx.head)

    def _post_rx(self, rx):
        buf = rx.info[rx.head]
        if buf is None:
            buf = self.h.alloc(self.rx_buf_len(), 64)
            rx.info[rx.head] = buf
        desc = struct.pack("<B5xHQ", 0, self.rx_buf_len(), buf)
        self.h.write(rx.ring + rx.head * ETH_DESC_BYTES, desc)
        rx.head = (rx.head + 1) % rx.depth

    # ---- datapath ----------------------------------------------------------------------------
    async def send(self, frame, qid=0):
        """ionic_start_xmit: the frame in a buffer, one descriptor (no SG, no offload), the
        doorbell. Raises IonicError when the ring is full (once the C++ datapath has the queues,
        the frame waits in it instead)."""
        if self.fast is not None:
            return await self.send_many([frame], qid)
        tx = self.txqs[qid]
        if tx.space() < 1:
            raise IonicError(f"{self.bdf}: TX queue {qid} full")
        buf = self.h.alloc(len(frame), 64)
        self.h.write(buf, bytes(frame))
        cmd = IONIC_TXQ_DESC_OPCODE_CSUM_NONE << 4 | buf << IONIC_TXQ_DESC_ADDR_SHIFT
        self.h.write(tx.ring + tx.head * ETH_DESC_BYTES, struct.pack("<QHHHH", cmd, len(frame), 0, 0, 0))
        tx.info[tx.head] = buf
        tx.head = (tx.head + 1) % tx.depth
        await self.ring_doorbell(tx, tx.head)

    def _txrx_poll(self, tx, rx):
        """ionic_txrx_napi: TX completions (buffers freed), then RX completions (frames taken,
        buffers posted again); the RX doorbell when any were."""
        work = 0
        while (comp := tx.next_completion(self.h)) is not None:
            index = struct.unpack_from("<H", comp, COMP_INDEX)[0] % tx.depth
            while True:
                buf, tx.info[tx.tail] = tx.info[tx.tail], None
                done_index = tx.tail
                tx.tail = (tx.tail + 1) % tx.depth
                if buf is not None:
                    self.h.free(buf)
                    self.tx_done += 1
                if done_index == index or tx.tail == tx.head:
                    break
            work += 1
        refilled = 0
        while (comp := rx.next_completion(self.h)) is not None:
            index = struct.unpack_from("<H", comp, COMP_INDEX)[0] % rx.depth
            length = struct.unpack_from("<H", comp, RXQ_COMP_LEN)[0]
            buf = rx.info[index]
            if comp[COMP_STATUS] == 0 and buf is not None and length <= self.rx_buf_len():
                self.rx_frames.append((rx.index, self.h.read(buf, length)))
            else:
                self.rx_errors += 1   # ionic_rx_service: a bad status or length drops the frame
            rx.tail = (index + 1) % rx.depth
            self._post_rx(rx)
            refilled += 1
            work += 1
        if refilled:
            self.sim.spawn(self.ring_doorbell(rx, rx.head), f"ionic {self.bdf} rx refill")
        self._wake_rx()
        return work

    def _wake_rx(self):
        still = []
        for count, fut in self._rx_waiters:
            if fut.done:
                continue
            if len(self.rx_frames) >= count:
                fut.set_result(None)
            else:
                still.append((count, fut))
        self._rx_waiters = still

    async def recv(self, count=1, timeout_ps=ms(10)):
        """The next `count` frames received on any queue (as (qid, bytes)), taken off the list;
        SimTimeout when they do not come in time."""
        if self.fast is not None and len(self.rx_frames) < count:
            self.rx_frames += await self.recv_many(count - len(self.rx_frames), timeout_ps)
        if len(self.rx_frames) < count:
            fut = Future(self.sim, f"{self.bdf}: {count} frames")
            self._rx_waiters.append((count, fut))
            try:
                await self.sim.timeout(fut, timeout_ps)
            except SimTimeout:
                raise SimTimeout(f"{self.bdf}: {len(self.rx_frames)} of {count} frames within {timeout_ps} ps") from None
        got, self.rx_frames = self.rx_frames[:count], self.rx_frames[count:]
        return got

    # ---- the datapath in C++ (models/guest/ionic_guest.h) -------------------------------------
    def _queue_state(self, q):
        """A queue as the C++ datapath takes it over: its rings, indices, expected colour, and the
        buffer at each descriptor (RX: every posted one; TX: the frames still in flight)."""
        return {"qid": q.hw_index, "depth": q.depth, "ring": q.ring, "cq_ring": q.cq_ring, "head": q.head,
                "tail": q.tail, "cq_tail": q.cq_tail, "done_color": bool(q.done_color),
                "bufs": [b or 0 for b in q.info]}

    def _active_queue_pairs(self):
        return len(self.txqs)

    def _check_active(self, qp):
        if not 0 <= qp < len(self.txqs):
            raise ValueError(f"{self.bdf}: queue pair {qp} is not open ({len(self.txqs)} are)")

    def fast_path(self):
        """Hands every open TX/RX queue pair, with its interrupt, to the C++ datapath (once);
        returns its id. From then on send and recv go through it too; the queues' MSIs are its
        own."""
        if self.fast is None:
            if not self.txqs:
                raise IonicError(f"{self.bdf}: no queue is open to hand to the C++ datapath (open() first)")
            pairs = [{"tx": self._queue_state(tx), "rx": self._queue_state(rx), "msi": self.irqs[rx.intr],
                      "intr": rx.intr} for tx, rx in zip(self.txqs, self.rxqs)]
            self.fast = self._guest().attach_ionic(
                self.sim.platform, f"guest.{self.bdf}", self.dev.rid, self.bar2.base + self.kern_pid * IONIC_DB_PAGE_SIZE,
                self.regs + IONIC_BAR0_INTR_CTRL_OFFSET, self.rx_buf_len(), pairs)
            for q in self.txqs + self.rxqs:  # the C++ side owns them now
                q.info = [None] * q.depth
            self.log("fast_path", queue_pairs=len(pairs))
        return self.fast

    # ---- remove ------------------------------------------------------------------------------
    async def remove(self):
        """ionic_remove's device commands: LIF_RESET, PORT_RESET, RESET (the C++ datapath, if it
        had the queues, lets them and their interrupts go first; the queues are gone with the
        LIF)."""
        self.fast_path_detach()
        self.txqs, self.rxqs = [], []
        await self.dev_cmd(cmd_bytes(IONIC_CMD_LIF_RESET, [(CMD_LIF_INDEX, "H", 0)]))
        await self.dev_cmd(cmd_bytes(IONIC_CMD_PORT_RESET))
        await self.dev_cmd(cmd_bytes(IONIC_CMD_RESET))


async def ionic_probe(sim, pci, dev, **options):
    """The PCI driver's probe (ionic_bus_pci.c ionic_probe); `options` are Ionic's (cpus,
    ring_length, coalesce_usecs). Returns the Ionic."""
    return await Ionic(sim, pci, dev, **options).probe()


IONIC_DRIVER = pci_register_driver(PciDriver("ionic", ((PCI_VENDOR_ID_PENSANDO, PCI_DEVICE_ID_ERNIC),), ionic_probe))


def ionic_devices(pci):
    """The ionic functions of an enumerated hierarchy, in BDF order."""
    return pci_driver.endpoints(pci, IONIC_DRIVER)


async def probe_all(sim, pci, **kw):
    """Probes every ionic NIC one after another in BDF order; returns the drivers."""
    return await pci_driver.probe_all(sim, pci, IONIC_DRIVER, **kw)


__all__ = ["Ionic", "IonicError", "Queue", "IONIC_DRIVER", "cmd_bytes", "ionic_devices", "ionic_probe", "probe_all",
           "status_name"]
