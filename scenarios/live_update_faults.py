"""Live-update failures that leave the host's devices running (vnet_pci_dev_lu.c; the DOCA
guide §7.9): two endpoints in static mode (-n 2 -H 0 -q 2, --lu-mode active) passing frames
to each other on every queue.

1. A standby that is never triggered gives up after 300 s ("Timed out waiting for LU trigger
   from active") and exits; the active never noticed.
2. A standby connects; a second one finds the lock held ("Another standby is already waiting;
   only one standby allowed") and exits.
3. SIGUSR1 under traffic, with the first standby's secondary channel failing to come up (fault
   point standby.ch_create): the device LU has completed (the standby drives the engines), the
   standby answers CH_EXPORT with NACK and the active reclaims its TLP channel ("Channel LU:
   standby reports failure, rolling back", "Channel LU handover failed: DOCA_ERROR_ABORTED
   (device LU succeeded)"). Config and MMIO keep being served by the old active, the datapath
   by the standby's engines; every frame is accounted for and the status reads 0x0F."""
from dpusim.drivers.pair_traffic import PairTraffic, pair_wires, steady_interfaces
from dpusim.units import ms, s
from dpusim.vnet import vnet

NUM_EP = 2
OPTIONS = {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": 2, "queue-size": 256}
STANDBY = {**OPTIONS, "lu-mode": "standby"}
PLATFORM = {
    "host": {"cpus": 2},
    "topology": {"family": "vnet", "options": {**OPTIONS, "lu-mode": "active"}},
    "wires": pair_wires(NUM_EP),
    "timing": {"cpl_timeout_ps": s(10)},
}
FRAME_GAP_PS = ms(2)
EXPECTED_DROPS = {"rx_queue_not_ready": 51}


async def scenario(sim):
    nets = await steady_interfaces(sim)
    view = vnet(sim)

    # 1. Never triggered: the standby's wait for the cmd_fd ends after 300 s.
    idle = await sim.start_standby(STANDBY)
    waiting = (await idle.waiting())["time_ps"]
    gone = await idle.exited()
    assert gone["reason"] == "LU restore failed" and gone["time_ps"] - waiting == s(300), gone
    assert [await n.get_status() for n in nets] == [0x0F] * NUM_EP

    # 2. One standby at a time.
    standby = await sim.start_standby(STANDBY)
    await standby.waiting()
    second = await sim.start_standby(STANDBY)
    assert (await second.exited())["reason"] == f"lock held by pid {standby.pid}"

    # 3. The channel LU fails before the active stopped its channel: rolled back.
    view.lu_fault("standby.ch_create")
    traffic = PairTraffic(sim, nets, FRAME_GAP_PS)
    traffic.start()
    await sim.sleep(ms(20))
    traffic.phase = "during"
    assert (await sim.signal("SIGUSR1")) == "handover"
    reclaimed = sim.wait_event("lu_channel", op="reclaimed")
    await standby.restored()
    await reclaimed
    traffic.phase = "after"
    assert [await n.get_status() for n in nets] == [0x0F] * NUM_EP
    await sim.sleep(ms(40))
    await traffic.stop()
    procs = {p["pid"]: p for p in view.processes()}
    assert procs[1]["serving"] and procs[1]["alive"] and procs[1]["state"] == "MIGRATED", procs
    assert not procs[standby.pid]["serving"] and procs[standby.pid]["alive"], procs

    ledger = view.frames()
    traffic.check(ledger, "after")
    assert ledger["dropped"] == EXPECTED_DROPS, f"dropped {ledger['dropped']}, expected {EXPECTED_DROPS}"
    per_phase = traffic.per_phase(("before", "during", "after"))
    for p, (n, lost) in per_phase.items():
        print(f"frames sent {p:6}: {n:5}  dropped {lost:4}")
    return {"sent": per_phase, "dropped": ledger["dropped"]}
