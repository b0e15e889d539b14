"""The application's live update (vnet_pci_dev_lu.c; the DOCA guide §7.9): a standby process
started beside the active restores its devices, takes its engines and then its TLP channel,
and becomes the next active. The protocol's messages in order, the export's contents, the
lock (one standby), the roles' signals, each log line as the application prints it."""
import pytest

from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.units import ms
from dpusim.vnet import vnet
from vnet_util import bring_up, msgs, vnet_platform

OPTIONS = {"num-ep": 2, "hotplug-mode": 0, "max-queue-pairs": 2, "queue-size": 256}
ACTIVE = vnet_platform(num_ep=2, max_queue_pairs=2, queue_size=256, lu_mode="active",
                       timing={"cpl_timeout_ps": 10_000 * ms(1)})
STANDBY = {**OPTIONS, "lu-mode": "standby"}

# The device LU then the channel LU, as the two ends see them (lu_msg: each message's arrival).
HANDOVER_MSGS = [("CMD_FD", 1, 2), ("DEV_READY", 2, 1), ("DEV_GO", 1, 2), ("DEV_GO", 1, 2), ("DEV_ACK", 2, 1),
                 ("CH_EXPORT", 1, 2), ("CH_BEGIN", 2, 1), ("CH_BEGIN_ACK", 1, 2), ("CH_END", 2, 1),
                 ("CH_END_ACK", 1, 2)]

# Every live-update line of each process, in order (two endpoints).
ACTIVE_LINES = [
    "SIGUSR1 received -- exiting progress loop for handover",
    "LU state: INITIALIZED -> PRE_COPY",
    "LU state: PRE_COPY -> STOPPED",
    "LU state: STOPPED -> MIGRATED",
    "LU handover complete -- process is idle (pid=1), Ctrl+C to exit",
]
STANDBY_LINES = [
    "Restore early 1/4: connecting to active",
    "Restore early 2/4: waiting for cmd_fd from active",
    "Restore early 3/4: opening SHM",
    "Restore early 4/4: reconstructing doca_dev",
    "LU standby: config overridden from SHM (qps=2, qs=256, mtu=1500, mac=52:54:00:12:34:56)",
    "LU standby: skipping TLP channel setup (channel LU handled after device LU)",
    "VNet offload engine created from export blob (24 bytes)",
    "VNet offload engine imported: MTU, MAC, num_queues already set from export blob",
    "VNet offload engine created from export blob (24 bytes)",
    "VNet offload engine imported: MTU, MAC, num_queues already set from export blob",
    "LU replay: device 0 VQs prepared (engine not yet enabled)",
    "LU replay: device 1 VQs prepared (engine not yet enabled)",
    "LU replay complete: 2 devices restored",
    "LU phase2: all 2 engines enabled -- traffic restored",
    "Transitioning from standby to active mode (chainable LU)",
    "LU restore complete -- process is active (pid=2)",
]
LU_WORDS = ("LU", "Restore early", "SIGUSR1", "offload engine created from export", "offload engine imported",
            "Transitioning", "standby")


def lu_lines(res, thread):
    return [m for m in msgs(res, thread) if any(w in m for w in LU_WORDS)]


def lu_msgs(res):
    return [(e["msg"], e["from"], e["to"]) for e in res.events("lu_msg")]


async def steady(sim):
    """Both endpoints probed, opened, with both queue pairs running."""
    pci, nets = await bring_up(sim)
    while any(vnet(sim).vq_state(i, 3) != "ENABLED" for i in range(len(nets))):
        await sim.sleep(ms(10))
    return nets


def test_live_update_scenario_accounts_for_every_frame_and_replays(tmp_path):
    from test_vnet_scenarios import twice

    res = twice("live_update", tmp_path)
    assert res.result["dropped"] == {"rx_queue_not_ready": 138}
    before, during, after = res.result["status"]
    assert before == after == [0x0F] * 4 and during == 0x0F
    # The device status the host reads never changed: no status write, no reset, after bring-up.
    bringup_end = res.events("lu_process", op="waiting")[0]["time_ps"]
    assert [e for e in res.events("log") if "STATUS CHANGE" in e["msg"] and e["time_ps"] > bringup_end] == []
    assert [m for m, _, _ in lu_msgs(res)] == (["CMD_FD", "DEV_READY"] + ["DEV_GO"] * 4 +
                                              ["DEV_ACK", "CH_EXPORT", "CH_BEGIN", "CH_BEGIN_ACK", "CH_END",
                                               "CH_END_ACK"])
    # The status read issued during the handover waited in PE1's queue and says so.
    (wait,) = res.events("lu_tlp_wait")
    assert wait["type"] == "MRd" and wait["wait_ps"] > 1000 * ms(1)


def test_handover_messages_lines_and_roles_in_order():
    async def scenario(sim):
        nets = await steady(sim)
        assert vnet(sim).processes() == [
            {"pid": 1, "mode": "active", "state": "INITIALIZED", "alive": True, "serving": True}]
        standby = await sim.start_standby(STANDBY)
        await standby.waiting()
        assert (await sim.signal("SIGUSR1")) == "handover"
        assert (await sim.signal("SIGUSR1")) == "ignored"  # a handover is under way
        await standby.restored()
        # The restored standby serves the host: a config read and the device status.
        assert await nets[0].get_status() == 0x0F
        assert vnet(sim).processes() == [
            {"pid": 1, "mode": "none", "state": "MIGRATED", "alive": True, "serving": False},
            {"pid": 2, "mode": "active", "state": "INITIALIZED", "alive": True, "serving": True}]

    res = run_ok(scenario, ACTIVE)
    assert lu_msgs(res) == HANDOVER_MSGS
    assert res.events("lu_msg", msg="CMD_FD")[0]["value"] == ord("F")
    assert [e["value"] for e in res.events("lu_msg", msg="CH_END")] == [7]
    assert lu_lines(res, "vnet.main") == ACTIVE_LINES
    assert lu_lines(res, "vnet2.main") == STANDBY_LINES
    # Each step after its predecessor: the active stops each device before its DEV_GO, the
    # standby enables as they come, the channel moves after DEV_ACK.
    ops = [(e["time_ps"], e["op"], e.get("pid")) for e in res.events("lu_channel")]
    assert [(op, pid) for _, op, pid in ops] == [("yield_primary", 1), ("primary", 2), ("destroyed", 1)]
    ack = res.events("lu_msg", msg="DEV_ACK")[0]["time_ps"]
    assert ops[0][0] > ack
    stops = [e["time_ps"] for e in res.events("engine", op="stop") if e["time_ps"] < ack]  # (then the run's end)
    gos = [e["time_ps"] for e in res.events("lu_msg", msg="DEV_GO")]
    assert len(stops) == 2 and stops[0] < gos[0] and stops[1] < gos[1]


def test_export_holds_each_devices_state_and_nothing_else():
    async def scenario(sim):
        seen = {}
        nets = await steady(sim)
        standby = await sim.start_standby(STANDBY)
        await standby.waiting()
        assert vnet(sim).lu_shm() is None  # the active unlinked any stale segment
        await sim.signal("SIGUSR1")
        await sim.wait_event("lu_export")
        seen["shm"] = vnet(sim).lu_shm()
        seen["vqs"] = [[(vq.index, vq.size, vq.desc, vq.avail, vq.used) for vq in n.vqs + [n.cvq]] for n in nets]
        seen["features"] = [n.features for n in nets]
        await standby.restored()
        seen["after"] = vnet(sim).lu_shm()  # the standby unlinked it after DEV_ACK
        return seen

    seen = run_ok(scenario, ACTIVE).result
    shm = seen["shm"]
    assert seen["after"] is None
    # Exported: the header, the hot-plug additions and per device these fields; not the config
    # MSI-X vector, selects, link status, BDF table, hot-plug or MSI retry state, ACG credits.
    assert sorted(shm) == ["base_mac", "bytes", "devices", "populated_slots", "presence_bitmap", "state"]
    assert sorted(shm["devices"][0]) == ["active_qps", "blob_bytes", "features", "mac", "magic", "max_qps", "mq",
                                         "mtu", "queue_size", "vhca_id", "vqs"]
    assert (shm["state"], shm["populated_slots"], shm["presence_bitmap"], shm["base_mac"]) == \
        (1, 2, 0b11, "52:54:00:12:34:56")
    for i, d in enumerate(shm["devices"]):
        assert (d["magic"], d["vhca_id"], d["mac"], d["mtu"], d["max_qps"], d["active_qps"], d["queue_size"],
                d["mq"], d["blob_bytes"]) == (0x564E4554, 0x100 + i, f"52:54:00:12:34:{0x56 + i:02x}", 1500, 2, 2,
                                              256, True, 24)
        # The features as the application latched them: the low word only (Linux's write order).
        assert d["features"] == seen["features"][i] & 0xFFFFFFFF
        # Every VQ: the shadow the driver programmed (QP0, QP1, then the CVQ), enabled, with the
        # configuration MSI-X vector of each queue.
        vqs = [(n, size, desc, driver, device) for n, size, _msix, enabled, desc, driver, device in d["vqs"]
               if enabled]
        assert vqs == [tuple(v) for v in seen["vqs"][i]]
        assert [v[2] for v in d["vqs"][:5]] == [1, 2, 3, 4, 0xFFFF]


def test_lock_refuses_a_second_standby_and_the_first_still_restores():
    async def scenario(sim):
        await steady(sim)
        first = await sim.start_standby(STANDBY)
        await first.waiting()
        second = await sim.start_standby(STANDBY)
        gone = await second.exited()
        assert gone["reason"] == "lock held by pid 2"
        await sim.signal("SIGUSR1")
        await first.restored()
        assert [p["alive"] for p in vnet(sim).processes()] == [True, True, False]

    res = run_ok(scenario, ACTIVE)
    assert msgs(res, "vnet3.main", "error") == ["Another standby is already waiting; only one standby allowed"]
    assert lu_lines(res, "vnet2.main") == STANDBY_LINES


def test_sigusr1_without_a_handler_kills_and_bad_requests_are_refused():
    async def scenario(sim):
        await bring_up(sim, open_=False)
        with pytest.raises(ValueError, match="signal 'SIGHUP': only SIGUSR1"):
            await sim.signal("SIGHUP")
        with pytest.raises(ValueError, match="lu-mode 'standby', not 'none'"):
            await sim.start_standby(OPTIONS)
        with pytest.raises(ValueError, match="Invalid --lu-mode value: 'hot'"):
            await sim.start_standby({**OPTIONS, "lu-mode": "hot"})
        # lu typed on stdin stays an unknown command.
        result = await sim.command("lu")
        assert (result.outcome, result.log) == (
            "REJECTED", (("vnet.main", "error", "Unknown command. Usage: plug <idx> | unplug <idx> | speed <idx> <mbps>"),))
        assert (await sim.signal("SIGUSR1")) == "killed"
        with pytest.raises(ValueError, match="process 1 has exited"):
            await sim.signal("SIGUSR1")

    res = run_ok(scenario, vnet_platform(num_ep=1))
    (e,) = res.events("lu_process", op="exit")
    assert e["reason"] == "killed by SIGUSR1 (no handler in lu-mode none)"


def test_a_standby_in_the_platform_document_is_refused():
    res = run(lambda sim: None, vnet_platform(num_ep=1, lu_mode="standby"))
    assert res.doc_error == ("$.topology.options.lu-mode: 'standby' needs an active process to restore from: run "
                             "the platform's process as 'active' and start the standby from the scenario "
                             "(sim.start_standby)")
