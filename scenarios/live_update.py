"""A live update of the DOCA vnet_pci_dev application under traffic (the DOCA guide §7.9): four
endpoints in static mode (-n 4 -H 0 -q 4 --lu-mode active) brought up by Linux's virtio_net,
every queue passing frames through a loopback plug, a standby process started beside the
active (--lu-mode standby), then SIGUSR1 in the middle of the traffic.

The active saves its devices to the SHM and hands the standby its cmd_fd; the standby replays
them (engines prepared, not enabled) and says DEV_READY; the active stops each device and
sends DEV_GO, the standby enables each engine as its DEV_GO arrives, DEV_ACK, then the TLP
channel moves to the standby, which becomes the next active.

The host never sees a reset: the device status reads what the driver wrote (0x0F) before,
during and after; a status read issued during the handover waits in the TLP channel and
completes after it (the host's Completion Timeout is set long enough to wait it out: PCIe
r5.0 §7.5.3.16, Device Control 2). Frames the host sends while a device is stopped wait in its
transmit ring and leave when the standby enables it; frames that come back to a stopped
device are dropped and counted by the model (rx_queue_not_ready, rx_queue_stopped). Afterwards
every frame sent before, during and after is accounted for: received, or counted dropped."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import ethernet_frame, probe_all
from dpusim.errors import SimTimeout
from dpusim.units import ms, s
from dpusim.vnet import vnet

NUM_EP = 4
OPTIONS = {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": 4, "queue-size": 256}
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {**OPTIONS, "lu-mode": "active"}},
    "wires": [{"a": f"ep{i}", "b": "loopback"} for i in range(NUM_EP)],
    "timing": {"cpl_timeout_ps": s(10)},
}
FRAME_GAP_PS = ms(2)  # one frame per interface every 2 ms, queue pairs in turn
# The frames the model drops during the handover (each a frame that came back to a device
# whose queues were stopped): the run's own count, asserted.
EXPECTED_DROPS = None


def frame(net, seq):
    payload = seq.to_bytes(4, "big") + bytes((seq + i) & 0xFF for i in range(60))
    return ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, payload)


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nets = await probe_all(sim, pci)
    for net in nets:
        await net.open()
    standby = await sim.start_standby({**OPTIONS, "lu-mode": "standby"})
    await standby.waiting()

    phase = ["before"]
    sent = {}      # (ep, seq) -> phase when sent
    received = set()
    running = [True, True]  # senders, receivers

    async def sender(k, net):
        seq = 0
        while running[0]:
            sent[(k, seq)] = phase[0]
            await net.send(frame(net, seq), qp=seq % net.curr_queue_pairs)
            seq += 1
            await sim.sleep(FRAME_GAP_PS)

    async def receiver(k, net):
        while running[1]:
            try:
                got = await net.recv(1, timeout_ps=ms(20))
            except SimTimeout:
                continue
            for _, data in got:
                received.add((k, int.from_bytes(data[14:18], "big")))

    tasks = [sim.spawn(sender(k, n)) for k, n in enumerate(nets)] + [sim.spawn(receiver(k, n)) for k, n in enumerate(nets)]
    await sim.sleep(ms(20))
    before = [await n.get_status() for n in nets]

    start = sim.now
    assert (await sim.signal("SIGUSR1")) == "handover"
    phase[0] = "during"
    # A status read in the middle of the handover: it waits for the TLP channel.
    probe = sim.spawn(nets[NUM_EP - 1].get_status())
    await standby.restored()
    end = sim.now
    phase[0] = "after"
    during = await probe
    await sim.sleep(ms(30))
    running[0] = False
    await sim.sleep(ms(30))  # the last frames come back
    running[1] = False
    await sim.gather(*tasks)
    after = [await n.get_status() for n in nets]

    assert before == after == [0x0F] * NUM_EP and during == 0x0F, (before, during, after)
    ledger = vnet(sim).frames()
    dropped = sum(ledger["dropped"].values())
    lost = {key: p for key, p in sent.items() if key not in received}
    assert ledger["in_flight"] == 0, ledger
    assert len(lost) == dropped, f"{len(lost)} frames lost, {dropped} counted dropped: {ledger}"
    assert all(p != "after" for p in lost.values()), "traffic did not resume"
    if EXPECTED_DROPS is not None:
        assert dropped == EXPECTED_DROPS, f"{dropped} frames dropped, expected {EXPECTED_DROPS}"
    procs = vnet(sim).processes()
    assert [(p["pid"], p["mode"], p["serving"]) for p in procs] == [(1, "none", False), (2, "active", True)], procs

    per_phase = {p: [sum(1 for key, q in sent.items() if q == p), sum(1 for key, q in lost.items() if q == p)]
                 for p in ("before", "during", "after")}
    print(f"handover: SIGUSR1 at {start / 1e9:.3f} ms, standby active at {end / 1e9:.3f} ms "
          f"({(end - start) / 1e9:.3f} ms)")
    print(f"status read during the handover: 0x{during:02x}")
    for p, (n, lost_n) in per_phase.items():
        print(f"frames sent {p:6}: {n:5}  dropped {lost_n:4}")
    print(f"drops by reason: {ledger['dropped']}")
    return {"handover_ps": end - start, "sent": per_phase, "dropped": ledger["dropped"],
            "status": [before, during, after]}
