"""The virtio-net scenarios as tests: each passes, each run twice gives the same hash, and
their outputs hold what they should: frames in the pcaps (read back by tshark), the VQ
lifecycle in the VCD at the logged times, the study's figures."""
import json
import os
import shutil
import subprocess

import pytest

from dpusim import cli
from dpusim.cli import load_scenario
from dpusim.run import run
from vcd import read_vcd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario(name):
    return load_scenario(os.path.join(ROOT, "scenarios", f"{name}.py"))


def twice(name, tmp_path):
    fn, platform = scenario(name)
    a = run(fn, platform, out=str(tmp_path / "a"))
    b = run(fn, platform, out=str(tmp_path / "b"))
    assert a.ok, a.describe()
    assert a.hash == b.hash
    for f in sorted(os.listdir(tmp_path / "a")):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    return a


def test_bringup_of_four_endpoints_passes_traffic_and_writes_a_pcap_per_wire(tmp_path):
    res = twice("virtio_net_bringup", tmp_path)
    assert res.result["interfaces"] == ["02:00.0", "03:00.0", "04:00.0", "05:00.0"]
    assert res.result["frames"] == [8, 8, 8, 8]
    (ledger,) = res.events("frame_ledger")
    assert (ledger["sent"], ledger["received"], ledger["dropped"], ledger["in_flight"]) == (64, 64, 0, 0)
    out = tmp_path / "a"
    # The GTKWave view names signals the VCD has.
    waves = read_vcd(out / "waves.vcd")
    view = [line for line in open(os.path.join(ROOT, "waveforms", "vnet.gtkw")).read().splitlines()
            if line.startswith("SystemC.")]
    assert view and [n for n in view if n[len("SystemC."):].split("[")[0] not in waves] == []
    assert sorted(p for p in os.listdir(out) if p.endswith(".pcap")) == [
        f"wire{i}_ep{i}_loopback.pcap" for i in range(4)]
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed")
    for i in range(4):
        lines = subprocess.run(["tshark", "-r", str(out / f"wire{i}_ep{i}_loopback.pcap"), "-T", "fields",
                                "-e", "frame.len", "-e", "eth.src"], capture_output=True, text=True, check=True)
        rows = [line.split("\t") for line in lines.stdout.splitlines()]
        frames = res.events("frame", path=f"wire{i}")
        assert [int(r[0]) for r in rows] == [f["len"] for f in frames]
        assert {r[1] for r in rows} == {f"52:54:00:12:34:{0x56 + i:02x}"}


def test_vq_lifecycle_in_the_vcd_matches_the_log(tmp_path):
    res = twice("malformed_ring", tmp_path)
    assert res.result["status"] == 0x4F
    waves = read_vcd(tmp_path / "a" / "waves.vcd")
    states = ["UNCREATED", "CREATED", "CONFIGURED", "STARTED", "ENABLED", "DISABLED", "STOPPED", "DESTROYED"]
    for vq in (0, 1, 4):
        logged = [(e["time_ps"], states.index(e["state"])) for e in res.events("vq_state", path="ep0", vq=vq)]
        traced = [(t, v) for t, v in waves[f"ep0.vq{vq}.state"] if t > 0]
        # Several changes in one instant show in the VCD as the last of them.
        last = {}
        for t, v in logged:
            last[t] = v
        assert traced == sorted(last.items())
    status = [(t, v) for t, v in waves["ep0.device_status"] if t > 0]
    assert (res.result["config_msi_ps"] - status[[v for _, v in status].index(0x4F)][0]) > 0


def test_the_study_writes_its_figures_and_prints_the_table(tmp_path, capsys):
    path = os.path.join(ROOT, "scenarios", "study_bringup.py")
    assert cli.run_command([path, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    study = json.loads((tmp_path / "study.json").read_text())
    rows = study["endpoints"]
    assert sorted(rows) == ["1", "2", "4"] and [len(rows[n]) for n in ("1", "2", "4")] == [1, 2, 4]
    # The single worker serialises the endpoints and the deferred starts wait for the last one:
    # every endpoint of four passes traffic later than a lone one; two MQ starts run at once,
    # so endpoints 2 and 3 wait for a slot after 0 and 1.
    four = [r["first_config_read_to_traffic_ps"] for r in rows["4"]]
    assert min(four) > rows["2"][1]["first_config_read_to_traffic_ps"] > rows["1"][0]["first_config_read_to_traffic_ps"]
    assert max(four[:2]) < four[2] < four[3]
    assert (tmp_path / "study.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "DRIVER_OK->enabled (ms)" in printed and "05:00.0" in printed
    assert printed.strip().splitlines()[-1].startswith("hash: ")


def test_demo_is_the_virtio_net_bringup():
    assert os.path.basename(cli.DEMO_SCENARIO) == "virtio_net_bringup.py"
