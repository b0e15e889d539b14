"""A ring allreduce of fp8_e4m3 vectors over four ionic NICs, the adds done by the P4 program.

Every NIC runs fp8_policy.json; each node's guest (granted write) installs, through the P4
control surface, the entry that makes an RDMA write whose gather list is two equal-length
buffers an elementwise fp8_e4m3 add into the write's destination (rdma_policy: opcode 4 ->
reduce(op 0, fmt 3)). A one-buffer write is declined by the extern and goes out as usual.

Each node holds 4 chunks of 256 elements. Reduce-scatter, 3 steps: node i writes chunk
(i - s) mod 4 into node i+1's inbox (an ordinary RDMA write over the mesh); node i+1 then
reduces inbox + own chunk into its own chunk with a two-buffer write on a QP looped to itself.
All-gather, 3 steps: node i writes its complete chunk (i + 1 - s) mod 4 into node i+1's vector.
The result on every node must equal, bit for bit, the exact sum of the four vectors in the
ring's order with one rounding per step, computed here by a small codec of its own (exact
rationals, round to nearest even, saturating at 448; OCP 8-bit floating point, E4M3), which
must also agree with dpusim.formats.apply.

Later in the same run node 2's guest modifies its entry to deny: its next write to node 3
completes with LOCAL_QP_OPER_ERR (the device logs the denial), node 3's memory is unchanged,
and the provider flushes the work the guest posts after it (WR_FLUSH_ERR)."""
import hashlib
import random
from fractions import Fraction

from dpusim import formats
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.ionic_rdma import IonicRdma
from dpusim.drivers.pci import pci_host_probe

NODES, CHUNK = 4, 256
N = NODES * CHUNK
POLICY = "tests/data/p4/fp8_policy.json"
PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "p4-program": POLICY, "p4-guest-scope": "write"} for _ in range(NODES)]},
    "mesh": [f"ep{i}" for i in range(NODES)],
}


# ---- the reference: fp8_e4m3 by exact arithmetic ------------------------------------------
def e4m3_value(byte):
    sign = -1 if byte & 0x80 else 1
    exp, man = (byte >> 3) & 0xF, byte & 7
    assert not (exp == 0xF and man == 7), "NaN in the inputs"
    if exp == 0:
        return sign * Fraction(man, 1 << 9)
    return sign * Fraction(8 + man, 8) * Fraction(2) ** (exp - 7)


def e4m3_round(value, negative_zero=False):
    """The e4m3 byte nearest to `value` (ties to even), 448 for anything larger."""
    if value == 0:
        return 0x80 if negative_zero else 0
    sign, mag = (0x80, -value) if value < 0 else (0, value)
    exp = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** exp > mag:
        exp -= 1
    quantum = Fraction(2) ** (max(exp, -6) - 3)
    q, rem = divmod(mag, quantum)
    q = int(q) + (1 if rem * 2 > quantum or (rem * 2 == quantum and q % 2) else 0)
    mag = q * quantum
    if mag > 448:
        mag = Fraction(448)
    if mag < Fraction(1, 64):
        return sign | int(mag / Fraction(1, 512))
    exp = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** exp > mag:
        exp -= 1
    return sign | (exp + 7) << 3 | int(mag / Fraction(2) ** (exp - 3)) - 8


def e4m3_add(a, b):
    return bytes(e4m3_round(e4m3_value(x) + e4m3_value(y), negative_zero=bool(x & y & 0x80)) for x, y in zip(a, b))


def inputs(seed):
    rng = random.Random(seed)
    # Exponent fields 0..10 (subnormals up to 8): sums stay finite and roundings are frequent.
    return bytes(rng.randrange(2) << 7 | rng.randrange(11) << 3 | rng.randrange(8) for _ in range(N))


def chunk(v, c):
    return v[c * CHUNK:(c + 1) * CHUNK]


# ---- the run -----------------------------------------------------------------------------
async def scenario(sim):
    pci = await pci_host_probe(sim)
    nics = await probe_all(sim, pci)
    vectors = [inputs(100 + i) for i in range(NODES)]
    nodes = []
    for i, nic in enumerate(nics):
        await nic.open()
        rdma = await IonicRdma(nic).probe()
        p4 = IonicP4(nic, claim="write")
        await p4.update([policy_entry("INSERT", "ingress.reduce", {"op": "0", "fmt": "3"})])
        cq = await rdma.create_cq(256)
        node = {"nic": nic, "rdma": rdma, "p4": p4, "cq": cq,
                "next": await rdma.create_qp(cq, cq), "prev": await rdma.create_qp(cq, cq),
                "self": await rdma.create_qp(cq, cq),
                "data": await rdma.reg_mr(N), "inbox": await rdma.reg_mr(N)}
        sim.host.write(node["data"].buf, vectors[i])
        nodes.append(node)
    for i, node in enumerate(nodes):
        nxt, prv = nodes[(i + 1) % NODES], nodes[(i - 1) % NODES]
        await node["rdma"].connect(node["next"], nxt["prev"].id, dest_ip=f"10.0.0.{(i + 1) % NODES + 1}")
        await node["rdma"].connect(node["prev"], prv["next"].id, dest_ip=f"10.0.0.{(i - 1) % NODES + 1}")
        await node["rdma"].connect(node["self"], node["self"].id, dest_ip=f"10.0.0.{i + 1}")

    async def step(posts):
        """Posts one work request per node, then waits for all of them."""
        for i, (qp, op, sges, addr, rkey) in posts.items():
            await nodes[i]["rdma"].post_send(nodes[i][qp], op, sges, wr_id=1, remote_addr=addr, rkey=rkey)
        for i in posts:
            (wc,) = await nodes[i]["rdma"].wait(nodes[i]["cq"], 1)
            assert wc.status == "OK", (i, wc)

    t0 = sim.now
    for s in range(NODES - 1):  # reduce-scatter
        posts = {}
        for i, node in enumerate(nodes):
            c, nxt = (i - s) % NODES, nodes[(i + 1) % NODES]
            posts[i] = ("next", "RDMA_WRITE", [node["data"].sge(c * CHUNK, CHUNK)],
                        nxt["inbox"].addr + c * CHUNK, nxt["inbox"].rkey)
        await step(posts)
        posts = {}
        for j, node in enumerate(nodes):
            c = (j - 1 - s) % NODES
            posts[j] = ("self", "RDMA_WRITE", [node["inbox"].sge(c * CHUNK, CHUNK), node["data"].sge(c * CHUNK, CHUNK)],
                        node["data"].addr + c * CHUNK, node["data"].rkey)
        await step(posts)
    for s in range(NODES - 1):  # all-gather
        posts = {}
        for i, node in enumerate(nodes):
            c, nxt = (i + 1 - s) % NODES, nodes[(i + 1) % NODES]
            posts[i] = ("next", "RDMA_WRITE", [node["data"].sge(c * CHUNK, CHUNK)],
                        nxt["data"].addr + c * CHUNK, nxt["data"].rkey)
        await step(posts)
    took = sim.now - t0

    # The reference: chunk c is summed in ring order, starting at node c.
    expected = b""
    for c in range(NODES):
        acc = chunk(vectors[c], c)
        via_formats = acc
        for k in range(1, NODES):
            own = chunk(vectors[(c + k) % NODES], c)
            acc = e4m3_add(acc, own)
            via_formats = formats.apply("add", "fp8_e4m3", via_formats, own)
        assert acc == via_formats, f"chunk {c}: the reference codec and dpusim.formats disagree"
        expected += acc
    vectors = hashlib.sha256()
    for i, node in enumerate(nodes):
        got = sim.host.read(node["data"].buf, N)
        assert got == expected, f"node {i}: {sum(x != y for x, y in zip(got, expected))} elements differ"
        vectors.update(got)
    print(f"allreduce of {NODES} x {N} fp8_e4m3 elements: every node equals the exact reference "
          f"after {took / 1e6:.3f} us")

    # Node 2's guest turns its entry into a denial.
    victim, target = nodes[2], nodes[3]
    await victim["p4"].update([policy_entry("MODIFY", "ingress.deny", {})])
    before = sim.host.read(target["inbox"].buf, N)
    r = victim["rdma"]
    await r.post_send(victim["next"], "RDMA_WRITE", [victim["data"].sge(0, CHUNK)], wr_id=50, signaled=False,
                      remote_addr=target["inbox"].addr, rkey=target["inbox"].rkey)
    (denied,) = await r.wait(victim["cq"], 1)
    await r.post_send(victim["next"], "SEND", [victim["data"].sge(0, 16)], wr_id=51)
    (flushed,) = await r.wait(victim["cq"], 1)
    assert (denied.wr_id, denied.status) == (50, "LOCAL_QP_OPER_ERR"), denied
    assert (flushed.wr_id, flushed.status) == (51, "WR_FLUSH_ERR"), flushed
    assert sim.host.read(target["inbox"].buf, N) == before, "a denied write reached node 3"
    print(f"node 2 denied: write {denied.wr_id} {denied.status}, then {flushed.wr_id} {flushed.status}")
    return {"elements": N, "result": expected.hex()[:32], "vectors_sha256": vectors.hexdigest(), "allreduce_ps": took,
            "denied": denied.status, "flushed": flushed.status}


def policy_entry(kind, action, params):
    return {"type": kind, "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"}], "action": action, "params": params}
