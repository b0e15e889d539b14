"""Three live updates in a row (chainable LU, the DOCA guide §7.9 step 12): two endpoints in
static mode (-n 2 -H 0 -q 2) passing frames to each other on every queue, the platform's
process started with --lu-mode active. A standby is started, SIGUSR1 hands everything to it;
once restored it is the active ("Transitioning from standby to active mode (chainable LU)")
and the next standby replaces it, three times: pid 1 -> 2 -> 3 -> 4.

Each handover is the whole protocol (the standby's two phases, the active's switchover, the
channel LU); each old active ends idle. Traffic runs throughout; afterwards every frame is
accounted for (received intact, or counted dropped by the model, the count asserted), the
device status always read 0x0F, and the last process serves the host."""
from dpusim.drivers.pair_traffic import PairTraffic, pair_wires, steady_interfaces
from dpusim.units import ms, s
from dpusim.vnet import vnet

NUM_EP = 2
HANDOVERS = 3
OPTIONS = {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": 2, "queue-size": 256}
PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"family": "vnet", "options": {**OPTIONS, "lu-mode": "active"}},
    "wires": pair_wires(NUM_EP),
    "timing": {"cpl_timeout_ps": s(10)},
}
FRAME_GAP_PS = ms(2)
# Frames that met a stopped peer during the three handovers (rx_queue_not_ready): this run's
# count, asserted.
EXPECTED_DROPS = {"rx_queue_not_ready": 153}


async def scenario(sim):
    nets = await steady_interfaces(sim)
    traffic = PairTraffic(sim, nets, FRAME_GAP_PS)
    traffic.start()
    await sim.sleep(ms(20))

    handovers = []
    for n in range(1, HANDOVERS + 1):
        standby = await sim.start_standby({**OPTIONS, "lu-mode": "standby"})
        assert standby.pid == n + 1
        await standby.waiting()
        start = sim.now
        traffic.phase = f"handover {n}"
        assert (await sim.signal("SIGUSR1")) == "handover"
        await standby.restored()
        traffic.phase = f"after {n}"
        handovers.append(sim.now - start)
        procs = vnet(sim).processes()
        assert [(p["pid"], p["mode"], p["serving"]) for p in procs] == \
            [(pid, "none", False) for pid in range(1, n + 1)] + [(n + 1, "active", True)], procs
        status = [await x.get_status() for x in nets]
        assert status == [0x0F] * NUM_EP, status
        await sim.sleep(ms(20))
    await traffic.stop()

    ledger = vnet(sim).frames()
    traffic.check(ledger, f"after {HANDOVERS}")
    assert ledger["dropped"] == EXPECTED_DROPS, f"dropped {ledger['dropped']}, expected {EXPECTED_DROPS}"
    phases = ["before"] + [p for n in range(1, HANDOVERS + 1) for p in (f"handover {n}", f"after {n}")]
    per_phase = traffic.per_phase(phases)
    for n, took in enumerate(handovers, 1):
        print(f"handover {n}: pid {n} -> pid {n + 1} in {took / 1e9:.3f} ms")
    for p, (sent, lost) in per_phase.items():
        print(f"frames sent {p:10}: {sent:5}  dropped {lost:4}")
    return {"handover_ps": handovers, "sent": per_phase, "dropped": ledger["dropped"]}
