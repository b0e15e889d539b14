"""A live update of the DOCA vnet_pci_dev application under traffic (the DOCA guide §7.9): four
endpoints in static mode (-n 4 -H 0 -q 4 --lu-mode active) brought up by Linux's virtio_net,
every queue passing frames to the endpoint wired to it (ep0-ep1, ep2-ep3), a standby process
started beside the active (--lu-mode standby), then SIGUSR1 in the middle of the traffic.

The active saves its devices to the SHM and hands the standby its cmd_fd; the standby replays
them (engines prepared, not enabled) and says DEV_READY; the active stops each device and
sends DEV_GO, the standby enables each engine as its DEV_GO arrives, DEV_ACK, then the TLP
channel moves to the standby, which becomes the next active.

The host never sees a reset: the device status reads what the driver wrote (0x0F) before,
during and after; a status read issued during the handover waits in the TLP channel and
completes after it (the host's Completion Timeout is set long enough to wait it out: PCIe
r5.0 §7.5.3.16, Device Control 2). Frames the host sends while a device is stopped wait in its
transmit ring and leave when the standby enables it; frames that arrive at a stopped device
from its still-running peer are dropped and counted by the model (rx_queue_not_ready).
Afterwards every frame sent before, during and after is accounted for: received intact, or
counted dropped, with the count asserted; every receive queue delivers again after the
handover."""
from dpusim.drivers.pair_traffic import PairTraffic, pair_wires, steady_interfaces
from dpusim.units import ms, s
from dpusim.vnet import vnet

NUM_EP = 4
OPTIONS = {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": 4, "queue-size": 256}
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {**OPTIONS, "lu-mode": "active"}},
    # Endpoints wired in pairs: a frame leaves one endpoint and arrives at the other, so a
    # device stopped for its handover can meet frames from one still running.
    "wires": pair_wires(NUM_EP),
    "timing": {"cpl_timeout_ps": s(10)},
}
FRAME_GAP_PS = ms(2)  # one frame per interface every 2 ms, queue pairs in turn
# The frames the model drops during the handover: each one arrived from its running peer at an
# endpoint whose engine was stopped between the active's stop and the standby's enable
# (VnetEndpoint: rx_queue_not_ready). This run's count, asserted.
EXPECTED_DROPS = {"rx_queue_not_ready": 138}


async def scenario(sim):
    nets = await steady_interfaces(sim)
    standby = await sim.start_standby({**OPTIONS, "lu-mode": "standby"})
    await standby.waiting()

    traffic = PairTraffic(sim, nets, FRAME_GAP_PS)
    traffic.start()
    await sim.sleep(ms(20))
    before = [await n.get_status() for n in nets]

    start = sim.now
    assert (await sim.signal("SIGUSR1")) == "handover"
    traffic.phase = "during"

    # A status read in the middle of the handover, once the active has left its progress loop:
    # it waits in PE1's queue and completes after the channel moved.
    async def status_during():
        await sim.sleep(ms(1))
        t0 = sim.now
        value = await nets[NUM_EP - 1].get_status()
        return value, sim.now - t0

    probe = sim.spawn(status_during())
    await standby.restored()
    end = sim.now
    traffic.phase = "after"
    during, read_ps = await probe
    await sim.sleep(ms(30))
    await traffic.stop()
    after = [await n.get_status() for n in nets]

    assert before == after == [0x0F] * NUM_EP and during == 0x0F, (before, during, after)
    ledger = vnet(sim).frames()
    traffic.check(ledger, "after")
    assert ledger["dropped"] == EXPECTED_DROPS, f"dropped {ledger['dropped']}, expected {EXPECTED_DROPS}"
    procs = vnet(sim).processes()
    assert [(p["pid"], p["mode"], p["serving"]) for p in procs] == [(1, "none", False), (2, "active", True)], procs

    per_phase = traffic.per_phase(("before", "during", "after"))
    print(f"handover: SIGUSR1 at {start / 1e9:.3f} ms, standby active at {end / 1e9:.3f} ms "
          f"({(end - start) / 1e9:.3f} ms)")
    print(f"status read during the handover: 0x{during:02x} after {read_ps / 1e9:.3f} ms")
    for p, (n, lost_n) in per_phase.items():
        print(f"frames sent {p:6}: {n:5}  dropped {lost_n:4}")
    print(f"drops by reason: {ledger['dropped']}")
    return {"handover_ps": end - start, "status_read_ps": read_ps, "sent": per_phase, "dropped": ledger["dropped"],
            "status": [before, during, after]}
