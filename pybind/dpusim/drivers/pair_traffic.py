"""Numbered frames between virtio-net interfaces wired in pairs (ep0-ep1, ep2-ep3, ...; a lone
interface to a loopback plug), for scenarios that disturb a running datapath (a live update):
every interface sends one frame every `gap_ps` to its peer, the queue pairs in turn, and
receives what its peer sent. Each frame
carries its sender and sequence number and is checked byte for byte on arrival; each is
labelled with the phase the scenario was in when it left, so that what was lost can be told
per phase and compared with what the model counted dropped (dpusim.vnet.Vnet.frames); each
arrival's latency (sent to received by the driver) is kept."""
from dpusim.drivers.virtio_net import ethernet_frame
from dpusim.errors import SimTimeout
from dpusim.units import ms

ETHERTYPE = 0x88B5  # IEEE 802 local experimental EtherType


def peer(k, n):
    return k ^ 1 if n > 1 else k


def pair_wires(num_ep):
    """The platform document's wires: endpoint 2j to endpoint 2j+1 (one endpoint: a loopback)."""
    if num_ep == 1:
        return [{"a": "ep0", "b": "loopback"}]
    if num_ep % 2:
        raise ValueError(f"{num_ep} endpoints: pairs need an even number (or one)")
    return [{"a": f"ep{k}", "b": f"ep{k + 1}"} for k in range(0, num_ep, 2)]


def frame(nets, k, seq):
    payload = bytes([k]) + seq.to_bytes(4, "big") + bytes((k + seq + i) & 0xFF for i in range(59))
    return ethernet_frame(nets[peer(k, len(nets))].mac, nets[k].mac, ETHERTYPE, payload)


async def steady_interfaces(sim):
    """Linux's enumeration and virtio_net probe of every endpoint, each opened, then until every
    background MQ start has finished (wait_queues_running): the interfaces."""
    from dpusim.drivers.pci import pci_host_probe
    from dpusim.drivers.virtio_net import probe_all

    nets = await probe_all(sim, await pci_host_probe(sim))
    for net in nets:
        await net.open()
    await wait_queues_running(sim, nets)
    return nets


async def wait_queues_running(sim, nets, poll_ps=ms(10)):
    """Until every interface's last queue pair is enabled on the device: the background MQ
    start has finished everywhere (the application's steady state)."""
    from dpusim.vnet import vnet

    view = vnet(sim)
    await sim.poll(lambda: all(view.vq_state(i, 2 * n.curr_queue_pairs - 1) == "ENABLED" for i, n in enumerate(nets)),
                   bool, poll_ps, None, "every interface's last queue pair enabled")


class PairTraffic:
    def __init__(self, sim, nets, gap_ps):
        if len(nets) % 2 and len(nets) != 1:
            raise ValueError(f"{len(nets)} interfaces: pair traffic needs an even number (or one)")
        self.sim, self.nets, self.gap_ps = sim, nets, gap_ps
        self.phase = "before"
        self.sent = {}  # (sender, seq) -> phase when it left
        self.received = {}  # (sender, seq) -> phase when it arrived
        self.sent_at, self.latency = {}, {}  # (sender, seq) -> ps
        self.rx_queues = {}  # phase -> per interface, the receive queues that delivered
        self._running = [False, False]
        self._tasks = []

    def start(self):
        self._running = [True, True]
        self._tasks = [self.sim.spawn(self._send(k)) for k in range(len(self.nets))] + \
                      [self.sim.spawn(self._recv(k)) for k in range(len(self.nets))]

    async def stop(self, drain_ps=ms(30)):
        """Senders stop; receivers collect for `drain_ps` more, then stop."""
        self._running[0] = False
        await self.sim.sleep(drain_ps)
        self._running[1] = False
        await self.sim.gather(*self._tasks)

    async def _send(self, k):
        net, seq = self.nets[k], 0
        while self._running[0]:
            self.sent[(k, seq)] = self.phase
            self.sent_at[(k, seq)] = self.sim.now
            await net.send(frame(self.nets, k, seq), qp=seq % net.curr_queue_pairs)
            seq += 1
            await self.sim.sleep(self.gap_ps)

    async def _recv(self, k):
        while self._running[1]:
            try:
                got = await self.nets[k].recv(1, timeout_ps=ms(20))
            except SimTimeout:
                continue
            for qp, data in got:
                sender, seq = data[14], int.from_bytes(data[15:19], "big")
                if sender != peer(k, len(self.nets)) or data != frame(self.nets, sender, seq):
                    raise AssertionError(f"interface {k} received a frame it was not sent: {data.hex()}")
                self.received[(sender, seq)] = self.phase
                self.latency[(sender, seq)] = self.sim.now - self.sent_at[(sender, seq)]
                self.rx_queues.setdefault(self.phase, [set() for _ in self.nets])[k].add(qp)

    def lost(self):
        return {key: p for key, p in self.sent.items() if key not in self.received}

    def per_phase(self, phases):
        """{phase: [frames sent, of which lost]}."""
        lost = self.lost()
        return {p: [sum(1 for q in self.sent.values() if q == p), sum(1 for q in lost.values() if q == p)]
                for p in phases}

    def check(self, ledger, resumed_phase):
        """Every frame sent is accounted for: received intact, or one of the frames the model
        counted dropped (no frame in flight at the end); in `resumed_phase` every transmit
        queue of every interface carried frames and none was lost, and every interface
        received again."""
        dropped = sum(ledger["dropped"].values())
        lost = self.lost()
        assert ledger["in_flight"] == 0, ledger
        assert len(lost) == dropped, f"{len(lost)} frames lost, {dropped} counted dropped: {ledger}"
        assert len(self.received) == len(self.sent) - dropped
        assert all(p != resumed_phase for p in lost.values()), f"traffic did not resume: {sorted(lost)[:8]}"
        for k, n in enumerate(self.nets):
            queues = {seq % n.curr_queue_pairs for (j, seq), p in self.sent.items() if j == k and p == resumed_phase}
            assert queues == set(range(n.curr_queue_pairs)), (k, queues)
        assert all(self.rx_queues.get(resumed_phase, [set()])), self.rx_queues.get(resumed_phase)
