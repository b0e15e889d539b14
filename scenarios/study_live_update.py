"""Study: what a live update of the vnet_pci_dev application costs the host, for 1, 2, 4 and 8
endpoints in static mode (-H 0, -q 2, --lu-mode active; endpoints wired in pairs, one alone to
a loopback plug), each interface sending a frame every 2 ms on its queue pairs in turn.

Per run, from the run's own events and the driver's clock:
  - handover: SIGUSR1 to the standby's "LU restore complete";
  - host-visible pause: the longest TLP completion during the handover. A config read of the
    device status issued 1 ms after SIGUSR1 waits in PE1's queue until the channel LU drains it
    (event lu_tlp_wait); the datapath (doorbells, DMA, MSI-X) is firmware's and never waits;
  - frames delayed: frames sent during the handover that arrived more than 1 ms after they were
    sent (they waited in a stopped device's transmit ring), and the longest such delay;
  - frames dropped: frames that reached a stopped engine (rx_queue_not_ready), the model's count.

`./dpusim run scenarios/study_live_update.py` runs the 2-endpoint platform as the scenario's
own and 1, 4 and 8 endpoints as variants, then writes DIR/study.json and DIR/study.png and
prints the table."""
import json
import os

from dpusim.drivers.pair_traffic import PairTraffic, pair_wires, steady_interfaces
from dpusim.units import ms, s
from dpusim.vnet import vnet

DELAYED_PS = ms(1)


def options(n):
    return {"num-ep": n, "hotplug-mode": 0, "max-queue-pairs": 2, "queue-size": 256}


def platform(n):
    return {"host": {"cpus": 2},
            "topology": {"family": "vnet", "options": {**options(n), "lu-mode": "active"}},
            "wires": pair_wires(n),
            "timing": {"cpl_timeout_ps": s(30)}}


PLATFORM = platform(2)
VARIANTS = {"1ep": platform(1), "4ep": platform(4), "8ep": platform(8)}


async def scenario(sim):
    nets = await steady_interfaces(sim)
    standby = await sim.start_standby({**options(len(nets)), "lu-mode": "standby"})
    await standby.waiting()
    traffic = PairTraffic(sim, nets, ms(2))
    traffic.start()
    await sim.sleep(ms(20))

    start = sim.now
    assert (await sim.signal("SIGUSR1")) == "handover"
    traffic.phase = "during"

    async def status_read():
        await sim.sleep(ms(1))
        return await nets[0].get_status()

    probe = sim.spawn(status_read())
    await standby.restored()
    end = sim.now
    traffic.phase = "after"
    assert await probe == 0x0F
    await sim.sleep(ms(20))
    await traffic.stop()
    ledger = vnet(sim).frames()
    traffic.check(ledger, "after")

    during = [key for key, p in traffic.sent.items() if p == "during"]
    delays = [traffic.latency[key] for key in during if key in traffic.latency]
    delayed = [d for d in delays if d > DELAYED_PS]
    return {"endpoints": len(nets), "handover_ps": end - start, "sent_during": len(during),
            "delayed": len(delayed), "max_delay_ps": max(delays, default=0),
            "dropped": sum(ledger["dropped"].values())}


def measure(res):
    r = dict(res.result)
    r["pause_ps"] = max(e["wait_ps"] for e in res.events("lu_tlp_wait"))
    return r


def report(results, out):
    """Writes study.json and study.png, prints the table."""
    runs = {"1": results["1ep"], "2": results["main"], "4": results["4ep"], "8": results["8ep"]}
    study = {n: measure(res) for n, res in runs.items()}
    with open(os.path.join(out, "study.json"), "w") as f:
        json.dump({"endpoints": study, "hashes": {n: r.hash for n, r in runs.items()}}, f, indent=2, sort_keys=True)
    print(f"{'endpoints':>9} {'handover (ms)':>14} {'pause (ms)':>11} {'sent during':>12} {'delayed':>8} "
          f"{'max delay (ms)':>15} {'dropped':>8}")
    for n, r in study.items():
        print(f"{n:>9} {r['handover_ps'] / 1e9:>14.3f} {r['pause_ps'] / 1e9:>11.3f} {r['sent_during']:>12} "
              f"{r['delayed']:>8} {r['max_delay_ps'] / 1e9:>15.3f} {r['dropped']:>8}")
    plot(study, os.path.join(out, "study.png"))


def plot(study, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = list(study)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(ns, [study[n]["pause_ps"] / 1e9 for n in ns], "o-", label="host-visible pause (config read)")
    left.plot(ns, [study[n]["max_delay_ps"] / 1e9 for n in ns], "s-", label="longest frame delay")
    left.set_xlabel("endpoints")
    left.set_ylabel("ms (simulated)")
    left.set_title("pause and delay")
    left.legend()
    width = 0.4
    xs = range(len(ns))
    right.bar([x - width / 2 for x in xs], [study[n]["delayed"] for n in ns], width, label="delayed > 1 ms")
    right.bar([x + width / 2 for x in xs], [study[n]["dropped"] for n in ns], width, label="dropped")
    right.set_xticks(list(xs), ns)
    right.set_xlabel("endpoints")
    right.set_ylabel("frames")
    right.set_title("frames sent during the handover")
    right.legend()
    fig.suptitle("vnet_pci_dev live update under traffic, static mode, -q 2, a frame per interface every 2 ms")
    fig.tight_layout()
    # No software tag: the PNG stays byte-identical across runs.
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
