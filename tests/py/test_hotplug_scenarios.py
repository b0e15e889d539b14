"""The hot-plug scenarios as tests: each passes, each run twice gives the same hash and the same
outputs, and each shows what its docstring says, at the times the profile gives."""
import json
import os

from dpusim import cli
from test_vnet_scenarios import ROOT, twice
from vcd import read_vcd
from vnet_util import MS, S, after_app_seconds, app_log, cost, first_time


def test_hotplug_plugs_probes_passes_traffic_unplugs_and_replugs(tmp_path):
    res = twice("hotplug", tmp_path)
    r = res.result
    assert r["frames"] == 8
    (ledger,) = res.events("frame_ledger")
    # 8 frames out and the same 8 back through the loopback.
    assert (ledger["sent"], ledger["received"], ledger["dropped"]) == (16, 16, 0)
    # Each plug's outcome is known once the worker has created the endpoint.
    creating = [t for t, p, _, m in app_log(res) if m == "Creating device for DSP[0]"]
    created = [t for t, p, _, m in app_log(res) if m == "Device created: VHCA ID=0x100"]
    assert [b - a for a, b in zip(creating, created)] == [cost("vnet.work.create_device_ps")] * 2
    assert (r["plug"], r["replug"]) == tuple(created)
    # The unplug: Power OFF from the host, then the destroy on the worker.
    off = first_time(res, "DSP[0] power off (DLActive=0) - triggering endpoint destroy")
    assert r["unplug"] < off < r["destroyed"]
    # The VCD shows the slot's life at the logged times; the view names signals it has.
    waves = read_vcd(tmp_path / "a" / "waves.vcd")
    pending = [(t, v) for t, v in waves["switch.dsp0.pending_unplug"] if t > 0]
    assert pending == [(first_time(res, "Initiating unplug for DSP[0] - waiting for host power off"), 1),
                       (r["destroyed"], 0)]
    dllla = [(t, v) for t, v in waves["switch.dsp0.dllla"] if t > 0]
    ons = [t for t, p, _, m in app_log(res) if m.startswith("Power ON (bit10: 1->0)")]
    assert dllla == [(ons[0], 1), (off, 0), (ons[1], 1)]
    assert waves["switch.acg_credits"][0] == (0, 16)
    view = [line for line in open(os.path.join(ROOT, "waveforms", "hotplug.gtkw")).read().splitlines()
            if line.startswith("SystemC.")]
    assert view and [n for n in view if n[len("SystemC."):].split("[")[0] not in waves] == []


def test_unplug_timeout_forces_the_removal_when_the_apps_clock_has_counted_30_s(tmp_path):
    res = twice("unplug_timeout", tmp_path)
    r = res.result
    # now.tv_sec - start.tv_sec >= 30 on whole seconds: 29 to 30 s after the unplug, at the
    # first main-loop iteration of the 30th second.
    assert r["forced"] == after_app_seconds(r["initiating"], 30)
    assert 29 * S < r["forced"] - r["initiating"] <= 30 * S
    assert first_time(res, "Forced VirtIO RESET on pf_index=0 (device_status=0)") == r["forced"]
    assert first_time(res, "DSP[0] forced unplug: delayed_destroy submitted") == r["forced"]
    # No MSI for the forced removal; PDS cleared and PDC set for a host that would look.
    assert not [e for e in res.events("msi", requester="01:00.0") if e["time_ps"] >= r["forced"]]
    assert (r["cfg_status"], r["slot_status"]) == ("UR", 0x0008)
    assert "dpusim: host ignores the unplug request on Slot(0) (scenario option)" in [
        e["msg"].split("pciehp: ")[1] for e in res.events("log", path="host.pciehp")]


def test_acg_exhaustion_retries_one_slot_with_the_credit_abandons_the_other_and_the_poll_finds_it(tmp_path):
    res = twice("acg_exhaustion", tmp_path)
    r = res.result
    assert r["retry"] == 2 * S + cost("vnet.main_loop_ps")
    scheduled = first_time(res, "DSP[1] plug: ACG exhausted, scheduling MSI retry")
    # Abandoned when the application's whole-second clock has counted 5 s since the first failure.
    assert r["abandoned"] == after_app_seconds(scheduled, 5)
    assert 4 * S < r["abandoned"] - scheduled <= 5 * S
    assert r["bound0"] < r["abandoned"] < r["poll"] < r["bound1"]
    # Slot 0's power-on waited out its Command Completed: 1 s.
    (timeout,) = [e for e in res.events("log", path="host.pciehp") if "Timeout on hotplug command" in e["msg"]
                  and "01:00.0" in e["msg"]]
    assert timeout["msg"].endswith("Timeout on hotplug command 0x1038 (issued 1000 msec ago)")
    # Slot 1's first Slot Status poll found the plug.
    polls = [e for e in res.events("tlp", path="link_host", dir="down", target="01:01.0", reg="0x78")
             if e["type"] == "CfgRd0" or e["type"] == "CfgRd1"]
    assert [e["time_ps"] for e in polls if e["time_ps"] > r["poll"]][0] == r["poll"] + 100 * MS


def test_speed_change_bounces_the_link_and_the_driver_reads_the_new_speed(tmp_path):
    res = twice("speed_change", tmp_path)
    r = res.result
    assert (r["before"], r["speed"], r["duplex"]) == (100000, 25000, 1)
    assert r["outcomes"] == ["OK", "OK", "REJECTED"]
    down, up = res.events("config_interrupt", ep=0)
    assert (down["link_up"], up["link_up"]) == (False, True)
    assert up["time_ps"] - down["time_ps"] == cost("vnet.speed_change.bounce_ps")
    assert down["time_ps"] < r["off"] < up["time_ps"] < r["on"]


def test_the_hotplug_study_writes_its_figures_and_prints_the_table(tmp_path, capsys):
    path = os.path.join(ROOT, "scenarios", "study_hotplug.py")
    assert cli.run_command([path, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    runs = json.loads((tmp_path / "study.json").read_text())["runs"]
    full, half = runs["default"], runs["host delays halved"]
    # The application's steps are the same in both runs; the host's waits halve.
    for steps in ("plug_steps_ps", "unplug_steps_ps"):
        for step, value in full[steps].items():
            if "(application)" in step or "probe" in step:
                assert half[steps][step] == value, step
    assert full["plug_steps_ps"]["create_device (application)"] >= cost("vnet.work.create_device_ps")
    assert full["unplug_steps_ps"]["attention button wait (host)"] >= cost("host.pciehp.button_ps")
    waits = cost("host.pciehp.link_detect_ps") + cost("host.pciehp.link_settle_ps")
    assert (full["plug_to_traffic_ps"] - half["plug_to_traffic_ps"]) == waits // 2
    assert (full["unplug_to_destroyed_ps"] - half["unplug_to_destroyed_ps"]) == cost("host.pciehp.button_ps") // 2
    assert (tmp_path / "study.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "plug command -> traffic" in printed and "host delays halved" in printed
