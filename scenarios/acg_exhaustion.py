"""Hot-plug MSIs without ACG credits: one slot's retry succeeds when a credit comes, the other's
is abandoned after 5 s and its plug stays unseen until the host polls.

Firmware grants the application no credits at start and replaces none (`"initial": 0, "refill":
false`), and posts a single credit at 2 s. Two slots, a Linux pciehp host. Enabling the slots'
interrupts already costs a Command Completed MSI each, which fails (never retried). `plug 0` and
`plug 1` run one after the other on the worker; each slot-event MSI finds no credit and is
marked for retry. At 2 s the credit arrives; the main loop's next iteration runs the retry pass,
which sends DSP 0's MSI ("DSP[0] MSI retry succeeded"), and DSP 1's fails again. Linux handles
slot 0 (the same read of Slot Status also clears the Command Completed its boot-time enable left
behind), but the power-on's own Command Completed interrupt never comes: Linux waits out the 1 s
"Timeout on hotplug command" before the link poll, so the slot comes up a second late. DSP 1's
retry is abandoned when the application's whole-second clock has counted 5 s since its first
failure ("host will poll Slot Status"); Linux does not poll while the interrupt is enabled, so
the plug stays unseen until the scenario turns on the host's (non-Linux) Slot Status poll, which
finds the event bits and brings the slot up, each Command Completed seen by the next poll."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import STATE_NAMES, pciehp_probe_all
from dpusim.units import ms, s

CREDIT_AT = s(2)
POLL = ms(100)
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 2, "hotplug-mode": 1, "max-queue-pairs": 2},
                 "firmware": {"acg": {"capacity": 16, "initial": 0, "refill": False,
                                      "grants": [{"at_ps": CREDIT_AT, "count": 1}]}}},
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    slots = await pciehp_probe_all(sim, pci)
    bound0, bound1 = slots[0].wait_bound(), slots[1].wait_bound()
    succeeded = sim.wait_event("log", path="vnet.main", msg="DSP[0] MSI retry succeeded")
    abandoned = sim.wait_event("log", path="vnet.main",
                               msg="DSP[1] MSI retry abandoned after 5s - host will poll Slot Status")
    plugs = await sim.gather(sim.command("plug 0"), sim.command("plug 1"))
    assert all(p.ok for p in plugs), [p.lines for p in plugs]
    t_retry = (await sim.timeout(succeeded, s(3)))["time_ps"]
    net0 = await sim.timeout(bound0, s(3))
    t0 = sim.now
    t_abandon = (await sim.timeout(abandoned, s(6)))["time_ps"]
    await sim.sleep(s(1))
    unseen = STATE_NAMES[slots[1].state]
    assert not bound1.done, "slot 1 came up without its MSI"
    t_poll = sim.now
    slots[1].enable_slot_status_poll(POLL)
    net1 = await sim.timeout(bound1, s(3))
    t1 = sim.now
    print(f"plug 0 -> {plugs[0].outcome} at {plugs[0].time_ps / 1e9:.3f} ms, "
          f"plug 1 -> {plugs[1].outcome} at {plugs[1].time_ps / 1e9:.3f} ms: no credit for either MSI")
    print(f"credit at {CREDIT_AT / 1e9:.3f} ms -> DSP[0] MSI retry succeeded at {t_retry / 1e9:.3f} ms; "
          f"{net0.bdf} probed at {t0 / 1e9:.3f} ms")
    print(f"DSP[1] MSI retry abandoned at {t_abandon / 1e9:.3f} ms; slot 1 still {unseen} at "
          f"{t_poll / 1e9:.3f} ms; Slot Status poll every {POLL / 1e9:.0f} ms -> {net1.bdf} probed at {t1 / 1e9:.3f} ms")
    return {"plugs": [p.time_ps for p in plugs], "retry": t_retry, "bound0": t0, "abandoned": t_abandon,
            "poll": t_poll, "bound1": t1}
