"""The firmware datapath (vnet_endpoint.h): split rings in host memory by DMA, frames on wires
to peers, virtio_net_hdr_v1 and mergeable buffers, the bounded receive FIFO with counted drops
and the frame ledger, MSI-X per queue with masking, and a malformed ring."""
import os
import runpy

import pytest

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, virtio_net_devices
from dpusim.testing import run_ok
from dpusim.vnet import vnet
from vnet_util import bring_up, frame, vnet_platform, wait_mq_started

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAD = runpy.run_path(os.path.join(ROOT, "scenarios", "malformed_ring.py"))  # the scenario's helpers


def ledger(res):
    (e,) = res.events("frame_ledger")
    return {k: e[k] for k in ("sent", "received", "dropped", "in_flight", "drops")}


def test_frames_both_ways_with_a_python_peer():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await wait_mq_started(sim, 0, 4)
        out_frame = frame(net.mac, 1, 200)
        await net.send(out_frame, qp=3)
        got = await sim.net.recv(0)
        in_frame = frame(b"\x02\x00\x00\x00\x00\x09", 2, 300)
        sim.net.send(0, in_frame)
        ((qp, back),) = await net.recv(1)
        return got.data == out_frame, back == in_frame, vnet(sim).counters(0)

    res = run_ok(scenario, vnet_platform(peer="python"))
    same_out, same_in, counters = res.result
    assert same_out and same_in
    assert counters["tx_frames"] == 1 and counters["rx_frames"] == 1
    assert [(e["from"], e["to"], e["len"]) for e in res.events("frame")] == [("ep0", "python", 214), ("python", "ep0", 314)]
    assert ledger(res) == {"sent": 2, "received": 2, "dropped": 0, "in_flight": 0, "drops": ""}


def test_two_endpoints_on_one_wire():
    async def scenario(sim):
        _, (a, b) = await bring_up(sim)
        await wait_mq_started(sim, 1, 4)
        f = frame(a.mac, 3, 100)
        await a.send(f, qp=1)
        ((_, got),) = await b.recv(1)
        return got == f

    doc = vnet_platform(num_ep=2, peer=None)
    doc["wires"] = [{"a": "ep0", "b": "ep1"}]
    res = run_ok(scenario, doc)
    assert res.result
    (e,) = res.events("frame")
    assert (e["from"], e["to"], e["path"]) == ("ep0", "ep1", "wire0")


def test_receive_fifo_is_bounded_and_overflow_is_counted():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (dev,) = virtio_net_devices(pci)
        early = frame(b"\x02\x00\x00\x00\x00\x09", 0)
        sim.net.send(0, early)                    # before the receive queue exists
        net = await VirtioNet(sim, pci, dev).probe()
        await sim.sleep(10_000_000)
        frames = [frame(b"\x02\x00\x00\x00\x00\x09", k) for k in range(10)]
        for f in frames:
            sim.net.send(0, f)
        await sim.sleep(10_000_000)               # no buffers posted yet: 4 wait, 6 dropped
        counters = vnet(sim).counters(0)
        await net.open()
        got = await net.recv(4)
        return counters, [f for _, f in got] == frames[:4]

    res = run_ok(scenario, vnet_platform(cpus=1, peer="python", timing={"vnet.dp.rx_fifo_frames": 4}))
    counters, in_order = res.result
    assert counters["rx_fifo_drops"] == 6 and counters["rx_no_queue"] == 1
    assert in_order
    assert ledger(res) == {"sent": 11, "received": 4, "dropped": 7, "in_flight": 0,
                           "drops": "rx_fifo_full=6,rx_queue_not_ready=1"}


@pytest.mark.parametrize("mrg,mtu,size,buffers", [(True, 9000, 4000, 3), (False, 9000, 4000, 1),
                                                  (False, 1500, 4000, None)])
def test_mergeable_receive_buffers(mrg, mtu, size, buffers):
    async def scenario(sim):
        _, (net,) = await bring_up(sim)  # one pair: enabled with the engine, before the CVQ reply
        f = frame(b"\x02\x00\x00\x00\x00\x09", 7, size - 14)
        sim.net.send(0, f)
        if buffers is None:
            await sim.sleep(10_000_000)
            return net.has(15), None
        ((_, got),) = await net.recv(1)
        return net.has(15), got == f

    res = run_ok(scenario, vnet_platform(cpus=1, peer="python", mtu=mtu, mrg_rxbuf=mrg))
    negotiated, intact = res.result
    assert negotiated == mrg
    if buffers is None:
        (drop,) = res.events("rx_drop")
        assert drop["reason"] == "rx_buffer_too_small" and drop["needed"] == 12 + size
    else:
        assert intact
        (rx,) = [e for e in res.events("vq_frame") if e["dir"] == "rx"]
        assert rx["buffers"] == buffers


def test_a_masked_queue_vector_leaves_its_pba_bit_pending_until_unmasked():
    async def scenario(sim):
        pci, (net,) = await bring_up(sim)
        await pci.mask_irq(net.dev, 1)            # receive queue 0's vector
        mark = sim.host.msi_mark()
        sim.net.send(0, frame(b"\x02\x00\x00\x00\x00\x09", 1))
        await sim.sleep(5_000_000)
        pba = await sim.host.mem_read64(net.caps[2][0] - 0x4000 + 0x3000)
        masked = [m.data for m in sim.host.msis[mark:]]
        await pci.request_irq(net.dev, 1)
        msi = await sim.host.wait_msi(data=net.vectors[1], since=mark, timeout_ps=1_000_000)
        pba_after = await sim.host.mem_read64(net.caps[2][0] - 0x4000 + 0x3000)
        return pba, masked, msi.data == net.vectors[1], pba_after

    res = run_ok(scenario, vnet_platform(cpus=1, peer="python"))
    assert res.result == (0b10, [], True, 0)
    (irq,) = [e for e in res.events("vq_interrupt") if e["vq"] == 0]
    assert irq["outcome"] == "pending"


@pytest.mark.parametrize("kind,reason", [
    ("zero_length", "VQ1: descriptor 2 has length 0"),
    ("loop", "VQ1: descriptor loop: chain from 2 longer than the queue size 1024"),
    ("index_out_of_range", "VQ1: descriptor 2 chains to 1029, out of range (queue size 1024)"),
    ("outside_memory", "VQ1: buffer read completed UR (address outside host memory)"),
])
def test_a_malformed_ring_sets_needs_reset_and_raises_the_config_interrupt(kind, reason):
    async def scenario(sim):
        if kind == "outside_memory":
            sim.expect_violation("dma_outside_memory", 1)
        pci = await pci_host_probe(sim)
        (dev,) = virtio_net_devices(pci)
        net = await BAD['bring_up'](sim, pci, dev)
        status, msi = await BAD['break_ring'](sim, net, kind)
        await net.send(frame(net.mac, 5), qp=0)   # ignored: the device stopped its queues
        await sim.sleep(1_000_000)
        return status, msi.data == net.vectors[0], await net.get_status()

    res = run_ok(scenario, BAD['PLATFORM'])
    assert res.result == (0x4F, True, 0x4F)
    (e,) = res.events("device_needs_reset")
    assert (e["reason"], e["status"], e["config_vector"], e["msix"]) == (reason, "0x4f", 0, "sent")
    assert res.events("doorbell", vq=1)[-1]["ignored"] is True


def test_a_queue_size_of_zero_is_a_device_error_not_a_crash():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (dev,) = virtio_net_devices(pci)
        net = VirtioNet(sim, pci, dev)
        # A driver that shrinks queue 2 to 0 entries after setting it up: the MQ start takes
        # that size from the shadow, and the firmware finds it when the queue is enabled.
        orig = net.setup_vq

        async def setup_vq(index, num_queues, vector):
            vq = await orig(index, num_queues, vector)
            if index == 2:
                await net.w16(0x16, 2)
                await net.w16(0x18, 0)
            return vq

        net.setup_vq = setup_vq
        await net.probe()
        await sim.wait_event("device_needs_reset", ep=0)
        return await net.get_status()

    res = run_ok(scenario, vnet_platform(cpus=2))
    assert res.result == 0x4F
    (e,) = res.events("device_needs_reset")
    assert e["reason"] == "VQ2: queue size 0 is not a power of 2 in 1..32768"
