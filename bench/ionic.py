"""ionic datapath benchmark: frames per wall second from one guest's TX ring, through the P4
pipeline (minimal_forward.json, one exact-match entry forwarding to the uplink), across the
wire, into the other NIC's RX ring; the same with no engine attached, for the pipeline's
share; and the driver's own C++ datapath with its traffic source and checker.

    ./dpusim bench ionic [FRAMES] [--size BYTES] [--profile NAME]

Two NICs are probed and opened by the driver; then the benchmark drives the rings itself, as a
busy-polling guest would: each batch posts ring-depth - 1 receive buffers on the receiver and as
many transmit descriptors on the sender (each a host-memory write of the whole batch and one
doorbell), with both NICs' queue interrupts masked so that no per-frame Python runs. The event
log is off (the least logging the project offers), no VCD, no pcap. Then the driver's own
datapath in C++ (nic.traffic: the seeded source and checker, rings of 1024, batches of 64, the
NAPI poll on each interrupt) on one NIC whose uplink is a loopback, every frame checked on its
way back. Each configuration runs in both fidelity modes (docs/fidelity.md): `tlp`, every DMA
access a TLP on every link, and `lt`, direct memory access with the TLPs' time annotated, on
the NICs' quantum keepers. The wall clock is read here, around the batches, never by the
simulation; each figure comes from its own platform."""
import os
import struct
import sys
import time

from dpusim.drivers.ionic import ionic_devices, Ionic
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.ionic_regs import (ETH_DESC_BYTES, INTR_CTRL_MASK, IONIC_BAR0_INTR_CTRL_OFFSET,
                                       IONIC_INTR_CTRL_BYTES, IONIC_TXQ_DESC_ADDR_SHIFT)
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run, take_profile_option, with_profile

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPTH = 4096


PROFILE = None  # --profile NAME: run under that timing profile (docs/timing.md, Profiles)

def platform(p4, fidelity):
    sender = {"kind": "ionic", "p4-program": os.path.join(ROOT, "tests/data/p4/minimal_forward.json"),
              "p4-guest-scope": "write"} if p4 else {"kind": "ionic"}
    return {"host": {"cpus": 1}, "topology": {"slots": [sender, {"kind": "ionic"}]},
            "wires": [{"a": "ep0", "b": "ep1"}], "outputs": {"vcd": False}, "fidelity": fidelity}


def measure(frames, size, p4, fidelity):
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        a, b = [await Ionic(sim, pci, d, ring_length=DEPTH).probe() for d in ionic_devices(pci)]
        await a.open()
        await b.open()
        if p4:
            await IonicP4(a).update([{"type": "INSERT", "table": "ingress.fwd",
                                      "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x" + b.mac.hex()}],
                                      "action": "ingress.forward", "params": {"port": "1"}}])
        h = sim.host
        for nic in (a, b):  # no interrupts: the benchmark polls nothing per frame
            intr = nic.rxqs[0].intr
            await h.mem_write32(nic.regs + IONIC_BAR0_INTR_CTRL_OFFSET + intr * IONIC_INTR_CTRL_BYTES + INTR_CTRL_MASK, 1)
        tx, rx = a.txqs[0], b.rxqs[0]
        buf = h.alloc(size)
        h.write(buf, b.mac + a.mac + b"\x88\xb5" + bytes(size - 14))
        rxbuf = h.alloc(2048)
        batch = DEPTH - 1
        tx_desc = struct.pack("<QHHHH", buf << IONIC_TXQ_DESC_ADDR_SHIFT, size, 0, 0, 0)
        rx_desc = struct.pack("<B5xHQ", 0, 2048, rxbuf)
        sim.platform.set_log_enabled(False)
        done = t0 = now0 = 0
        while done < frames:
            n = min(batch, frames - done)
            for q, desc in ((rx, rx_desc), (tx, tx_desc)):
                first = min(n, q.depth - q.head)
                h.write(q.ring + q.head * ETH_DESC_BYTES, desc * first)
                if n > first:
                    h.write(q.ring, desc * (n - first))
            last = rx.cq_ring + ((rx.head + n - 1) % rx.depth) * 16
            rx.head = (rx.head + n) % rx.depth
            tx.head = (tx.head + n) % tx.depth
            landed = h.wait_write(last, 16)
            if not t0:
                t0, now0 = time.perf_counter(), sim.now
            await b.ring_doorbell(rx, rx.head)
            await a.ring_doorbell(tx, tx.head)
            await landed
            done += n
        sim.platform.set_log_enabled(True)
        return time.perf_counter() - t0, sim.now - now0

    res = run(scenario, with_profile(platform(p4, fidelity), PROFILE))
    res.check()
    return res.result


def measure_traffic(frames, size, fidelity):
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (nic,) = [await Ionic(sim, pci, d, ring_length=1024).probe() for d in ionic_devices(pci)]
        await nic.open()
        t0, now0 = time.perf_counter(), sim.now
        r = await nic.traffic(frames, size=size, dst=nic.mac)
        assert r.ok, r.first_problem
        return time.perf_counter() - t0, sim.now - now0

    doc = {"host": {"cpus": 1}, "topology": {"slots": [{"kind": "ionic"}]}, "fidelity": fidelity,
           "wires": [{"a": "ep0", "b": "loopback"}], "outputs": {"log": "none", "vcd": False, "pcap": False}}
    res = run(scenario, with_profile(doc, PROFILE))
    res.check()
    return res.result


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    global PROFILE
    argv = list(argv)
    PROFILE = take_profile_option(argv, "dpusim bench ionic")
    frames, size = 200_000, 64
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--size" and args and args[0].isdigit() and 60 <= int(args[0]) <= 1514:
            size = int(args.pop(0))
        elif a.isdigit() and int(a) > 0:
            frames = int(a)
        else:
            sys.exit(f"dpusim bench ionic: expected [FRAMES] [--size 60..1514], not {a!r}")
    print(f"dpusim bench ionic: {frames} frames of {size} bytes, guest TX -> pipeline -> wire -> peer RX, "
          f"batches of {DEPTH - 1}, event log off")
    rates, sims = {}, {}
    for fidelity in ("tlp", "lt"):
        for p4 in (True, False):
            seconds, sim_ps = measure(frames, size, p4, fidelity)
            rates[fidelity, p4] = frames / seconds
            sims[fidelity, p4] = sim_ps / frames / 1000
            label = "p4=minimal_forward" if p4 else "p4=none          "
            print(f"ionic {fidelity:3} log=none {label} size={size}: {rates[fidelity, p4]:.0f} frames/s  "
                  f"({frames} frames in {seconds:.3f} s, {sims[fidelity, p4]:.1f} ns simulated per frame)")
    for fidelity in ("tlp", "lt"):
        share = (1 / rates[fidelity, True] - 1 / rates[fidelity, False]) * rates[fidelity, True] * 100
        print(f"pipeline share of the wall time, {fidelity}: {share:.1f} %")
    for p4 in (True, False):
        print(f"lt / tlp, p4={'minimal_forward' if p4 else 'none'}: {rates['lt', p4] / rates['tlp', p4]:.2f}x frames/s, "
              f"simulated time per frame {sims['lt', p4] / sims['tlp', p4]:.4f}x")
    for fidelity in ("tlp", "lt"):
        seconds, sim_ps = measure_traffic(frames, size, fidelity)
        print(f"ionic {fidelity:3} log=none traffic (C++ driver, loopback) size={size}: {frames / seconds:.0f} frames/s  "
              f"({frames} frames checked in {seconds:.3f} s, {sim_ps / frames / 1000:.1f} ns simulated per frame)")
    met = rates["lt", True] >= 200_000
    print(f"goal: lt with the P4 pipeline >= 200 k frames/s: {'met' if met else 'not met'}")

if __name__ == "__main__":
    main(sys.argv[1:])
