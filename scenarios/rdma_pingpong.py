"""RDMA between two ionic NICs on a mesh: RC SEND/RECV, RDMA WRITE and RDMA READ, both ways.

Each NIC's guest probes the Ethernet side, then the RDMA side (ionic_rdma.ko's order), creates
a CQ, an RC QP and two memory regions, and connects its QP to the other's (INIT, RTR with the
peer's QP number and a RoCE template addressed to the peer's IP, RTS). Each operation's
payload is checked byte for byte where it lands, and each work request's latency, from the
doorbell to the guest polling its completion, is printed in simulated time."""
from dpusim.drivers.ionic import probe_all
from dpusim.drivers.ionic_rdma import IonicRdma
from dpusim.drivers.pci import pci_host_probe

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "ip": "10.0.0.1"}, {"kind": "ionic", "ip": "10.0.0.2"}]},
    "mesh": ["ep0", "ep1"],
}
IPS = ("10.0.0.1", "10.0.0.2")


def pattern(seed, n):
    return bytes((seed * 37 + i * 11) & 0xFF for i in range(n))


async def timed(sim, rdma, cq, count, post):
    t0 = sim.now
    await post()
    wcs = await rdma.wait(cq, count)
    for wc in wcs:
        assert wc.status == "OK", wc
    return wcs, sim.now - t0


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nics = await probe_all(sim, pci)
    side = []
    for nic in nics:
        await nic.open()
        rdma = await IonicRdma(nic).probe()
        cq = await rdma.create_cq(64)
        qp = await rdma.create_qp(cq, cq)
        mr = await rdma.reg_mr(16384, pages=True)
        side.append((nic, rdma, cq, qp, mr))
    for i, (_, rdma, _, qp, _) in enumerate(side):
        peer = side[1 - i]
        await rdma.connect(qp, peer[3].id, dest_ip=IPS[1 - i])

    results = {}
    for i in (0, 1):
        nic, rdma, cq, qp, mr = side[i]
        pnic, prdma, pcq, pqp, pmr = side[1 - i]
        who = f"ep{i}->ep{1 - i}"

        # SEND/RECV: 1000 bytes into the peer's posted receive at offset 4096.
        data = pattern(i + 1, 1000)
        sim.host.write(mr.buf, data)
        await prdma.post_recv(pqp, [pmr.sge(4096, 2048)], wr_id=100 + i)
        wcs, lat = await timed(sim, rdma, cq, 1, lambda: rdma.post_send(qp, "SEND", [mr.sge(0, 1000)], wr_id=1))
        (recv,) = await prdma.wait(pcq, 1)
        assert (recv.status, recv.byte_len, recv.wr_id) == ("OK", 1000, 100 + i), recv
        assert sim.host.read(pmr.buf + 4096, 1000) == data, f"{who}: the SEND's payload differs"
        results[f"{who} SEND 1000 B"] = lat

        # RDMA WRITE: 6000 bytes across the peer's page boundaries at offset 2000.
        data = pattern(i + 3, 6000)
        sim.host.write(mr.buf, data)
        wcs, lat = await timed(sim, rdma, cq, 1, lambda: rdma.post_send(
            qp, "RDMA_WRITE", [mr.sge(0, 6000)], wr_id=2, remote_addr=pmr.addr + 2000, rkey=pmr.rkey))
        assert sim.host.read(pmr.buf + 2000, 6000) == data, f"{who}: the RDMA WRITE's payload differs"
        results[f"{who} RDMA_WRITE 6000 B"] = lat

        # RDMA READ: 3000 bytes of the peer's region into this one at offset 8192.
        data = pattern(i + 5, 3000)
        sim.host.write(pmr.buf + 12000, data)
        wcs, lat = await timed(sim, rdma, cq, 1, lambda: rdma.post_send(
            qp, "RDMA_READ", [mr.sge(8192, 3000)], wr_id=3, remote_addr=pmr.addr + 12000, rkey=pmr.rkey))
        assert sim.host.read(mr.buf + 8192, 3000) == data, f"{who}: the RDMA READ's payload differs"
        results[f"{who} RDMA_READ 3000 B"] = lat

    for name, lat in results.items():
        print(f"{name}: {lat / 1e6:.3f} us from doorbell to completion")
    return {k: v for k, v in results.items()}
