"""The ionic driver's Ethernet datapath in C++ (models/guest/ionic_guest.h): the open queue pairs
handed over with their rings, indices, colours and buffers; frames in and out in batches
(send_many, recv_many) byte for byte; traffic runs from the seeded source checked on their way
back, in both fidelity modes, repeating exactly; the interrupts' credits returned; bad requests
refused by name."""
import collections

import pytest

from dpusim.drivers.ionic import IonicError
from dpusim.testing import run_ok
from dpusim.units import ms
from ionic_util import bring_up, frame, ionic_platform


def loopback(fidelity="tlp", **kw):
    return dict(ionic_platform({}, wires=[("ep0", "loopback")], **kw), fidelity=fidelity)


def test_batches_go_out_and_come_back_byte_for_byte_after_python_frames():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        # Python's own datapath first: its buffers are in flight when the C++ one takes over.
        await nic.send(frame(nic.mac, nic.mac, 100, fill=1))
        first = await nic.recv(1)
        sizes = [60, 61, 128, 1000, 1514, 1518] * 50  # 300 frames: more than a ring of 256
        sent = [frame(nic.mac, nic.mac, n, fill=k) for k, n in enumerate(sizes)]
        assert await nic.send_many(sent) == 300
        got = await nic.recv_many(300)
        # send() and recv() go through the C++ datapath once it has the queues.
        await nic.send(sent[7])
        again = await nic.recv(1)
        g = nic._guest()
        counts = tuple(g.counts(sim.platform, nic.fast))
        await nic.remove()  # the queues go with the LIF: the C++ datapath lets them go first
        return (first[0][1] == frame(nic.mac, nic.mac, 100, fill=1), [f for _, f in got] == sent,
                {q for q, _ in got}, again == [(0, sent[7])], counts, nic.fast)

    res = run_ok(scenario, loopback())
    assert res.result == (True, True, {0}, True, (301, 301), None)
    (detach,) = res.events("guest_detach")
    assert (detach["tx_frames"], detach["rx_frames"]) == (301, 301)
    (attach,) = res.events("guest_attach")
    assert (attach["path"], attach["queue_pairs"], attach["rx_buf_len"]) == ("guest.02:00.0", 1, 1518)
    # The queue pair's interrupt masks itself on delivery (mask_assert); the C++ NAPI returns the
    # credits with UNMASK, so each assertion latched meanwhile is replayed, and every delivery
    # reached the host as an MSI.
    intr = collections.Counter((e["intr"], e.get("cause") or e["outcome"]) for e in res.events("intr", path="ep0"))
    assert intr == {(0, "assert"): 10, (1, "coalesced"): 28, (1, "latched"): 25, (1, "replay"): 25}
    assert collections.Counter(e["data"] for e in res.events("msi", requester="02:00.0")) == {"0x31": 10, "0x32": 53}


@pytest.mark.parametrize("fidelity, elapsed_ps", [("tlp", 14773618998), ("lt", 14772884318)])
def test_a_traffic_run_checks_every_frame_and_repeats_exactly(fidelity, elapsed_ps):
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await nic.traffic(20_000, size=[(64, 7), (576, 4), (1500, 1)], dst=nic.mac, timeout_ps=ms(100))
        return r

    doc = dict(loopback(fidelity), outputs={"log": "summary", "vcd": False, "pcap": False})
    a, b = run_ok(scenario, doc), run_ok(scenario, doc)
    assert a.hash == b.hash
    r = a.result
    assert (r.ok, r.frames, r.sent, r.received, r.good, r.missing, r.corrupt, r.reordered) == (
        True, 20_000, 20_000, 20_000, 20_000, 0, 0, 0)
    assert r.elapsed_ps == elapsed_ps
    (done,) = a.events("traffic_done")
    assert (done["frames"], done["good"], done["bad"]) == (20_000, 20_000, 0)


def test_two_queue_pairs_share_the_receive_ring_without_drops():
    # rocm-ernic receives every frame on RX queue 0: the run keeps half its ring in flight per flow.
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        r = await nic.traffic(3_000, size=64, dst=nic.mac, timeout_ps=ms(100))
        return nic.nxqs, r.ok, r.good, r.missing

    res = run_ok(scenario, dict(ionic_platform({}, wires=[("ep0", "loopback")], cpus=2)))
    assert res.result == (2, True, 3_000, 0)
    assert res.events("frame_drop") == []


def test_bad_requests_are_refused_by_name():
    async def scenario(sim):
        pci, (nic,) = await bring_up(sim, open_=False)
        errors = []
        with pytest.raises(IonicError) as e:
            nic.fast_path()
        errors.append(str(e.value))
        await nic.open()
        for call in (lambda: nic.send_many([frame(nic.mac, nic.mac, 60)], qp=1),
                     lambda: nic.send_many([frame(nic.mac, nic.mac, 1519)]),
                     lambda: nic.send_many([b"\x00" * 13]),
                     lambda: nic.traffic(0, dst=nic.mac),
                     lambda: nic.traffic(10, size=1600, dst=nic.mac)):
            with pytest.raises(ValueError) as e:
                await call()
            errors.append(str(e.value))
        return errors

    assert run_ok(scenario, loopback()).result == [
        "02:00.0: no queue is open to hand to the C++ datapath (open() first)",
        "02:00.0: queue pair 1 is not open (1 are)",
        "a frame of 1519 bytes is outside 14..1518",
        "a frame of 13 bytes is outside 14..1518",
        "a traffic run of 0 frames",
        "frame sizes 1600 outside 34..1518 bytes",
    ]
