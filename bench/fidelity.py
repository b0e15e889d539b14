"""Timing difference between the two fidelities on the default scenario
(scenarios/virtio_net_bringup.py: four virtio-net endpoints brought up by the Python driver,
two frames per queue pair through a loopback plug, docs/fidelity.md).

    ./dpusim bench fidelity [--profile NAME]

Runs the scenario three times with the event log written: `tlp` throughout, `lt` throughout
(the platform's "fidelity"), and `tlp` for the bring-up then `lt` for the traffic is what
bench vnet measures. Prints, per run, when each endpoint was probed and passed its traffic, and
the frames' latencies read from the log: transmit (the doorbell's arrival at the device to the
frame's first bit on the wire), receive (the frame's last bit at the device to the MSI-X message
at the host), and the differences between the runs. Simulated times only: nothing here depends
on the machine."""
import json
import os
import runpy
import statistics
import sys
import tempfile

from dpusim.run import run, take_profile_option, with_profile

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")


PROFILE = None  # --profile NAME: run under that timing profile (docs/timing.md, Profiles)

def figures(log):
    ev = [json.loads(line) for line in log.splitlines()]
    steps = {(e["bdf"], e["step"]): e["time_ps"] for e in ev if e["event"] == "virtio_net"}
    bdfs = sorted({b for b, _ in steps})
    ep_bdf = {f"ep{i}": b for i, b in enumerate(bdfs)}
    # Transmit: from the queue's latest doorbell (or its enabling, when the driver kicked it
    # before the application started it) to the frame's first bit on the wire.
    start, tx_lat, wire_tx = {}, [], {}
    arrivals = {}  # frame id -> (endpoint, last bit at the device)
    for e in ev:
        if (e["event"] == "doorbell" and not e["ignored"]) or (e["event"] == "vq_state" and e["state"] == "ENABLED"):
            start[(e["path"], e["vq"])] = e["time_ps"]
        elif e["event"] == "frame":
            wire_tx[e["frame"]] = e["tx_ps"]
            if e["to"].startswith("ep"):
                arrivals[e["frame"]] = (e["to"], e["rx_ps"])
        elif e["event"] == "vq_frame" and e["dir"] == "tx":
            tx_lat.append(wire_tx[e["frame"]] - start[(e["path"], e["vq"])])
    # Receive: the first MSI from the endpoint at or after the frame went into the used ring.
    msis = sorted((e["time_ps"], e["requester"]) for e in ev if e["event"] == "msi")
    rx_lat = []
    for e in ev:
        if e["event"] == "vq_frame" and e["dir"] == "rx":
            ep, arrived = arrivals[e["frame"]]
            msi = next(t for t, r in msis if r == ep_bdf[ep] and t >= e["time_ps"])
            rx_lat.append(msi - arrived)
    return {"probed": [steps[(b, "probed")] for b in bdfs], "traffic_ok": [steps[(b, "traffic_ok")] for b in bdfs],
            "tx": tx_lat, "rx": rx_lat}


def run_mode(fidelity):
    scope = runpy.run_path(SCENARIO, run_name="dpusim_bench")
    doc = dict(scope["PLATFORM"])
    doc["fidelity"] = fidelity
    doc["outputs"] = {"vcd": False}
    with tempfile.TemporaryDirectory(prefix="dpusim-bench-fidelity-") as out:
        sys.stdout.flush()
        saved = os.dup(1)
        with open(os.devnull, "w") as null:  # the scenario's own lines
            os.dup2(null.fileno(), 1)
            try:
                res = run(scope["scenario"], with_profile(doc, PROFILE), out=out)
            finally:
                os.dup2(saved, 1)
                os.close(saved)
        res.check()
        return figures(res.log), res.hash


def us(ps):
    return f"{ps / 1e6:.3f} us"


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    global PROFILE
    argv = list(argv)
    PROFILE = take_profile_option(argv, "dpusim bench fidelity")
    got = {}
    for fidelity in ("tlp", "lt"):
        got[fidelity], h = run_mode(fidelity)
        f = got[fidelity]
        print(f"fidelity={fidelity} (hash {h[:16]})")
        print("  probed at:      " + ", ".join(f"{t / 1e9:.6f} ms" for t in f["probed"]))
        print("  traffic ok at:  " + ", ".join(f"{t / 1e9:.6f} ms" for t in f["traffic_ok"]))
        for k, what in (("tx", "transmit (doorbell to wire)"), ("rx", "receive (wire to MSI)")):
            v = f[k]
            print(f"  {what}: {len(v)} frames, mean {us(statistics.mean(v))}, min {us(min(v))}, max {us(max(v))}")
    a, b = got["tlp"], got["lt"]
    print("lt - tlp:")
    print("  probed:      " + ", ".join(f"{(y - x) / 1e3:+.3f} ns" for x, y in zip(a["probed"], b["probed"])))
    print("  traffic ok:  " + ", ".join(f"{(y - x) / 1e3:+.3f} ns" for x, y in zip(a["traffic_ok"], b["traffic_ok"])))
    for k in ("tx", "rx"):
        d = [y - x for x, y in zip(a[k], b[k])]
        rel = statistics.mean(d) / statistics.mean(a[k]) * 100
        print(f"  {k} latency: mean {statistics.mean(d) / 1e3:+.3f} ns ({rel:+.2f} %), "
              f"min {min(d) / 1e3:+.3f} ns, max {max(d) / 1e3:+.3f} ns")


if __name__ == "__main__":
    main(sys.argv[1:])
