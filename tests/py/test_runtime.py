"""The scenario runtime: tasks on simulated time, ordering, timeouts, deadlock detection,
waiting on events, and one platform per process."""
import asyncio

import pytest

from dpusim.run import run
from dpusim.errors import PollTimeout
from dpusim.runtime import Deadlock, SimTimeout
from dpusim.testing import run_ok
from dpusim.units import ns, us

PLATFORM = {"topology": {"endpoints": 1}}


def test_sleep_and_gather_run_on_simulated_time():
    async def worker(sim, delay, tag):
        await sim.sleep(delay)
        return (tag, sim.now)

    async def scenario(sim):
        t0 = sim.now
        results = await sim.gather(worker(sim, us(3), "a"), worker(sim, us(1), "b"), worker(sim, 0, "c"))
        assert results == [("a", t0 + us(3)), ("b", t0 + us(1)), ("c", t0)]
        assert sim.now == t0 + us(3)

    run_ok(scenario, PLATFORM)


def test_requests_issued_at_one_instant_enter_the_fabric_in_spawn_order():
    async def scenario(sim):
        tasks = [sim.spawn(sim.host.config_read("00:00.0", off), f"t{off}") for off in (0x0, 0x8, 0x4, 0xC)]
        await sim.gather(*tasks)

    res = run_ok(scenario, PLATFORM)
    sent = res.events("tlp", path="link_host", dir="down", type="CfgRd0")
    assert [e["reg"] for e in sent] == ["0x0", "0x8", "0x4", "0xc"]
    assert len({e["time_ps"] for e in sent}) == 1  # all handed to the link at one instant
    assert [e["tx_ps"] for e in sent] == sorted(e["tx_ps"] for e in sent)


def test_timeout_raises_at_the_given_time_and_cancels_the_task():
    async def slow(sim):
        await sim.sleep(us(10))
        return "late"

    async def scenario(sim):
        t0 = sim.now
        with pytest.raises(SimTimeout):
            await sim.timeout(slow(sim), us(2))
        assert sim.now == t0 + us(2)
        assert await sim.timeout(slow(sim), us(20)) == "late"

    run_ok(scenario, PLATFORM)


def test_poll_reads_until_the_condition_and_returns_the_value_and_the_reads():
    async def scenario(sim):
        t0 = sim.now
        polled = await sim.poll(lambda: sim.now - t0, lambda waited: waited >= us(3), us(1), us(10), "3 us")
        return polled.value, polled.reads, sim.now - t0

    assert run_ok(scenario, PLATFORM).result == (us(3), 4, us(3))


def test_poll_timeout_raises_naming_what_it_waited_for_the_reads_and_the_last_value():
    async def scenario(sim):
        out = []
        for give_up in ("after_wait", "before_wait"):
            t0 = sim.now
            with pytest.raises(PollTimeout) as e:
                await sim.poll(lambda: 0x40, lambda v: v == 0, us(1), us(3), "device_status 0", give_up=give_up)
            out.append((str(e.value), e.value.reads, e.value.value, sim.now - t0))
        return out

    assert run_ok(scenario, PLATFORM).result == [
        # reads at 0, 1 and 2 us, each followed by a wait: the third wait reaches the timeout.
        ("device_status 0: not reached after 3 reads, 3000000 ps of a 3000000 ps timeout (last read 0x40)",
         3, 0x40, us(3)),
        # a read at 3 us too, then no wait.
        ("device_status 0: not reached after 4 reads, 3000000 ps of a 3000000 ps timeout (last read 0x40)",
         4, 0x40, us(3))]


def test_poll_counts_the_time_reads_take_or_only_its_waits():
    """A config read takes time on the fabric: a deadline counts it, a `timeout -= step` loop
    does not, so that loop reads once per step of the timeout."""
    async def scenario(sim):
        out = {}
        for counts in ("time", "waits"):
            reads = []

            async def read():
                t = sim.now
                cpl = await sim.host.config_read("00:00.0", 0)
                reads.append((t, sim.now))
                return cpl.value

            t0 = sim.now
            with pytest.raises(PollTimeout) as e:
                await sim.poll(read, lambda v: v == 0, ns(100), ns(1000), "nothing", counts=counts)
            out[counts] = (reads, e.value.reads, e.value.spent_ps, t0, sim.now)
        return out

    res = run_ok(scenario, PLATFORM).result
    reads, n, spent, t0, end = res["waits"]
    assert n == len(reads) == 10 and spent == ns(1000)
    assert [b - a for (a, _), (b, _) in zip(reads, reads[1:])] == [reads[0][1] - reads[0][0] + ns(100)] * 9
    reads, n, spent, t0, end = res["time"]
    trip = reads[0][1] - reads[0][0]
    assert trip > 0 and all(b - a == trip for a, b in reads)
    # Each read and its wait take trip + 100 ns; it gives up at the first wait that ends at or past 1 us.
    assert n == len(reads) == -(-ns(1000) // (trip + ns(100))) and spent == end - t0 == n * (trip + ns(100))


def test_poll_refuses_what_it_does_not_know():
    async def scenario(sim):
        errors = []
        for how in ({"counts": "jiffies"}, {"give_up": "never"}, {"step": 5}):
            with pytest.raises(ValueError) as e:
                await sim.poll(lambda: 1, bool, 1, 10, **how)
            errors.append(str(e.value))
        return errors

    assert run_ok(scenario, PLATFORM).result == ["poll counts='jiffies': one of time, waits",
                                                 "poll give_up='never': one of after_wait, before_wait",
                                                 "poll step= is what each wait counts: it needs counts='waits'"]


def test_a_scenario_waiting_on_nothing_is_a_deadlock_naming_the_tasks():
    async def scenario(sim):
        forever = sim.wait_event("never_logged")
        await sim.spawn(forever, "stuck_waiter")

    res = run(scenario, PLATFORM)
    assert "Deadlock" in res.error and "stuck_waiter" in res.error


def test_wait_event_returns_the_first_matching_event_at_its_time():
    async def scenario(sim):
        seen = sim.wait_event("tlp", path="link_host", type="CplD")
        cpl = await sim.host.config_read("00:00.0", 0)
        event = await seen
        assert event["rx_ps"] == cpl.time_ps
        return event

    res = run_ok(scenario, PLATFORM)
    assert res.result["type"] == "CplD" and res.result["status"] == "SC"


def test_an_exception_in_a_spawned_task_fails_the_run():
    async def bad(sim):
        await sim.sleep(ns(5))
        raise ValueError("driver bug")

    async def scenario(sim):
        sim.spawn(bad(sim), "bad_driver")
        await sim.sleep(us(1))

    res = run(scenario, PLATFORM)
    assert "ValueError: driver bug" in res.error


def test_asyncio_awaitables_are_refused_with_a_clear_error():
    async def scenario(sim):
        await asyncio.sleep(0)

    res = run(scenario, PLATFORM)
    assert "not a dpusim awaitable" in res.error


async def test_a_second_platform_in_one_process_is_a_clear_error(sim):
    import _dpusim

    with pytest.raises(RuntimeError, match="already built in this process"):
        _dpusim.platform.Platform('{"topology": {"endpoints": 1}}')


def test_set_cost_changes_the_named_operation_from_then_on():
    async def scenario(sim):
        a = await sim.host.config_read("00:00.0", 0)
        t1 = sim.now
        sim.set_cost("switch.traversal_ps", sim.cost("switch.traversal_ps") + ns(400))
        b = await sim.host.config_read("00:00.0", 0)
        return a.time_ps, t1, b.time_ps

    res = run_ok(scenario, PLATFORM)
    first, t1, second = res.result
    assert (second - t1) - first == ns(400)
    (override,) = res.events("timing_override")
    assert override["name"] == "switch.traversal_ps"


def test_results_do_not_depend_on_what_ran_before_in_the_parent():
    async def scenario(sim):
        await sim.host.config_read("00:00.0", 0)

    first = run_ok(scenario, PLATFORM).hash
    run_ok(scenario, {"topology": {"endpoints": 3}})
    assert run_ok(scenario, PLATFORM).hash == first


def test_systemc_reports_go_to_the_log_and_a_warning_fails_the_run(capfd):
    async def scenario(sim):
        sim.faults.systemc_report("info", "just saying")
        await sim.sleep(ns(1))
        sim.faults.systemc_report("warning", "something odd")
        await sim.sleep(ns(1))
        raise AssertionError("not reached: the warning ends the run")

    res = run(scenario, PLATFORM)
    assert res.failure.startswith("SystemC warning dpusim/injected: something odd")
    reports = res.events("sc_report")
    assert [(e["severity"], e["msg"]) for e in reports] == [("info", "just saying"), ("warning", "something odd")]
    out, err = capfd.readouterr()
    assert "something odd" not in out and "just saying" not in out
