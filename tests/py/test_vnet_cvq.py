"""The control virtqueue (virtio 1.2 §5.1.6.5; docs/vnet.md): what each class and command gets, with the
application's log lines; VQ_PAIRS_SET growing in the background and shrinking synchronously."""
import struct

from dpusim.drivers.virtio_regs import (VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_GUEST_OFFLOADS,
                                        VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_HASH_CONFIG,
                                        VIRTIO_NET_CTRL_MQ_RSS_CONFIG, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
                                        VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_VLAN)
from dpusim.testing import run_ok
from vnet_util import app_log, bring_up, cost, frame, msgs, vnet_platform, wait_mq_started


def test_classes_and_commands_are_acked_or_refused_as_the_app_does():
    cases = [
        (VIRTIO_NET_CTRL_RX, 0, b"\x01"), (VIRTIO_NET_CTRL_MAC, 1, bytes(6)), (VIRTIO_NET_CTRL_VLAN, 0, b"\x05\x00"),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, bytes(16)),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_HASH_CONFIG, bytes(16)),
        (VIRTIO_NET_CTRL_ANNOUNCE, 0, b""), (VIRTIO_NET_CTRL_GUEST_OFFLOADS, 0, bytes(8)), (7, 0, b""),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, struct.pack("<H", 0)),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, struct.pack("<H", 9)),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, b"\x04"),
        (VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, struct.pack("<H", 4)),
    ]

    async def scenario(sim):
        _, (net,) = await bring_up(sim, open_=False)
        await wait_mq_started(sim, 0, 4)
        return [await net.send_command(cls, cmd, data) for cls, cmd, data in cases]

    res = run_ok(scenario, vnet_platform())
    assert res.result == [True, True, True, False, False, False, False, False, False, False, False, True]
    worker = [(lv, m) for _, _, lv, m in app_log(res, "vnet.worker") if not m.startswith("ctrl_req received")
              and "work" not in m]
    tail = worker[worker.index(("info", "RX ctrl cmd: 0 (handled by backend)")):]
    assert tail == [
        ("info", "RX ctrl cmd: 0 (handled by backend)"),
        ("info", "MAC ctrl cmd: 1 (handled by backend)"),
        ("info", "VLAN ctrl cmd: 0 (handled by backend)"),
        ("warning", "Unsupported MQ cmd: 1"),
        ("warning", "Unsupported MQ cmd: 2"),
        ("warning", "Unsupported ctrl class: 3"),
        ("warning", "Unsupported ctrl class: 5"),
        ("warning", "Unsupported ctrl class: 7"),
        ("error", "Invalid num_qps: 0 (valid: 1-8)"),
        ("error", "Invalid num_qps: 9 (valid: 1-8)"),
        ("error", "MQ_VQ_PAIRS_SET: data too short (1 bytes)"),
        ("info", "MQ_VQ_PAIRS_SET: 4 -> 4 QPs"),
        ("debug", "num_qps unchanged"),
    ]


def test_shrinking_stops_queue_pairs_before_the_reply_and_growing_answers_first():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        await wait_mq_started(sim, 0, 4)
        t0 = sim.now
        assert await net.set_queue_pairs(2)
        t_shrunk = sim.now
        assert await net.set_queue_pairs(3)
        t_grown = sim.now
        await wait_mq_started(sim, 0, 3)
        f = frame(net.mac, 9)
        await net.send(f, qp=2)
        ((qp, back),) = await net.recv(1)
        assert back == f
        return t0, t_shrunk, t_grown

    res = run_ok(scenario, vnet_platform())
    t0, t_shrunk, t_grown = res.result
    worker = msgs(res, thread="vnet.worker")
    i = worker.index("MQ_VQ_PAIRS_SET: 4 -> 2 QPs")
    assert worker[i + 1:i + 3] == ["Stopping QPs 2-3 (VQs 4-7)", "Successfully stopped QPs 2-3"]
    stopped = [e for e in res.events("vq_state", path="ep0", state="STOPPED") if e["time_ps"] <= t_shrunk]
    assert [e["vq"] for e in stopped] == [4, 5, 6, 7]
    # The reply comes after the stops: the ack lands after the last one.
    ack = res.events("virtio_net", step="ctrl_ack")[1]
    assert ack["time_ps"] > stopped[-1]["time_ps"]
    assert stopped[-1]["time_ps"] - stopped[0]["time_ps"] == 3 * cost("vnet.work.vq_stop_ps")
    # Growing 2 -> 3: the ack precedes the start of queue pair 2.
    j = worker.index("MQ_VQ_PAIRS_SET: 2 -> 3 QPs")
    assert worker[j + 1] == "MQ start QPs 2 -> 3 spawned as joinable thread (parallel execution)"
    grow_ack = res.events("virtio_net", step="ctrl_ack")[2]["time_ps"]
    enabled = res.events("vq_state", path="ep0", vq=5, state="ENABLED")[-1]["time_ps"]
    assert grow_ack < enabled
