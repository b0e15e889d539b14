"""ionic RDMA benchmark: RDMA WRITE work requests per wall second between two NICs on a mesh,
and the fp8 reduction throughput of the P4 RDMA path through the device.

    ./dpusim bench rdma [WRS] [--size BYTES] [--elements N] [--profile NAME]

WRITE: two NICs, probed by the drivers (Ethernet, then RDMA), an RC QP pair and a registered
region each. The benchmark posts batches of 1000 RDMA WRITEs of --size bytes (4 KiB by
default) with one doorbell per batch (ibv_post_send with a chain), and waits for the batch's
last completion to be written: RC completes every work request (SEND_MSN), so no interrupt and
no per-WR Python runs. Every payload byte crosses both NICs' links as DMA and the mesh link as
a message; the requester completes on the peer's ACK.

fp8: one NIC with fp8_policy.json and, installed through the P4 control surface, the entry
rdma_policy: opcode 4 -> reduce(op 0, fmt 3); each work request is an RDMA WRITE whose two SGEs
of N fp8_e4m3 elements each (--elements, 256 Ki by default) are added into a third region by
the fp8 unit; batches of 16. Figures are elements per wall second.

Each figure in both fidelity modes (docs/fidelity.md): `tlp`, every DMA access a TLP on every
link, and `lt`, direct memory access with the TLPs' time annotated. The event log is off (the
least logging the project offers), no VCD. The wall clock is read here, around the batches,
never by the simulation; each figure comes from its own platform process."""
import os
import sys
import time

from dpusim.drivers.ionic import ionic_devices, Ionic
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.ionic_rdma import CQE_BYTES, IonicRdma
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run, take_profile_option, with_profile

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BATCH = 1000
CQ_DEPTH = 4096


async def probe(sim):
    pci = await pci_host_probe(sim)
    nics = [await Ionic(sim, pci, d).probe() for d in ionic_devices(pci)]
    out = []
    for nic in nics:
        await nic.open()
        out.append(await IonicRdma(nic).probe())
    return out


async def batches(sim, rdma, cq, qp, total, batch, make_wr):
    """Posts `total` WRs in batches (one doorbell each) and waits for each batch's last CQE;
    returns (wall seconds, simulated ps)."""
    h = sim.host
    done = t0 = now0 = 0
    cqes = 0
    while done < total:
        n = min(batch, total - done)
        wrs = [make_wr(done + i) for i in range(n)]
        cqes += n
        landed = h.wait_write(cq.ring + ((cqes - 1) % cq.depth) * CQE_BYTES, CQE_BYTES)
        if not t0:
            t0, now0 = time.perf_counter(), sim.now
        await rdma.post_send_list(qp, wrs)
        await landed
        qp.outstanding.clear()  # the benchmark reads no completions
        done += n
    return time.perf_counter() - t0, sim.now - now0


PROFILE = None  # --profile NAME: run under that timing profile (docs/timing.md, Profiles)

def measure_write(wrs, size, fidelity):
    async def scenario(sim):
        a, b = await probe(sim)
        a_cq, b_cq = await a.create_cq(CQ_DEPTH), await b.create_cq(CQ_DEPTH)
        qa = await a.create_qp(a_cq, a_cq, sq_depth=4096)
        qb = await b.create_qp(b_cq, b_cq)
        await a.connect(qa, qb.id, dest_ip="10.0.0.2")
        await b.connect(qb, qa.id, dest_ip="10.0.0.1")
        src, dst = await a.reg_mr(size), await b.reg_mr(size)
        sim.host.write(src.buf, bytes(i & 0xFF for i in range(size)))
        sge = [src.sge(0, size)]
        sim.platform.set_log_enabled(False)
        res = await batches(sim, a, a_cq, qa, wrs, BATCH, lambda n: dict(
            op="RDMA_WRITE", sges=sge, wr_id=n, signaled=False, remote_addr=dst.addr, rkey=dst.rkey))
        sim.platform.set_log_enabled(True)
        assert sim.host.read(dst.buf, size) == bytes(i & 0xFF for i in range(size)), "the payload did not land"
        return res

    doc = {"host": {"cpus": 1}, "topology": {"slots": [{"kind": "ionic"}, {"kind": "ionic"}]},
           "mesh": ["ep0", "ep1"], "outputs": {"vcd": False}, "fidelity": fidelity}
    res = run(scenario, with_profile(doc, PROFILE))
    res.check()
    return res.result


def measure_fp8(wrs, elements, fidelity):
    async def scenario(sim):
        (r,) = await probe(sim)
        await IonicP4(r.nic, claim="write").update([{
            "type": "INSERT", "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"}],
            "action": "ingress.reduce", "params": {"op": "0", "fmt": "3"}}])
        cq = await r.create_cq(CQ_DEPTH)
        qp = await r.create_qp(cq, cq, sq_depth=1024)
        await r.connect(qp, qp.id)
        a, b, c = [await r.reg_mr(elements) for _ in range(3)]
        sim.host.write(a.buf, bytes([0x38]) * elements)   # 1.0
        sim.host.write(b.buf, bytes([0x40]) * elements)   # 2.0
        sges = [a.sge(0, elements), b.sge(0, elements)]
        sim.platform.set_log_enabled(False)
        res = await batches(sim, r, cq, qp, wrs, 16, lambda n: dict(
            op="RDMA_WRITE", sges=sges, wr_id=n, signaled=False, remote_addr=c.addr, rkey=c.rkey))
        sim.platform.set_log_enabled(True)
        assert sim.host.read(c.buf, elements) == bytes([0x44]) * elements, "1 + 2 is not 3"
        return res

    doc = {"host": {"cpus": 1}, "outputs": {"vcd": False}, "fidelity": fidelity,
           "topology": {"slots": [{"kind": "ionic", "p4-program": os.path.join(ROOT, "tests/data/p4/fp8_policy.json"),
                                   "p4-guest-scope": "write"}]}}
    res = run(scenario, with_profile(doc, PROFILE))
    res.check()
    return res.result


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    global PROFILE
    argv = list(argv)
    PROFILE = take_profile_option(argv, "dpusim bench rdma")
    wrs, size, elements = 20_000, 4096, 256 * 1024
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--size" and args and args[0].isdigit() and 1 <= int(args[0]) <= 1 << 20:
            size = int(args.pop(0))
        elif a == "--elements" and args and args[0].isdigit() and 1 <= int(args[0]) <= 1 << 20:
            elements = int(args.pop(0))
        elif a.isdigit() and int(a) > 0:
            wrs = int(a)
        else:
            sys.exit(f"dpusim bench rdma: expected [WRS] [--size 1..1048576] [--elements 1..1048576], not {a!r}")
    print(f"dpusim bench rdma: event log off, each figure in both fidelity modes (docs/fidelity.md)")
    fp8_wrs = max(1, min(wrs // 100, 200))
    rate, sim = {}, {}
    for fidelity in ("tlp", "lt"):
        seconds, sim_ps = measure_write(wrs, size, fidelity)
        rate["write", fidelity], sim["write", fidelity] = wrs / seconds, sim_ps / wrs / 1000
        print(f"rdma {fidelity:3} RDMA WRITE {size} B, ep0 -> ep1 on the mesh: {wrs / seconds:.0f} WRs/s  "
              f"({wrs} WRs in {seconds:.3f} s, {wrs * size / seconds / 1e6:.1f} MB/s wall; "
              f"{sim_ps / wrs / 1000:.1f} ns simulated per WR)")
        seconds, sim_ps = measure_fp8(fp8_wrs, elements, fidelity)
        rate["fp8", fidelity], sim["fp8", fidelity] = fp8_wrs * elements / seconds, sim_ps / fp8_wrs / 1000
        print(f"rdma {fidelity:3} fp8_e4m3 add, {elements} elements per WR: {fp8_wrs * elements / seconds / 1e6:.1f} M elements/s  "
              f"({fp8_wrs} WRs in {seconds:.3f} s, {sim_ps / fp8_wrs / 1000:.1f} ns simulated per WR)")
    for what in ("write", "fp8"):
        print(f"lt / tlp, {what}: {rate[what, 'lt'] / rate[what, 'tlp']:.2f}x per wall second, "
              f"simulated time per WR {sim[what, 'lt'] / sim[what, 'tlp']:.4f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
