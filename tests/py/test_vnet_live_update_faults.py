"""Live-update failures (vnet_pci_dev_lu.c; the DOCA guide §7.9), each placed by a fault point
(dpusim.vnet.Vnet.lu_fault) or by the standby's options, with the application's lines on both
sides and the outcome: the device LU is not rolled back once the switchover started (the active
cleans up and exits), the channel LU is (the active reclaims its TLP channel)."""
import pytest

from dpusim.testing import run_ok
from dpusim.units import ms, s
from dpusim.vnet import vnet
from test_vnet_live_update import ACTIVE, OPTIONS, STANDBY, steady
from vnet_util import msgs

ROLLED_BACK = "Channel LU: standby reports failure, rolling back"
POST_STOP = "Channel LU active: post-stop send/recv failed, rolling back"


def errors(res, pid):
    return msgs(res, "vnet.main" if pid == 1 else f"vnet{pid}.main", "error")


def exits(res):
    return {e["pid"]: (e["reason"], e["time_ps"]) for e in res.events("lu_process", op="exit")}


def handover_with(fault=None, standby=STANDBY, wait="restored", **rule):
    """A scenario: bring-up, a standby, the fault, SIGUSR1, then until `wait` of the standby
    ("restored" or "exited") or the active's exit ("active_exited"); it returns the device status
    read after a restore and the processes."""

    async def scenario(sim):
        nets = await steady(sim)
        sb = await sim.start_standby(standby)
        await sb.waiting()
        if fault:
            vnet(sim).lu_fault(fault, **rule)
        assert (await sim.signal("SIGUSR1")) == "handover"
        if wait == "active_exited":
            await sim.wait_event("lu_process", pid=1, op="exit")
        else:
            await getattr(sb, wait)()
        status = await nets[0].get_status() if wait == "restored" else None
        return {"status": status, "procs": vnet(sim).processes()}

    return scenario


def test_channel_nack_before_the_stop_rolls_back_to_the_active():
    res = run_ok(handover_with("standby.ch_create"), ACTIVE)
    assert errors(res, 2) == ["Channel LU standby: secondary channel creation failed: DOCA_ERROR_DRIVER"]
    assert errors(res, 1) == [ROLLED_BACK, "Channel LU handover failed: DOCA_ERROR_ABORTED (device LU succeeded)"]
    assert [e["msg"] for e in res.events("lu_msg")][-2:] == ["CH_EXPORT", "NACK"]
    assert [(e["op"], e["pid"]) for e in res.events("lu_channel")] == [("reclaimed", 1)]
    assert res.result["status"] == 0x0F  # served by the old active again
    serving = [(p["pid"], p["serving"], p["alive"]) for p in res.result["procs"]]
    assert serving == [(1, True, True), (2, False, True)]


@pytest.mark.parametrize("length", [0, 1 << 20 | 1, 5])
def test_an_export_length_out_of_bounds_or_not_the_payloads_is_refused(length):
    """CH_EXPORT's leading length must be 1..1 MiB and the payload's: the standby NACKs the
    export before the active stopped its channel, and the active keeps serving."""
    res = run_ok(handover_with("msg.CH_EXPORT", action="length", value=length), ACTIVE)
    assert errors(res, 2) == [f"Channel LU standby: invalid export length {length} (1..1048576)"]
    assert errors(res, 1) == [ROLLED_BACK, "Channel LU handover failed: DOCA_ERROR_ABORTED (device LU succeeded)"]
    (export,) = res.events("lu_msg", msg="CH_EXPORT")
    assert export["bytes"] > 5  # the descriptor is there; only its length lies
    assert [e["msg"] for e in res.events("lu_msg")][-2:] == ["CH_EXPORT", "NACK"]
    assert res.result["status"] == 0x0F


def test_channel_end_with_status_0_after_the_stop_rolls_back():
    res = run_ok(handover_with("standby.ch_apply"), ACTIVE)
    assert errors(res, 2) == ["Channel LU standby: applying the channel state failed"]
    assert errors(res, 1) == [ROLLED_BACK, "Channel LU handover failed: DOCA_ERROR_ABORTED (device LU succeeded)"]
    (end,) = res.events("lu_msg", msg="CH_END")
    assert end["bytes"] == 5
    assert [(e["op"], e["pid"]) for e in res.events("lu_channel")] == [("yield_primary", 1), ("reclaimed", 1)]


def test_a_broken_socket_after_the_stop_rolls_back():
    res = run_ok(handover_with("msg.CH_END", action="close"), ACTIVE)
    assert errors(res, 1) == [POST_STOP, "Channel LU handover failed: DOCA_ERROR_IO_FAILED (device LU succeeded)"]
    assert [(e["op"], e["pid"]) for e in res.events("lu_channel")] == [
        ("yield_primary", 1), ("primary", 2), ("reclaimed", 1)]


def test_a_lost_ch_end_ack_leaves_the_standby_primary():
    res = run_ok(handover_with("msg.CH_END_ACK", action="drop"), ACTIVE)
    # The active closed its end after writing CH_END_ACK: the standby reads end of file
    # instead, and continues as primary.
    (end,) = res.events("lu_msg", msg="CH_END")
    (active,) = res.events("lu_process", op="active")
    assert res.events("lu_msg", msg="CH_END_ACK") == []
    assert 0 < active["time_ps"] - end["time_ps"] < ms(1)
    assert [(p["pid"], p["serving"]) for p in res.result["procs"]] == [(1, False), (2, True)]
    assert errors(res, 1) == errors(res, 2) == []


def test_a_lost_ready_signal_times_out_and_is_not_rolled_back():
    res = run_ok(handover_with("msg.DEV_READY", action="drop", wait="active_exited"), ACTIVE)
    assert errors(res, 1) == ["Timed out waiting for standby ready signal", "LU handover failed: DOCA_ERROR_TIME_OUT"]
    # The wait began when the cmd_fd was sent; the cleanup follows it.
    (fd,) = res.events("lu_msg", msg="CMD_FD")
    assert s(300) < exits(res)[1][1] - fd["time_ps"] < s(301)
    assert exits(res)[1][0] == "LU handover failed"


def test_an_invalid_ready_signal_fails_the_handover():
    res = run_ok(handover_with("msg.DEV_READY", action="corrupt", value=7, wait="active_exited"), ACTIVE)
    assert errors(res, 1) == ["Invalid ready signal: got 7 (expected DEV_READY=1)",
                              "LU handover failed: DOCA_ERROR_INVALID_VALUE"]


def test_a_failed_enable_in_phase_2_leaves_partial_state():
    res = run_ok(handover_with("standby.enable", wait="exited"), ACTIVE)
    assert errors(res, 2) == [
        "LU phase2: enable failed -- 2/2 threads spawned, devices 0..1 received DEV_GO. No fallback, partial state.",
        "  device 0: FAILED", "  device 1: OK", "LU restore failed: DOCA_ERROR_DRIVER"]
    assert exits(res)[2][0] == "LU phase2 failed"


def test_a_standby_in_hotplug_mode_finds_no_device():
    res = run_ok(handover_with(standby={**STANDBY, "hotplug-mode": 1}, wait="exited"), ACTIVE)
    assert errors(res, 2) == ["LU replay: virtio_device is NULL for device 0"]
    assert "LU replay complete: 2 devices restored" not in msgs(res, "vnet2.main")


def test_a_standby_with_fewer_endpoints_finds_no_representor():
    res = run_ok(handover_with(standby={**STANDBY, "num-ep": 1}, wait="exited"), ACTIVE)
    assert msgs(res, "vnet2.main", "warning") == ["LU: no existing rep matched vhca_id=0x101 (found 1 reps)"]


def test_sigusr1_with_no_standby_fails_after_the_accept_times_out():
    async def scenario(sim):
        await steady(sim)
        t0 = sim.now
        assert (await sim.signal("SIGUSR1")) == "handover"
        gone = await sim.wait_event("lu_process", pid=1, op="exit")
        return gone["time_ps"] - t0

    res = run_ok(scenario, ACTIVE)
    assert errors(res, 1) == ["LU handover failed: DOCA_ERROR_TIME_OUT"]
    assert s(300) < res.result < s(301)


def test_a_standby_never_triggered_times_out_and_the_next_one_connects():
    async def scenario(sim):
        await steady(sim)
        idle = await sim.start_standby(STANDBY)
        waiting = (await idle.waiting())["time_ps"]
        gone = await idle.exited()
        nxt = await sim.start_standby(STANDBY)
        await nxt.waiting()
        await sim.signal("SIGUSR1")
        await nxt.restored()
        return gone["time_ps"] - waiting

    res = run_ok(scenario, ACTIVE)
    assert res.result == s(300)
    assert errors(res, 2) == ["Timed out waiting for LU trigger from active"]
    assert "LU restore complete -- process is active (pid=3)" in msgs(res, "vnet3.main")


def test_unknown_fault_points_and_actions_are_refused():
    async def scenario(sim):
        with pytest.raises(ValueError, match="no live-update fault point 'standby.nope'"):
            vnet(sim).lu_fault("standby.nope")
        with pytest.raises(ValueError, match="fault point 'msg.DEV_GO' takes the action drop, corrupt or close, not 'fail'"):
            vnet(sim).lu_fault("msg.DEV_GO")
        with pytest.raises(ValueError, match="fault point 'msg.DEV_GO' takes the action drop, corrupt or close, not 'length'"):
            vnet(sim).lu_fault("msg.DEV_GO", action="length")
        with pytest.raises(ValueError, match="fault point 'msg.CH_EXPORT' takes the action drop, corrupt, close or length"):
            vnet(sim).lu_fault("msg.CH_EXPORT")
        await sim.sleep(ms(1))

    run_ok(scenario, ACTIVE)


def test_options_refused_for_a_standby_are_the_applications():
    async def scenario(sim):
        import pytest

        with pytest.raises(ValueError, match="MTU must be between 68 and 9000"):
            await sim.start_standby({**OPTIONS, "lu-mode": "standby", "mtu": 10})
        await sim.sleep(ms(1))

    run_ok(scenario, ACTIVE)
