"""RDMA between two ionic NICs on a mesh: remote atomics, order per destination QP behind a
SEND waiting for a receive, duplicated and delayed messages, the limit of 1024 requests
pending, and the platform document's "mesh" key refusals."""
import json
import struct

import pytest

import _dpusim
from dpusim.drivers.ionic_rdma import IonicRdma
from dpusim.testing import run_ok
from dpusim.units import ms, us
from ionic_util import bring_up, ionic_platform


def mesh_platform(n=2):
    return ionic_platform(*({} for _ in range(n)), mesh=True)


async def two_nodes(sim, sq_depth=64, cq_depth=64):
    _, nics = await bring_up(sim)
    a, b = [await IonicRdma(n).probe() for n in nics]
    a_cq, b_cq = await a.create_cq(cq_depth), await b.create_cq(cq_depth)
    qa, qb = await a.create_qp(a_cq, a_cq, sq_depth=sq_depth), await b.create_qp(b_cq, b_cq)
    await a.connect(qa, qb.id, dest_ip="10.0.0.2")
    await b.connect(qb, qa.id, dest_ip="10.0.0.1")
    return (a, a_cq, qa, await a.reg_mr(4096)), (b, b_cq, qb, await b.reg_mr(4096))


def test_remote_atomics_and_order_behind_a_waiting_send():
    async def scenario(sim):
        (a, a_cq, qa, a_mr), (b, b_cq, qb, b_mr) = await two_nodes(sim)
        h = sim.host
        h.write(b_mr.buf + 64, struct.pack("<Q", 41))
        out = {}
        await a.post_send(qa, "ATOMIC_FA", [a_mr.sge(0, 8)], remote_addr=b_mr.addr + 64, rkey=b_mr.rkey, swap_add=1)
        await a.wait(a_cq, 1)
        await a.post_send(qa, "ATOMIC_CS", [a_mr.sge(8, 8)], remote_addr=b_mr.addr + 64, rkey=b_mr.rkey,
                          compare=42, swap_add=0xDEAD)
        await a.wait(a_cq, 1)
        out["atomics"] = (struct.unpack("<QQ", h.read(a_mr.buf, 16)), struct.unpack("<Q", h.read(b_mr.buf + 64, 8))[0])

        # A SEND finds no receive; the WRITE behind it to the same QP waits with it. The
        # receive posted 1 ms later lets both through, in order.
        h.write(a_mr.buf + 100, b"first" + b"second")
        t0 = sim.now
        await a.post_send(qa, "SEND", [a_mr.sge(100, 5)], wr_id=1)
        await a.post_send(qa, "RDMA_WRITE", [a_mr.sge(105, 6)], wr_id=2, remote_addr=b_mr.addr + 200, rkey=b_mr.rkey)
        await sim.sleep(ms(1))
        out["write held"] = h.read(b_mr.buf + 200, 6)
        await b.post_recv(qb, [b_mr.sge(300, 16)], wr_id=3)
        wcs = await a.wait(a_cq, 2)
        out["completions"] = [(w.wr_id, w.status, w.time_ps - t0 > ms(1)) for w in wcs]
        (recv,) = await b.wait(b_cq, 1)
        out["recv"] = (recv.wr_id, recv.status, recv.byte_len, h.read(b_mr.buf + 300, 5), h.read(b_mr.buf + 200, 6))
        return out

    res = run_ok(scenario, mesh_platform())
    out = res.result
    assert out["atomics"] == ((41, 42), 0xDEAD)
    assert out["write held"] == bytes(6)
    assert out["completions"] == [(1, "OK", True), (2, "OK", True)]
    assert out["recv"] == (3, "OK", 5, b"first", b"second")
    assert [e["outcome"] for e in res.events("rdma_rnr", path="ep1")] == ["waiting"]


def test_duplicated_and_delayed_messages():
    async def scenario(sim):
        (a, a_cq, qa, a_mr), (b, b_cq, qb, b_mr) = await two_nodes(sim)
        sim.host.write(a_mr.buf, b"payload!")
        out = {}
        rule = sim.faults.mesh_duplicate(count=1, src="ep1", dst="ep0", kind="ACK")
        await a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 8)], wr_id=1, remote_addr=b_mr.addr, rkey=b_mr.rkey)
        wcs = await a.wait(a_cq, 1)
        await sim.sleep(us(50))
        out["duplicate ACK"] = [(w.wr_id, w.status) for w in wcs + a.poll_cq(a_cq)]
        sim.faults.remove_mesh(rule)
        t0 = sim.now
        await a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 8)], wr_id=2, remote_addr=b_mr.addr + 8, rkey=b_mr.rkey)
        await a.wait(a_cq, 1)
        plain = sim.now - t0
        sim.faults.mesh_delay(us(100), count=1, src="ep0", kind="WRITE")
        t0 = sim.now
        await a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 8)], wr_id=3, remote_addr=b_mr.addr + 16, rkey=b_mr.rkey)
        await a.wait(a_cq, 1)
        out["delay added"] = sim.now - t0 - plain
        out["landed"] = sim.host.read(b_mr.buf, 24)
        return out

    res = run_ok(scenario, mesh_platform())
    out = res.result
    assert out["duplicate ACK"] == [(1, "OK")]
    assert us(100) <= out["delay added"] < us(101)
    assert out["landed"] == b"payload!" * 3
    assert [e["action"] for e in res.events("mesh_fault")] == ["duplicate", "delay"]


def test_at_most_1024_requests_pending():
    async def scenario(sim):
        (a, a_cq, qa, a_mr), (b, _, _, b_mr) = await two_nodes(sim, sq_depth=2048, cq_depth=2048)
        sim.faults.mesh_drop(count=0, src="ep0")          # nothing arrives: nothing is answered
        for n in range(1025):
            await a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 8)], wr_id=n, remote_addr=b_mr.addr, rkey=b_mr.rkey,
                              signaled=n == 1024)
        (wc,) = await a.wait(a_cq, 1)
        return wc.wr_id, wc.status

    res = run_ok(scenario, mesh_platform())
    assert res.result == (1024, "REMOTE_ACC_ERR")
    (refused,) = res.events("rdma_remote_refused", path="ep0")
    assert refused["reason"] == "1024 requests pending"


@pytest.mark.parametrize("mesh, message", [
    (["ep0"], "$.mesh: a mesh needs at least two endpoints, not 1"),
    (["ep0", "ep0"], "$.mesh[1]: endpoint 'ep0' is already in the mesh"),
    (["ep0", "ep5"], "$.mesh[1]: endpoint 'ep5' does not exist (the platform has 3)"),
    (["ep0", "ep2"], "$.mesh[1]: endpoint 'ep2' has no mesh port"),
    (["ep0", "nic1"], "$.mesh[1]: 'nic1' is not \"ep<i>\""),
    ("ep0", "$.mesh: must be a list of endpoints"),
])
def test_mesh_key_refusals(mesh, message):
    doc = mesh_platform()
    doc["topology"]["slots"].append({"kind": "test"})
    doc["mesh"] = mesh
    with pytest.raises(_dpusim.platform.DocError) as e:
        _dpusim.platform.validate(json.dumps(doc))
    assert message in str(e.value)
