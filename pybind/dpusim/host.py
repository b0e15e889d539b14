"""The host as scenarios drive it: config, MMIO and raw TLPs through the root complex, host
memory (allocated by the scenario, reached by devices through DMA) and the MSI receiver.

The API is a regular grid a driver writer can guess: config_read/config_write (1, 2 or 4
bytes), mem_read/mem_write (any length) and their 8/16/32/64-bit forms, each awaited. Reads
return a Cpl carrying the completion status; a failed read carries all-ones data, as a real
host sees it (PCI_POSSIBLE_ERROR).
"""
from dataclasses import dataclass

from dpusim.bdf import bdf, bdf_str
from dpusim.futures import Future

OUTCOMES = {0: "SC", 1: "UR", 2: "CRS", 4: "CA", 8: "TIMEOUT"}


@dataclass(frozen=True)
class Cpl:
    """How a non-posted request ended: `status` is "SC", "UR", "CRS", "CA" or "TIMEOUT"."""

    status: str
    data: bytes
    time_ps: int

    @property
    def ok(self):
        return self.status == "SC"

    @property
    def value(self):
        """The data as a little-endian integer (all-ones when the request failed)."""
        return int.from_bytes(self.data, "little")


@dataclass(frozen=True)
class Msi:
    """An MSI/MSI-X message the host received: a DW write into the MSI window."""

    time_ps: int
    requester: str
    address: int
    data: int


def _cpl(note):
    return Cpl(OUTCOMES.get(note.status, str(note.status)), bytes(note.data), note.time_ps)


class Host:
    MSI_WINDOW = 0xFEE00000

    def __init__(self, sim):
        self._sim = sim
        self._p = sim.platform
        self.msis = []
        self._msi_waiters = []
        self._write_watches = {}  # platform watch token -> Future
        self._last_issue_ps = 0   # under exploration: when the latest access entered the fabric

    def _request(self, issue, label, convert):
        """A future of the completion of the platform request that issue() makes: now, or
        under exploration (knob host.issue_ps) after the CPU's delay, never before an access
        issued earlier, so one CPU's accesses keep their order."""
        sim = self._sim
        delay = sim.explore.issue_delay()
        if not delay:
            return sim.expect_completion(issue(), label, convert)
        at = max(sim.now + delay, self._last_issue_ps + 1)
        self._last_issue_ps = at
        out = Future(sim, label)

        def done(f):
            if f.exception() is not None:
                out.set_exception(f.exception())
            else:
                out.set_result(f.result())

        def issued(_):
            sim.expect_completion(issue(), label, convert).add_done_callback(done)

        sim.sleep(at - sim.now, ordered=True).add_done_callback(issued)
        return out

    # ---- config space (ECAM-style: Type 0 to bus 0, Type 1 beyond) -----------------------
    def config_read(self, target, offset, size=4):
        """Future of a Cpl: `size` bytes of config space at `offset` of function `target`."""
        rid = bdf(target)
        return self._request(lambda: self._p.config_read(rid, offset, size),
                             f"config_read {bdf_str(rid)}+{offset:#x}", _cpl)

    def config_write(self, target, offset, value, size=4):
        rid = bdf(target)
        return self._request(lambda: self._p.config_write(rid, offset, size, value),
                             f"config_write {bdf_str(rid)}+{offset:#x}", _cpl)

    async def config_read8(self, target, offset):
        return (await self.config_read(target, offset, 1)).value

    async def config_read16(self, target, offset):
        return (await self.config_read(target, offset, 2)).value

    async def config_read32(self, target, offset):
        return (await self.config_read(target, offset, 4)).value

    async def config_write8(self, target, offset, value):
        return await self.config_write(target, offset, value, 1)

    async def config_write16(self, target, offset, value):
        return await self.config_write(target, offset, value, 2)

    async def config_write32(self, target, offset, value):
        return await self.config_write(target, offset, value, 4)

    # ---- memory space --------------------------------------------------------------------
    def mem_read(self, address, size):
        """Future of a Cpl with `size` bytes read at `address` (split at the host's
        Max_Read_Request_Size)."""
        return self._request(lambda: self._p.mem_read(address, size), f"mem_read {address:#x}+{size}", _cpl)

    def mem_write(self, address, data):
        """Posted write; the future is done when the last TLP has left the root complex."""
        data = bytes(data)
        return self._request(lambda: self._p.mem_write(address, data), f"mem_write {address:#x}", lambda n: None)

    async def mem_read8(self, address):
        return (await self.mem_read(address, 1)).value

    async def mem_read16(self, address):
        return (await self.mem_read(address, 2)).value

    async def mem_read32(self, address):
        return (await self.mem_read(address, 4)).value

    async def mem_read64(self, address):
        return (await self.mem_read(address, 8)).value

    async def mem_write8(self, address, value):
        await self.mem_write(address, value.to_bytes(1, "little"))

    async def mem_write16(self, address, value):
        await self.mem_write(address, value.to_bytes(2, "little"))

    async def mem_write32(self, address, value):
        await self.mem_write(address, value.to_bytes(4, "little"))

    async def mem_write64(self, address, value):
        await self.mem_write(address, value.to_bytes(8, "little"))

    def send_tlp(self, type, data=b"", **fields):
        """Sends any CfgRd/CfgWr/MRd/MWr (and more) as given: fields requester, tag, target
        (a BDF), reg, address, length (DW), first_be, last_be, tc, attr. Non-posted TLPs
        complete with a Cpl; posted ones with Cpl("SC") once sent."""
        header = {"type": type}
        for key, value in fields.items():
            header[key] = bdf(value) if key in ("requester", "target") else value
        data = bytes(data)
        return self._request(lambda: self._p.raw(header, data), f"raw {type}", _cpl)

    # ---- host memory (what the CPU sees directly, in zero simulated time) ----------------
    def alloc(self, size, align=4096):
        """Allocates zeroed host memory that devices may reach by DMA; returns its address."""
        return self._p.host_alloc(size, align)

    def free(self, address):
        if not self._p.host_free(address):
            raise ValueError(f"no host memory allocation starts at {address:#x}")

    def read(self, address, size):
        return self._p.host_read(address, size)

    def write(self, address, data):
        self._p.host_write(address, bytes(data))

    def wait_write(self, address, size):
        """Future done (with the time) when a device's DMA write next touches [address,
        address + size): what a CPU spinning on that location sees, the moment it lands."""
        fut = Future(self._sim, f"host write {address:#x}+{size}")
        self._write_watches[self._p.host_watch(address, size)] = fut
        return fut

    def on_memory_write(self, note):
        """The run loop's delivery of a watched DMA write (a memory_write notification)."""
        fut = self._write_watches.pop(note.token, None)
        if fut is not None:
            fut.set_result(note.time_ps)

    # ---- MSI receiver --------------------------------------------------------------------
    def msi_mark(self):
        """A position in the MSI history: wait_msi(since=mark) sees only MSIs after it."""
        return len(self.msis)

    def wait_msi(self, data=None, requester=None, address=None, since=None, timeout_ps=None):
        """Future of the first MSI at index >= `since` (default: from now on) whose fields
        match; with `timeout_ps`, SimTimeout if none arrives in time."""
        start = len(self.msis) if since is None else since
        req = None if requester is None else bdf_str(bdf(requester))

        def matches(m):
            return ((data is None or m.data == data) and (req is None or m.requester == req)
                    and (address is None or m.address == address))

        fut = Future(self._sim, f"msi data={data} requester={req}")
        for m in self.msis[start:]:
            if matches(m):
                fut.set_result(m)
                break
        else:
            self._msi_waiters.append((matches, fut))
        return fut if timeout_ps is None else self._sim.timeout(fut, timeout_ps)

    def on_msi(self, note):
        """The run loop's delivery of an MSI the host received (an msi notification)."""
        m = Msi(note.time_ps, bdf_str(note.token), note.address, note.status & 0xFFFFFFFF)
        self.msis.append(m)
        still = []
        for matches, fut in self._msi_waiters:
            if not fut.done and matches(m):
                fut.set_result(m)
            elif not fut.done:
                still.append((matches, fut))
        self._msi_waiters = still
