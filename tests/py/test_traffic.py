"""Traffic at scale through the C++ guest datapath (models/guest): net.traffic with a seeded
source and a checker, net.send_many and net.recv_many in batches, in both fidelities, with
the frame ledger holding at the end of every run."""
import pytest

from dpusim.testing import run_ok
from dpusim.units import ms, us
from vnet_util import bring_up, frame, vnet_platform


def traffic_run(frames, fidelity="tlp", cpus=1, **kw):
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        if fidelity != "tlp":
            await sim.set_fidelity(fidelity, device="ep0")
        return await net.traffic(frames, **kw)

    doc = vnet_platform(cpus=cpus)
    doc["outputs"] = {"log": "summary", "vcd": False}
    return run_ok(scenario, doc)


def test_every_frame_comes_back_checked_in_both_fidelities():
    for fidelity in ("tlp", "lt"):
        res = traffic_run(600, fidelity, size=(60, 1514))
        r = res.result
        assert (r.frames, r.sent, r.received, r.good, r.missing) == (600, 600, 600, 600, 0), fidelity
        assert (r.malformed, r.corrupt, r.duplicate, r.reordered) == (0, 0, 0, 0)
        assert 600 * 60 <= r.bytes_sent <= 600 * 1514 and r.ok
        assert 0 < r.latency_min_ps <= r.latency_mean_ps <= r.latency_max_ps
        (ledger,) = res.events("frame_ledger")
        assert ledger["sent"] == ledger["received"] == 1200 and ledger["dropped"] == 0
        (done,) = res.events("traffic_done")
        assert done["good"] == 600 and done["bad"] == 0


def test_a_run_repeats_exactly_and_its_stream_follows_the_seed():
    a = traffic_run(300, "lt", size=(60, 1514))
    b = traffic_run(300, "lt", size=(60, 1514))
    assert a.hash == b.hash and a.result == b.result

    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        return await net.traffic(300, size=(60, 1514))

    doc = vnet_platform(cpus=1)
    other = run_ok(scenario, doc, seed=2)
    assert other.result.bytes_sent != traffic_run(300, size=(60, 1514)).result.bytes_sent


def test_several_queue_pairs_each_a_flow_spread_by_receive_steering():
    res = traffic_run(2000, "lt", cpus=4, size=[(64, 7), (576, 4), (1500, 1)])
    r = res.result
    assert r.good == 2000 and r.reordered == 0 and r.missing == 0
    rx_queues = {e["vq"] for e in res.events("vq_state") if e["state"] == "ENABLED" and e["vq"] % 2 == 0}
    assert len(rx_queues) >= 4


def test_a_rate_paces_the_source():
    # 1000 frames at 100 000 frames/s in batches of 10: a batch every 100 us, the last at 9.9 ms.
    r = traffic_run(1000, "lt", rate_fps=100_000, batch=10).result
    assert r.good == 1000
    assert 9_900 * us(1) <= r.elapsed_ps <= 9_900 * us(1) + r.latency_max_ps
    assert r.latency_max_ps < us(100)  # far below capacity: no queueing


def test_send_many_and_recv_many_carry_frames_in_batches():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        sent = [frame(net.mac, k, 50 + 7 * k) for k in range(200)]
        assert await net.send_many(sent[:120]) == 120
        await net.send_many(sent[120:])
        got = await net.recv_many(200, timeout_ps=ms(5))
        # Python's own send and recv now go through the same datapath.
        await net.send(sent[0])
        (again,) = await net.recv(1)
        return sent, got, again

    res = run_ok(scenario, vnet_platform(cpus=1))
    sent, got, again = res.result
    assert [f for _, f in got] == sent  # one queue pair: in order, byte for byte
    assert again == (0, sent[0])
    assert [e["event"] for e in res.events() if e["event"].startswith("guest")] == ["guest_attach"]


def test_bad_requests_are_refused_with_the_reason():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        with pytest.raises(ValueError, match=r"frame sizes 20 outside 34..2036 bytes"):
            await net.traffic(10, size=20)
        with pytest.raises(ValueError, match=r"queue pair 5 is not in use \(1 of 8 are: set_queue_pairs\)"):
            await net.traffic(10, qps=[5])
        with pytest.raises(ValueError, match=r"queue pair 1 is not in use"):
            await net.send_many([bytes(60)], qp=1)
        with pytest.raises(ValueError, match=r"a frame of 3000 bytes is outside 14..2036"):
            await net.send_many([bytes(3000)])
        r = await net.traffic(10)
        assert r.good == 10
        # The device goes through a reset: the C++ datapath lets its queues go.
        await net.reset()
        assert net.fast is None

    run_ok(scenario, vnet_platform(cpus=1))
