"""The ionic scenarios' outputs: the same files twice, the GTKWave view's signals in the VCD and
the VCD's counters agreeing with the log, the wire's pcap read by tshark, and the control
scenario's event log showing the program load, the entry install, the frame's changed egress
and the stats line."""
import os
import shutil
import subprocess

import pytest

from dpusim.cli import load_scenario
from dpusim.run import run
from vcd import read_vcd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def twice(name, tmp_path):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", f"{name}.py"))
    a = run(fn, platform, out=str(tmp_path / "a"))
    b = run(fn, platform, out=str(tmp_path / "b"))
    assert a.ok, a.describe()
    assert a.hash == b.hash
    for f in sorted(os.listdir(tmp_path / "a")):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    return a


def test_bringup_outputs_vcd_view_and_pcap(tmp_path):
    res = twice("ionic_bringup", tmp_path)
    out = tmp_path / "a"
    waves = read_vcd(out / "waves.vcd")
    view = [line for line in open(os.path.join(ROOT, "waveforms", "ionic.gtkw")).read().splitlines()
            if line.startswith("SystemC.")]
    assert view and [n for n in view if n[len("SystemC."):].split("[")[0] not in waves] == []
    for ep in ("ep0", "ep1"):
        assert waves[f"{ep}.tx_frames"][-1][1] == len(res.events("tx_frame", path=ep)) == 6
        assert waves[f"{ep}.rx_frames"][-1][1] == len(res.events("rx_frame", path=ep)) == 6
    (ledger,) = res.events("frame_ledger")
    assert (ledger["sent"], ledger["received"], ledger["dropped"], ledger["in_flight"]) == (12, 12, 0, 0)
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed")
    lines = subprocess.run(["tshark", "-r", str(out / "wire0_ep0_ep1.pcap"), "-T", "fields", "-e", "frame.len",
                            "-e", "eth.src"], capture_output=True, text=True, check=True)
    rows = [line.split("\t") for line in lines.stdout.splitlines()]
    assert [int(r[0]) for r in rows] == [f["len"] for f in res.events("frame", path="wire0")]
    assert {r[1] for r in rows} == {"02:a0:d1:00:00:01", "02:a0:d1:00:00:02"}


def test_control_scenario_log_shows_load_install_egress_and_stats(tmp_path):
    res = twice("ionic_p4_control", tmp_path)
    loads = res.events("p4_load", path="ep0")
    assert [e["source"] for e in loads] == ["loopback.json", "guest"]
    assert [(e["type"], e["table"]) for e in res.events("p4_update", path="ep0")] == [
        ("INSERT", "ingress.fwd"), ("MODIFY", "ingress.fwd")]
    verdicts = [e.get("egress_port", e.get("dropped")) for e in res.events("p4_verdict", path="ep0")]
    assert verdicts == ["ingress_drop", 1, 0]
    stats = [e["msg"] for e in res.events("log", path="ep0") if "P4 stats" in e["msg"]]
    assert stats == ["rocm-ernic: P4 stats: host_in=3 host_out=1 uplink_in=0 uplink_out=1 dropped=1 too_big=0 "
                     "parse_errors=0 to_guest=1 to_net=1 to_upstream=0 egress_errors=0"]
    assert res.result["refused"] == [4, 2] and res.result["capabilities"] == [True, True, False]
