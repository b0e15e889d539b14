"""The scenario runtime: tasks on simulated time, ordering, timeouts, deadlock detection,
waiting on events, and one platform per process."""
import asyncio

import pytest

from dpusim.run import run
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
