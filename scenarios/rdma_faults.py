"""The RDMA error paths of two ionic NICs on a mesh, each reached deterministically.

  1. A dropped mesh message: the fault rule drops ep0's RDMA WRITE on its way to ep1; no ACK
     comes, and 30 s of simulated time after the doorbell the write completes with
     RETRY_EXCEEDED.
  2. A receiver without posted receives: ep0's SEND reaches ep1, whose QP has no receive
     posted; ep1 holds it for 5 s and then answers RNR, and the SEND completes with
     RNR_RETRY_EXCEEDED.
  3. A bad rkey: ep0 writes with an rkey ep1 never registered; ep1 refuses it and the write
     completes with REMOTE_ACC_ERR, nothing written.
  4. A bad lkey: ep0's gather list names a key it never registered; the device refuses it
     before anything leaves, LOCAL_PROT_ERR.
Each error completion is followed by the provider's flush of the QP's other work, so each
case uses a QP of its own."""
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.ionic_rdma import IonicRdma
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "ip": "10.0.0.1"}, {"kind": "ionic", "ip": "10.0.0.2"}]},
    "mesh": ["ep0", "ep1"],
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    a_nic, b_nic = await probe_all(sim, pci)
    await a_nic.open()
    await b_nic.open()
    a = await IonicRdma(a_nic).probe()
    b = await IonicRdma(b_nic).probe()
    a_cq, b_cq = await a.create_cq(64), await b.create_cq(64)
    a_mr, b_mr = await a.reg_mr(4096), await b.reg_mr(4096)
    sim.host.write(a_mr.buf, bytes(range(256)))

    async def pair():
        qa, qb = await a.create_qp(a_cq, a_cq), await b.create_qp(b_cq, b_cq)
        await a.connect(qa, qb.id, dest_ip="10.0.0.2")
        await b.connect(qb, qa.id, dest_ip="10.0.0.1")
        return qa, qb

    async def one(qp, post, **kw):
        t0 = sim.now
        await post
        (wc,) = await a.wait(a_cq, 1, **kw)
        return wc, sim.now - t0

    outcomes = {}
    # 1. The write is dropped on the mesh: no ACK, RETRY_EXCEEDED after 30 s.
    qa, _ = await pair()
    rule = sim.faults.mesh_drop(count=1, src="ep0", dst="ep1", kind="WRITE")
    wc, took = await one(qa, a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 64)], wr_id=1, remote_addr=b_mr.addr,
                                         rkey=b_mr.rkey), timeout_ps=s(31))
    sim.faults.remove_mesh(rule)
    assert wc.status == "RETRY_EXCEEDED" and took >= s(30), (wc, took)
    assert sim.host.read(b_mr.buf, 64) == bytes(64), "the dropped write landed"
    outcomes["dropped write"] = (wc.status, took)

    # 2. No receive posted at ep1: RNR_RETRY_EXCEEDED after 5 s.
    qa, _ = await pair()
    wc, took = await one(qa, a.post_send(qa, "SEND", [a_mr.sge(0, 32)], wr_id=2), timeout_ps=s(6))
    assert wc.status == "RNR_RETRY_EXCEEDED" and s(5) <= took < s(6), (wc, took)
    outcomes["send without a receive"] = (wc.status, took)

    # 3. An rkey ep1 never registered.
    qa, _ = await pair()
    wc, took = await one(qa, a.post_send(qa, "RDMA_WRITE", [a_mr.sge(0, 64)], wr_id=3, remote_addr=b_mr.addr,
                                         rkey=b_mr.rkey ^ 0x00FF0000))
    assert wc.status == "REMOTE_ACC_ERR", wc
    assert sim.host.read(b_mr.buf, 64) == bytes(64), "a write with a bad rkey landed"
    outcomes["bad rkey"] = (wc.status, took)

    # 4. An lkey ep0 never registered.
    qa, _ = await pair()
    bad = a_mr.sge(0, 64)
    bad.lkey = 0x77000077
    wc, took = await one(qa, a.post_send(qa, "RDMA_WRITE", [bad], wr_id=4, remote_addr=b_mr.addr, rkey=b_mr.rkey))
    assert wc.status == "LOCAL_PROT_ERR", wc
    outcomes["bad lkey"] = (wc.status, took)

    for name, (status, took) in outcomes.items():
        print(f"{name}: {status} after {took / 1e12:.6f} s")
    return {name: status for name, (status, _) in outcomes.items()}
