"""A virtio-net driver doing what Linux does (drivers/virtio/virtio_pci_modern.c,
virtio_pci_modern_dev.c, virtio_pci_common.c, drivers/virtio/virtio.c and
drivers/net/virtio_net.c, ~v6.8), step by step, as config and MMIO traffic:

  probe: capability walk -> reset (write 0, poll every 1 ms until 0) -> ACKNOWLEDGE -> DRIVER
  -> device features (select 0, 1) -> driver features (select 0, 1) -> FEATURES_OK and its
  read-back -> config reads (MTU, MAC, status, max pairs) -> find_vqs: MSI-X vectors (config
  vector written and read back, then per queue: select, size, enable, addresses, vector, notify
  offset) -> queue_enable = 1 for every queue -> DRIVER_OK -> VQ_PAIRS_SET(min(cpus, max)).
  open (ip link set up): receive buffers posted on the active queues and kicked.

The control queue has no interrupt (Linux polls it): the driver spins on the used ring, which
here is an await of the device's DMA write into it. Endpoints are probed one after another in
BDF order (probe_all), as Linux's serial probing does; the id table (VIRTIO_NET_DRIVER) is
registered with dpusim.drivers.pci_driver, so enumeration and pciehp bind it too.

Traffic at scale: send_many, recv_many and traffic hand the data queues (not the control
queue) to the driver's datapath in C++ (models/guest/virtio_net_guest.h) the first time one of
them is used, so that Python's cost is per batch, not per frame; from then on send, recv,
poll_rx and open go through it too, until reset() (remove() resets) lets the queues go.
"""
import struct

from dpusim.bdf import bdf_str
from dpusim.drivers import pci_driver
from dpusim.drivers.pci_driver import PciDriver, pci_register_driver
from dpusim.drivers.pci_regs import PCI_CAP_ID_VNDR
from dpusim.drivers.virtio_regs import *  # noqa: F403 - the register names are the vocabulary here
from dpusim.drivers.guest_datapath import CppDatapath, TrafficResult  # noqa: F401 - TrafficResult: re-exported
from dpusim.drivers.virtio_ring import Virtqueue
from dpusim.errors import SimTimeout
from dpusim.units import ms

VIRTIO_VENDOR_ID, VIRTIO_NET_DEVICE_ID = 0x1AF4, 0x1041
GOOD_PACKET_LEN = 14 + 4 + 1500  # ETH_HLEN + VLAN_HLEN + ETH_DATA_LEN
MERGEABLE_BUF_LEN = 1536


class VirtioNetError(RuntimeError):
    pass


class VirtioNet(CppDatapath):
    def __init__(self, sim, pci, dev):
        self.sim = sim
        self.pci = pci
        self.dev = dev
        self.h = sim.host
        self.bdf = dev.bdf
        self.caps = {}
        self.vqs = []
        self.cvq = None
        self.features = 0
        self.max_queue_pairs = 1
        self.curr_queue_pairs = 1
        self.vectors = []
        self.mac = None
        self.mtu = 1500
        self.rx_posted = {}  # RX vq index -> buffers posted
        self.fast = None  # the C++ datapath's id once it runs the data queues
        self.status_written = None  # the device_status this driver last wrote

    def log(self, step, **fields):
        self.sim.log_event("host.virtio_net", "virtio_net", bdf=self.bdf, step=step, **fields)

    # ---- transport (virtio_pci_modern_dev.c) ----------------------------------------------
    async def find_caps(self):
        """virtio_pci_find_capability for each cfg_type: the first vendor cap of the type."""
        rid = self.dev.rid
        for cap_id, pos in self.dev.caps:
            if cap_id != PCI_CAP_ID_VNDR:
                continue
            cfg_type = await self.pci.read(rid, pos + VIRTIO_PCI_CAP_CFG_TYPE, 1)
            bar = await self.pci.read(rid, pos + VIRTIO_PCI_CAP_BAR, 1)
            if cfg_type in self.caps or bar > 5:
                continue
            offset = await self.pci.read(rid, pos + VIRTIO_PCI_CAP_OFFSET)
            length = await self.pci.read(rid, pos + VIRTIO_PCI_CAP_LENGTH)
            base = next(b.base for b in self.dev.bars if b.index == bar)
            self.caps[cfg_type] = (base + offset, length, pos)
        for need in (VIRTIO_PCI_CAP_COMMON_CFG, VIRTIO_PCI_CAP_ISR_CFG, VIRTIO_PCI_CAP_NOTIFY_CFG):
            if need not in self.caps:
                raise VirtioNetError(f"{self.bdf}: no virtio capability of cfg_type {need}")
        self.common = self.caps[VIRTIO_PCI_CAP_COMMON_CFG][0]
        self.device_cfg = self.caps[VIRTIO_PCI_CAP_DEVICE_CFG][0]
        notify_pos = self.caps[VIRTIO_PCI_CAP_NOTIFY_CFG][2]
        self.notify_base, self.notify_len = self.caps[VIRTIO_PCI_CAP_NOTIFY_CFG][:2]
        self.notify_mult = await self.pci.read(self.dev.rid, notify_pos + VIRTIO_PCI_NOTIFY_CAP_MULT)

    async def r8(self, off):
        return await self.h.mem_read8(self.common + off)

    async def r16(self, off):
        return await self.h.mem_read16(self.common + off)

    async def r32(self, off):
        return await self.h.mem_read32(self.common + off)

    async def w8(self, off, v):
        await self.h.mem_write8(self.common + off, v)

    async def w16(self, off, v):
        await self.h.mem_write16(self.common + off, v)

    async def w32(self, off, v):
        await self.h.mem_write32(self.common + off, v)

    async def get_status(self):
        cpl = await self.h.mem_read(self.common + VIRTIO_PCI_COMMON_STATUS, 1)
        if cpl.ok:
            self.check_status(cpl.value)
        return cpl.value

    def check_status(self, value):
        """Invariant "status_unreachable": what the driver reads back is a state the virtio
        status machine can hold after its own last write `w` (virtio 1.2 §2.1, §3.1): w
        itself, w with DEVICE_NEEDS_RESET (the device stopped), or a reset state (0, or 0x40
        while the device holds its reset), never a value the driver did not write (a read that
        passed the write, a lost write)."""
        w = self.status_written
        if w is None or value in (w, w | VIRTIO_CONFIG_S_NEEDS_RESET, 0, VIRTIO_CONFIG_S_NEEDS_RESET):
            return
        self.sim.violation("status_unreachable", f"{self.bdf}: device_status read {value:#04x} after the driver "
                           f"wrote {w:#04x}", path="host.virtio_net")

    async def set_status(self, value):
        self.status_written = value
        await self.w8(VIRTIO_PCI_COMMON_STATUS, value)

    async def add_status(self, bit):
        """virtio_add_status: read, OR in the bit, write."""
        await self.set_status((await self.get_status()) | bit)

    async def reset(self, poll_ps=None):
        """vp_reset: write 0, then msleep(1) until the status reads 0. Returns the polls."""
        self.fast_path_detach()  # the device's queues go with the reset
        await self.set_status(0)
        def every():
            return poll_ps if poll_ps is not None else self.sim.latency("host.virtio.reset_poll_ps")

        polled = await self.sim.poll(self.get_status, lambda status: not status, every, None,
                                     f"{self.bdf}: device_status 0 after reset")
        polls = polled.reads - 1
        self.log("reset", polls=polls)
        return polls

    async def get_features(self):
        """vp_get_features: the 64 bits in two windows."""
        f = 0
        for sel in (0, 1):
            await self.w32(VIRTIO_PCI_COMMON_DFSELECT, sel)
            f |= (await self.r32(VIRTIO_PCI_COMMON_DF)) << (32 * sel)
        return f

    async def set_features(self, features):
        for sel in (0, 1):
            await self.w32(VIRTIO_PCI_COMMON_GFSELECT, sel)
            await self.w32(VIRTIO_PCI_COMMON_GF, (features >> (32 * sel)) & 0xFFFFFFFF)

    async def cread(self, off, size):
        """virtio_cread with the config_generation retry around a multi-byte field."""
        while True:
            gen = await self.r8(VIRTIO_PCI_COMMON_CFGGENERATION)
            if size == 6:  # virtio_cread_bytes: one byte at a time
                value = bytes([await self.h.mem_read8(self.device_cfg + off + i) for i in range(6)])
            else:
                value = (await self.h.mem_read(self.device_cfg + off, size)).value
            if await self.r8(VIRTIO_PCI_COMMON_CFGGENERATION) == gen:
                return value

    # ---- probe --------------------------------------------------------------------------
    async def probe(self, cpus=None):
        """virtio_pci_probe + virtio_dev_probe + virtnet_probe; returns self."""
        cpus = cpus or self.pci.cpus
        self.log("probe")
        await self.find_caps()
        await self.reset()
        await self.add_status(VIRTIO_CONFIG_S_ACKNOWLEDGE)
        await self.add_status(VIRTIO_CONFIG_S_DRIVER)
        device = await self.get_features()
        wanted = sum(1 << b for b in LINUX_VIRTIO_NET_FEATURES + LINUX_TRANSPORT_FEATURES)
        self.features = device & wanted
        if not self.features & (1 << VIRTIO_F_VERSION_1):
            raise VirtioNetError(f"{self.bdf}: device does not offer VIRTIO_F_VERSION_1")
        if self.has(VIRTIO_NET_F_MTU):  # virtnet_validate
            if await self.cread(VIRTIO_NET_CFG_MTU, 2) < 68:
                self.features &= ~(1 << VIRTIO_NET_F_MTU)
        await self.set_features(self.features)
        await self.add_status(VIRTIO_CONFIG_S_FEATURES_OK)
        if not (await self.get_status()) & VIRTIO_CONFIG_S_FEATURES_OK:
            await self.add_status(VIRTIO_CONFIG_S_FAILED)
            raise VirtioNetError(f"{self.bdf}: device refuses features {self.features:#x}")
        self.log("features_ok", features=f"{self.features:#x}")
        if self.has(VIRTIO_NET_F_MQ) and self.has(VIRTIO_NET_F_CTRL_VQ):
            pairs = await self.cread(VIRTIO_NET_CFG_MAX_VQ_PAIRS, 2)
            self.max_queue_pairs = pairs if 1 <= pairs <= 0x8000 else 1
        if self.has(VIRTIO_NET_F_MAC):
            self.mac = await self.cread(VIRTIO_NET_CFG_MAC, 6)
        if self.has(VIRTIO_NET_F_MTU):
            self.mtu = await self.cread(VIRTIO_NET_CFG_MTU, 2)
        self.curr_queue_pairs = min(cpus, self.max_queue_pairs)
        await self.find_vqs()
        self.log("driver_ok")
        await self.add_status(VIRTIO_CONFIG_S_DRIVER_OK)
        if self.has(VIRTIO_NET_F_STATUS):
            self.link_up = bool(await self.cread(VIRTIO_NET_CFG_STATUS, 2) & VIRTIO_NET_S_LINK_UP)
        if self.cvq is not None:  # virtnet_set_queues, sent even for one pair
            if not await self.send_command(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
                                           struct.pack("<H", self.curr_queue_pairs)):
                raise VirtioNetError(f"{self.bdf}: Fail to set num of queue pairs to {self.curr_queue_pairs}")
        self.log("probed", queue_pairs=self.curr_queue_pairs, max_queue_pairs=self.max_queue_pairs)
        return self

    def has(self, bit):
        return bool(self.features >> bit & 1)

    async def find_vqs(self):
        """vp_find_vqs_msix with one vector per queue that has a callback (the control queue
        has none), the config vector first; then every queue enabled."""
        nqueues = 2 * self.max_queue_pairs
        nvectors = 1 + nqueues
        self.vectors = await self.pci.alloc_irq_vectors(self.dev, nvectors)
        await self.pci.request_irq(self.dev, 0)
        await self.w16(VIRTIO_PCI_COMMON_MSIX, 0)
        if await self.r16(VIRTIO_PCI_COMMON_MSIX) == VIRTIO_MSI_NO_VECTOR:
            raise VirtioNetError(f"{self.bdf}: config vector refused")
        num_queues = await self.r16(VIRTIO_PCI_COMMON_NUMQ)
        total = nqueues + (1 if self.has(VIRTIO_NET_F_CTRL_VQ) else 0)
        for index in range(total):
            ctrl = index == nqueues
            vq = await self.setup_vq(index, num_queues, None if ctrl else 1 + index)
            if ctrl:
                self.cvq = vq
            else:
                self.vqs.append(vq)
        for vq in self.vqs + ([self.cvq] if self.cvq else []):
            await self.w16(VIRTIO_PCI_COMMON_Q_SELECT, vq.index)
            await self.w16(VIRTIO_PCI_COMMON_Q_ENABLE, 1)

    async def setup_vq(self, index, num_queues, vector):
        """vp_modern setup_vq: each access preceded by its queue_select write."""
        if index >= num_queues:
            raise VirtioNetError(f"{self.bdf}: queue {index} beyond num_queues {num_queues}")
        sel = VIRTIO_PCI_COMMON_Q_SELECT
        await self.w16(sel, index)
        size = await self.r16(VIRTIO_PCI_COMMON_Q_SIZE)
        await self.w16(sel, index)
        if size == 0 or await self.r16(VIRTIO_PCI_COMMON_Q_ENABLE):
            raise VirtioNetError(f"{self.bdf}: queue {index} unavailable")
        await self.w16(sel, index)
        notify_off = await self.r16(VIRTIO_PCI_COMMON_Q_NOFF)
        if notify_off * self.notify_mult + 2 > self.notify_len:
            raise VirtioNetError(f"{self.bdf}: notify offset {notify_off} outside the notify region")
        vq = Virtqueue(self.sim, index, size, self.notify_base + notify_off * self.notify_mult)
        await self.w16(sel, index)
        await self.w16(VIRTIO_PCI_COMMON_Q_SIZE, size)
        for lo, addr in ((VIRTIO_PCI_COMMON_Q_DESCLO, vq.desc), (VIRTIO_PCI_COMMON_Q_AVAILLO, vq.avail),
                         (VIRTIO_PCI_COMMON_Q_USEDLO, vq.used)):
            await self.w16(sel, index)
            await self.w32(lo, addr & 0xFFFFFFFF)
            await self.w32(lo + 4, addr >> 32)
        if vector is not None:
            await self.w16(sel, index)
            await self.w16(VIRTIO_PCI_COMMON_Q_MSIX, vector)
            if await self.r16(VIRTIO_PCI_COMMON_Q_MSIX) == VIRTIO_MSI_NO_VECTOR:
                raise VirtioNetError(f"{self.bdf}: queue {index} vector refused")
            await self.pci.request_irq(self.dev, vector)
        return vq

    # ---- control queue (virtnet_send_command) --------------------------------------------
    async def send_command(self, cls, cmd, data=b""):
        """Header, data, status (0xFF until the device acks), kick, spin on the used ring.
        True iff the ack is VIRTIO_NET_OK."""
        h = self.sim.host
        buf = h.alloc(2 + len(data) + 1, 8)
        h.write(buf, bytes([cls, cmd]) + bytes(data) + b"\xff")
        outs = [(buf, 2)] + ([(buf + 2, len(data))] if data else [])
        status_addr = buf + 2 + len(data)
        self.cvq.add(outs, [(status_addr, 1)], token="ctrl")
        self.log("ctrl_command", cls=cls, cmd=cmd, data=data.hex())
        await self.cvq.kick()
        while True:
            watch = h.wait_write(self.cvq.used_idx_addr, 2)
            got = self.cvq.get()
            if got is not None:
                break
            await watch
        ack = h.read(status_addr, 1)[0]
        h.free(buf)
        self.log("ctrl_ack", cls=cls, cmd=cmd, ack=ack)
        return ack == VIRTIO_NET_OK

    async def set_queue_pairs(self, pairs):
        """virtnet_set_channels (ethtool -L combined N): VQ_PAIRS_SET, then on OK the new
        receive queues get buffers."""
        if not 1 <= pairs <= self.max_queue_pairs:
            raise ValueError(f"{pairs} queue pairs outside 1..{self.max_queue_pairs}")
        if not await self.send_command(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, struct.pack("<H", pairs)):
            return False
        self.curr_queue_pairs = pairs
        if self.rx_posted:
            await self.open()
        return True

    # ---- datapath ------------------------------------------------------------------------
    def rx_buf_len(self):
        if self.has(VIRTIO_NET_F_MRG_RXBUF):
            return MERGEABLE_BUF_LEN
        return VIRTIO_NET_HDR_V1_SIZE + max(GOOD_PACKET_LEN, self.mtu + 18)

    async def open(self, buffers=64):
        """virtnet_open: fill each active receive queue and kick it."""
        if self.fast is not None:
            for qp in range(self.curr_queue_pairs):
                vq = self.vqs[2 * qp]
                posted = self.rx_posted.get(vq.index, 0)
                self._guest().fill_rx(self.sim.platform, self.fast, qp, max(0, min(buffers, vq.size) - posted))
                self.rx_posted[vq.index] = max(posted, min(buffers, vq.size))
            self.log("open", queue_pairs=self.curr_queue_pairs)
            return
        for qp in range(self.curr_queue_pairs):
            vq = self.vqs[2 * qp]
            posted = self.rx_posted.get(vq.index, 0)
            for _ in range(min(buffers, vq.size) - posted):
                buf = self.sim.host.alloc(self.rx_buf_len(), 64)
                vq.add([], [(buf, self.rx_buf_len())], token=buf)
            self.rx_posted[vq.index] = max(posted, min(buffers, vq.size))
            await vq.kick()
        self.log("open", queue_pairs=self.curr_queue_pairs)

    async def send(self, frame, qp=0, hdr=None):
        """start_xmit on queue pair `qp`: a virtio_net_hdr_v1 (zeroed, or the 12 bytes `hdr`: a
        checksum or segmentation request) and the frame, chained."""
        if hdr is not None and len(hdr) != VIRTIO_NET_HDR_V1_SIZE:
            raise ValueError(f"hdr is {len(hdr)} bytes, not the {VIRTIO_NET_HDR_V1_SIZE} of a virtio_net_hdr_v1")
        if self.fast is not None:
            if hdr is not None:
                raise ValueError("hdr: the C++ datapath sends zeroed headers only")
            return await self.send_many([frame], qp)
        self.reclaim_tx(qp)
        vq = self.vqs[2 * qp + 1]
        h = self.sim.host
        buf = h.alloc(VIRTIO_NET_HDR_V1_SIZE + len(frame), 64)
        if hdr is not None:
            h.write(buf, bytes(hdr))
        h.write(buf + VIRTIO_NET_HDR_V1_SIZE, bytes(frame))
        vq.add([(buf, VIRTIO_NET_HDR_V1_SIZE), (buf + VIRTIO_NET_HDR_V1_SIZE, len(frame))], [], token=buf)
        await vq.kick()

    def reclaim_tx(self, qp):
        """free_old_xmit: buffers the device has used go back."""
        if self.fast is not None:
            return  # the C++ datapath reclaims as it goes
        vq = self.vqs[2 * qp + 1]
        while (got := vq.get()) is not None:
            self.sim.host.free(got[0])

    def poll_rx(self):
        """virtnet_poll on every active receive queue: the frames received (qp, bytes), each
        buffer given back to the queue (not kicked: the caller kicks if it wants)."""
        if self.fast is not None:
            g = self._guest()
            return list(g.take(self.sim.platform, self.fast, g.received_waiting(self.sim.platform, self.fast)))
        out = []
        mrg = self.has(VIRTIO_NET_F_MRG_RXBUF)
        for qp in range(self.curr_queue_pairs):
            vq = self.vqs[2 * qp]
            while (got := vq.get()) is not None:
                buf, length = got
                data = self.sim.host.read(buf, length)
                num = struct.unpack_from("<H", data, VIRTIO_NET_HDR_NUM_BUFFERS)[0] if mrg else 1
                frame = data[VIRTIO_NET_HDR_V1_SIZE:]
                self.refill(vq, buf)
                for _ in range(num - 1):
                    nbuf, nlen = vq.get()
                    frame += self.sim.host.read(nbuf, nlen)
                    self.refill(vq, nbuf)
                out.append((qp, frame))
        return out

    def refill(self, vq, buf):
        vq.add([], [(buf, self.rx_buf_len())], token=buf)

    async def recv(self, count=1, timeout_ps=ms(100)):
        """Frames received on any active queue, at least `count` (as (qp, bytes)), waiting for
        the device's interrupts; SimTimeout if they do not come in time."""
        if self.fast is not None:
            return await self.recv_many(count, timeout_ps)
        got = []
        deadline = self.sim.now + timeout_ps
        while True:
            mark = self.h.msi_mark()
            got += self.poll_rx()
            if len(got) >= count:
                break
            left = deadline - self.sim.now
            if left <= 0:
                raise SimTimeout(f"{self.bdf}: {len(got)} of {count} frames within {timeout_ps} ps")
            try:
                await self.h.wait_msi(requester=self.dev.rid, since=mark, timeout_ps=left)
            except SimTimeout:  # a timeout ends the wait; the loop reports it
                pass
        for qp in range(self.curr_queue_pairs):
            await self.vqs[2 * qp].kick()
        return got

    # ---- the datapath in C++ (models/guest/virtio_net_guest.h) ---------------------------
    def _queue_state(self, vq):
        """A data queue as the C++ datapath takes it over: layout, notify address, MSI-X data and
        the driver's shadow state (free descriptors in order, indices, chains the device holds)."""
        for token, _ in vq.tokens.values():
            if not isinstance(token, int):
                raise VirtioNetError(f"{self.bdf}: queue {vq.index} holds a chain ({token!r}) the C++ datapath cannot own")
        return {"index": vq.index, "size": vq.size, "desc": vq.desc, "avail": vq.avail, "used": vq.used,
                "notify": vq.notify_addr, "msi": self.vectors[1 + vq.index], "free": list(vq.free),
                "avail_idx": vq.avail_idx, "last_used": vq.last_used,
                "posted": [(head, ids, token) for head, (token, ids) in sorted(vq.tokens.items())]}

    def _active_queue_pairs(self):
        return self.curr_queue_pairs

    def _check_active(self, qp):
        if not 0 <= qp < self.curr_queue_pairs:
            raise ValueError(f"{self.bdf}: queue pair {qp} is not in use ({self.curr_queue_pairs} of "
                             f"{self.max_queue_pairs} are: set_queue_pairs)")

    def fast_path(self):
        """Hands every data queue pair to the C++ datapath (once); returns its id."""
        if self.fast is None:
            pairs = [(self._queue_state(self.vqs[2 * qp]), self._queue_state(self.vqs[2 * qp + 1]))
                     for qp in range(len(self.vqs) // 2)]
            self.fast = self._guest().attach_net(self.sim.platform, f"guest.{self.bdf}", self.dev.rid,
                                                 self.has(VIRTIO_NET_F_MRG_RXBUF), self.rx_buf_len(), pairs)
            for vq in self.vqs:  # the C++ side owns them now
                vq.tokens.clear()
                vq.free = []
        return self.fast

    # ---- configuration changes (vp_config_changed -> virtnet_config_changed_work) ----------
    def handle_config_interrupts(self):
        """Runs virtnet_config_changed_work on every message of the config vector (vector 0),
        as the IRQ handler vp_config_changed schedules it."""
        async def loop():
            seen = self.h.msi_mark()
            while True:
                m = await self.h.wait_msi(data=self.vectors[0], requester=self.dev.rid, since=seen)
                seen = self.h.msis.index(m, seen) + 1
                await self.config_changed()

        self.sim.spawn(loop(), f"virtio_net config {self.bdf}")

    async def config_changed(self):
        """virtnet_config_changed_work: the link status re-read (with the config_generation
        retry); only a change of LINK_UP matters, and only on its way up are the speed and
        duplex re-read (virtnet_update_settings) before the carrier comes on."""
        if not self.has(VIRTIO_NET_F_STATUS):
            return
        v = await self.cread(VIRTIO_NET_CFG_STATUS, 2) & VIRTIO_NET_S_LINK_UP
        if bool(v) == getattr(self, "link_up", False):
            return
        self.link_up = bool(v)
        if self.link_up:
            await self.update_settings()
            self.log("carrier_on", speed=getattr(self, "speed", None), duplex=getattr(self, "duplex", None))
        else:
            self.log("carrier_off")

    async def update_settings(self):
        """virtnet_update_settings: speed and duplex, each kept only if ethtool accepts it."""
        if not self.has(VIRTIO_NET_F_SPEED_DUPLEX):
            return
        speed = await self.cread(VIRTIO_NET_CFG_SPEED, 4)
        if speed != 0xFFFFFFFF and speed <= 0x7FFFFFFF:  # ethtool_validate_speed: INT_MAX or UNKNOWN
            self.speed = speed
        duplex = await self.cread(VIRTIO_NET_CFG_DUPLEX, 1)
        if duplex in (0, 1, 0xFF):  # DUPLEX_HALF, DUPLEX_FULL, DUPLEX_UNKNOWN
            self.duplex = duplex

    # ---- remove --------------------------------------------------------------------------
    async def remove(self):
        """virtio_dev_remove: reset, then ACKNOWLEDGE again."""
        await self.reset()
        await self.add_status(VIRTIO_CONFIG_S_ACKNOWLEDGE)


async def virtio_pci_probe(sim, pci, dev, cpus=None):
    """The PCI driver's probe: virtio_pci_probe + virtnet_probe; returns the VirtioNet."""
    return await VirtioNet(sim, pci, dev).probe(cpus)


VIRTIO_NET_DRIVER = pci_register_driver(PciDriver("virtio_net", ((VIRTIO_VENDOR_ID, VIRTIO_NET_DEVICE_ID),),
                                                  virtio_pci_probe))


def virtio_net_devices(pci):
    """The virtio-net functions of an enumerated hierarchy, in BDF order."""
    return pci_driver.endpoints(pci, VIRTIO_NET_DRIVER)


async def probe_all(sim, pci):
    """Probes every virtio-net endpoint one after another in BDF order; returns the drivers."""
    return await pci_driver.probe_all(sim, pci, VIRTIO_NET_DRIVER)


async def virtio_status_steps(pci, dev, driver_ok=True):
    """The common-config part of virtio_pci_modern's probe, by hand, on a function whose common
    configuration is at the start of its BAR 0 (a VF of the emulated device): reset,
    ACKNOWLEDGE, DRIVER, driver features (VIRTIO_NET_F_MQ, VIRTIO_NET_F_CTRL_VQ,
    VIRTIO_F_VERSION_1, written low half then high half), FEATURES_OK, then DRIVER_OK. Not the
    driver (VirtioNet binds a VF like a PF); tests use it to take a VF through the application's
    two stages with no queue set up, or to stop between them. Returns the address of the
    function's device_status."""
    h = pci.sim.host
    base = dev.bars[0].base
    status = base + VIRTIO_PCI_COMMON_STATUS
    steps = VIRTIO_CONFIG_S_ACKNOWLEDGE
    await h.mem_write8(status, 0)
    await h.mem_write8(status, steps)
    steps |= VIRTIO_CONFIG_S_DRIVER
    await h.mem_write8(status, steps)
    features = 1 << VIRTIO_NET_F_MQ | 1 << VIRTIO_NET_F_CTRL_VQ | 1 << VIRTIO_F_VERSION_1
    for half in (0, 1):
        await h.mem_write32(base + VIRTIO_PCI_COMMON_GFSELECT, half)
        await h.mem_write32(base + VIRTIO_PCI_COMMON_GF, (features >> (32 * half)) & 0xFFFFFFFF)
    steps |= VIRTIO_CONFIG_S_FEATURES_OK
    await h.mem_write8(status, steps)
    if driver_ok:
        await h.mem_write8(status, steps | VIRTIO_CONFIG_S_DRIVER_OK)
    return status


def ethernet_frame(dst, src, ethertype, payload):
    return bytes(dst) + bytes(src) + struct.pack(">H", ethertype) + bytes(payload)


__all__ = ["VirtioNet", "VirtioNetError", "TrafficResult", "VIRTIO_NET_DRIVER", "virtio_pci_probe", "probe_all",
           "virtio_net_devices", "virtio_status_steps", "ethernet_frame", "bdf_str"]
