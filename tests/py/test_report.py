"""The run report (./dpusim report DIR, DIR/report.html): what it computes from the event
log, what the page shows, that it renders in headless Chromium with its script run, that
studies write theirs, and the progress display of long sweeps."""
import io
import os
import shutil
import subprocess
import tempfile

import pytest

from dpusim import report_data as data
from dpusim.cli import load_scenario
from dpusim.progress import Progress
from dpusim.report import build, write_report
from dpusim.report_svg import fmt_ps, histogram
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(ROOT, "dpusim")


def tlp(t, path, d, typ, serial, tx, rx, **f):
    return dict(time_ps=t, path=path, event="tlp", dir=d, type=typ, tlp=serial, tx_ps=tx, rx_ps=rx, **f)


def test_round_trips_end_at_the_completion_that_finishes_the_request():
    events = [
        tlp(0, "link_dsp0", "up", "MRd", 1, 0, 10, requester="02:00.0", tag=3),
        tlp(20, "link_host", "up", "MRd", 1, 20, 30, requester="02:00.0", tag=3),
        # 128 bytes in two completions: the first (Byte Count 128, 64 carried) does not end it.
        tlp(100, "link_host", "down", "CplD", 2, 100, 110, requester="02:00.0", tag=3, len=16, lower_addr="0x0",
            byte_count=128, status="SC"),
        tlp(120, "link_dsp0", "down", "CplD", 2, 120, 130, requester="02:00.0", tag=3, len=16, lower_addr="0x0",
            byte_count=128, status="SC"),
        tlp(140, "link_host", "down", "CplD", 3, 140, 150, requester="02:00.0", tag=3, len=16, lower_addr="0x40",
            byte_count=64, status="SC"),
        tlp(160, "link_dsp0", "down", "CplD", 3, 160, 175, requester="02:00.0", tag=3, len=16, lower_addr="0x40",
            byte_count=64, status="SC"),
        # A config read answered UR ends at its completion whatever the byte count.
        tlp(200, "link_host", "down", "CfgRd1", 4, 200, 210, requester="00:00.0", tag=0),
        tlp(300, "link_host", "up", "Cpl", 5, 300, 333, requester="00:00.0", tag=0, len=0, lower_addr="0x0",
            byte_count=4, status="UR"),
    ]
    assert data.tlp_round_trips(events) == {"MRd": [175], "CfgRd1": [133]}


def test_stats_use_nearest_rank_percentiles():
    assert data.stats([5, 1, 3, 2, 4]) == (5, 1, 3, 5, 5, 5)
    assert data.stats(list(range(1, 101))) == (100, 1, 50, 90, 99, 100)


def test_timeline_segments_and_markers():
    events = [
        {"time_ps": 0, "path": "link_dsp0", "event": "link_state", "up": False},
        {"time_ps": 0, "path": "link_dsp0", "event": "link_state", "up": True},
        {"time_ps": 50, "path": "ep0", "event": "engine", "op": "start"},
        {"time_ps": 80, "path": "switch", "event": "reset_generation", "ep": 0, "gen": 2},
        {"time_ps": 90, "path": "ep0", "event": "engine", "op": "enable"},
        {"time_ps": 100, "path": "platform", "event": "platform_end", "tlps": 0, "violations": 0,
         "outstanding_np": 0},
    ]
    rows, end = data.timeline(events)
    assert end == 100
    assert rows == [("link_dsp0", [(0, 100, "up")], []),
                    ("ep0 engine", [(50, 90, "started"), (90, 100, "enabled")], []),
                    ("ep0 slot", [], [(80, "reset generation 2")])]


def _states(rows):
    """{row: [state, ...]} of a timeline's segments, and each row's markers."""
    return {name: [s for _, _, s in segs] for name, segs, _ in rows}


def test_the_timeline_shows_the_ionic_nics_lif_queues_qps_and_program_from_its_events():
    ev = [
        {"time_ps": 0, "path": "ep0", "event": "p4_load", "source": "loopback.json", "features": "ernic"},
        {"time_ps": 10, "path": "ep0", "event": "devcmd", "cmd": "RESET", "opcode": 3, "status": "SUCCESS"},
        {"time_ps": 20, "path": "ep0", "event": "devcmd", "cmd": "LIF_INIT", "opcode": 21, "status": "EINVAL"},
        {"time_ps": 30, "path": "ep0", "event": "devcmd", "cmd": "LIF_INIT", "opcode": 21, "status": "SUCCESS"},
        {"time_ps": 40, "path": "ep0", "event": "q_init", "type": 0, "index": 0},
        {"time_ps": 50, "path": "ep0", "event": "q_init", "type": 1, "index": 0},
        {"time_ps": 60, "path": "ep0", "event": "q_init", "type": 3, "index": 0},
        {"time_ps": 60, "path": "ep0", "event": "q_init", "type": 2, "index": 0},
        {"time_ps": 70, "path": "ep0", "event": "q_init", "type": 3, "index": 0},  # the same queue again
        {"time_ps": 80, "path": "ep0", "event": "rdma_qp", "qp": 2, "type": 0},
        {"time_ps": 85, "path": "ep0", "event": "rdma_qp", "qp": 3, "type": 0},
        {"time_ps": 90, "path": "ep0", "event": "rdma_modify_qp", "qp": 2, "state": 1, "attr_mask": "0x1"},
        {"time_ps": 95, "path": "ep0", "event": "rdma_modify_qp", "qp": 2, "state": 3, "attr_mask": "0x1"},
        {"time_ps": 100, "path": "ep0", "event": "adminq_cmd", "cmd": "LIF_INIT", "status": "SUCCESS"},  # no-op
        {"time_ps": 110, "path": "ep0", "event": "devcmd", "cmd": "LIF_RESET", "opcode": 22, "status": "SUCCESS"},
        {"time_ps": 120, "path": "platform", "event": "platform_end", "tlps": 0, "violations": 0,
         "outstanding_np": 0},
    ]
    rows, end = data.timeline(ev)
    assert end == 120
    assert rows == [
        ("ep0 P4 program", [(0, 120, "loopback.json (ernic)")], []),
        ("ep0 LIF", [(30, 110, "initialised"), (110, 120, "reset")], []),
        ("ep0 queues", [(40, 50, "1 adminq"), (50, 60, "1 adminq, 1 notifyq"),
                        (60, 120, "1 adminq, 1 notifyq, 1 rxq, 1 txq")], []),
        ("ep0 QPs", [(80, 85, "1 RESET"), (85, 90, "2 RESET"), (90, 95, "1 RESET, 1 INIT"),
                     (95, 120, "1 RESET, 1 RTS")], [])]


def test_a_real_ionic_run_has_its_nic_on_the_timeline(tmp_path):
    from dpusim.drivers.ionic import probe_all
    from dpusim.drivers.ionic_rdma import QPS_INIT, IonicRdma
    from dpusim.drivers.pci import pci_host_probe

    async def scenario(sim):
        (nic,) = await probe_all(sim, await pci_host_probe(sim))
        await nic.open()
        rdma = await IonicRdma(nic).probe()
        cq = await rdma.create_cq(16)
        await rdma.modify_qp(await rdma.create_qp(cq, cq), QPS_INIT)
        await nic.remove()

    platform = {"host": {"cpus": 1},
                "topology": {"slots": [{"kind": "ionic", "p4-program": "tests/data/p4/loopback.json"}]}}
    res = run(scenario, platform, out=str(tmp_path))
    assert res.ok, res.describe()
    rows, _ = data.timeline(data.load_events(tmp_path / "events.jsonl"))
    assert _states(rows) == {
        "ep0 P4 program": ["loopback.json (ernic)"],
        "driver 02:00.0": ["probe", "lif_size", "probed", "open"],
        "ep0 LIF": ["initialised", "reset"],
        "ep0 queues": ["1 adminq", "1 adminq, 1 notifyq", "1 adminq, 1 notifyq, 1 txq",
                       "1 adminq, 1 notifyq, 1 rxq, 1 txq"],
        "driver 02:00.0 RDMA": ["probed"],
        "ep0 QPs": ["1 RESET", "1 INIT"]}
    page = build(str(tmp_path))
    assert "No state changes" not in page and "ep0 QPs" in page and "1 INIT" in page


def test_units_and_an_empty_histogram():
    assert [fmt_ps(v) for v in (635, 2635, 1500000, 2175577319816)] == ["635 ps", "2.63 ns", "1.5 µs", "2.18 s"]
    assert histogram({"x": []}) == "<p>No samples.</p>"
    svg = histogram({"a": [0, 0, 1000], "b": [1000000]})
    assert svg.count("<rect") == 3 + 2  # zero bin, 1 ns bin, 1 µs bin; two legend swatches
    assert "a: 2 = 0" in svg and "a: 1 in [1 ns, 1.78 ns)" in svg and "b: 1 in [1 µs, 1.78 µs)" in svg


@pytest.fixture(scope="module")
def bringup(tmp_path_factory):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "virtio_net_bringup.py"))
    out = tmp_path_factory.mktemp("bringup")
    res = run(fn, platform, out=str(out), trace=True)
    assert res.ok, res.describe()
    return out, res


def test_the_page_shows_the_run(bringup):
    out, res = bringup
    page = build(str(out), scenario="scenarios/virtio_net_bringup.py")
    assert page == build(str(out), scenario="scenarios/virtio_net_bringup.py")  # same outputs, same bytes
    for heading in ("<h1>dpusim run report</h1>", "<h2>Timeline</h2>", "<h2>Latency</h2>", "<h2>Invariants</h2>",
                    "<h2>Log</h2>", "<h2>Outputs</h2>"):
        assert heading in page
    assert f"<code>{res.hash}</code>" in page
    assert "<tr><td>seed</td><td>1</td></tr>" in page
    assert "2.43 s (2428591242064 ps), 9499 events" in page
    assert '<td class="ok">passed</td>' in page
    assert "<td>every non-posted request completed or timed out</td><td class=\"ok\">pass</td>" \
           "<td>5614 TLPs, none outstanding</td>" in page
    assert "sent 64, received 64, dropped 0, in flight 0" in page
    assert "472 lines (148 debug, 324 info)" in page
    assert page.count('<tr class="info">') == 324 and page.count('<tr class="debug">') == 148
    # Round trips per request type, as the log has them.
    assert '<tr><td>MRd</td><td class="num">804</td>' in page
    assert '<tr><td>CfgRd1</td><td class="num">328</td>' in page
    for name in ("events.jsonl", "waves.vcd", "wire0_ep0_loopback.pcap", "wire3_ep3_loopback.pcap", "trace.json"):
        assert f'<a href="{name}">' in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page


def test_a_failed_run_reads_failed(tmp_path):
    async def scenario(sim):
        await sim.host.send_tlp("CfgRd1", target="00:00.0", reg=0, first_be=0xF)

    res = run(scenario, {"topology": {"endpoints": 1}}, out=str(tmp_path))
    assert not res.ok
    page = build(str(tmp_path))
    assert '<td class="fail">FAILED</td>' in page
    assert "<td>no unexpected invariant violation</td><td class=\"fail\">FAIL</td><td>type1_below_target_bus" in page
    assert "(not recorded: no run.json)" in page


def test_report_command(tmp_path):
    p = subprocess.run([LAUNCHER, "report", str(tmp_path / "nothing")], stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 2 and f"{tmp_path / 'nothing'} is not a directory" in p.stderr
    p = subprocess.run([LAUNCHER, "report", str(tmp_path)], stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 2 and "has no events.jsonl (the outputs of ./dpusim run)" in p.stderr


STUDY = '''
PLATFORM = {"topology": {"endpoints": 1}}
VARIANTS = {"two": {"topology": {"endpoints": 2}}}

async def scenario(sim):
    await sim.host.config_read("00:00.0", 0)

def report(results, out):
    print("variants:", sorted(results))
'''


def test_a_study_is_traced_and_writes_its_reports(tmp_path):
    scen = tmp_path / "study_small.py"
    scen.write_text(STUDY)
    p = subprocess.run([LAUNCHER, "run", str(scen), "--out", str(tmp_path / "s")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "variants: ['main', 'two']" in p.stdout
    assert "study variants: 1/1 two" in p.stderr  # plain progress lines: stderr is not a terminal
    lines = p.stdout.splitlines()
    for name in ("trace.json", "run.json", "report.html"):
        assert f"output: {tmp_path / 's' / name}" in lines
    for name in ("trace.json", "run.json", "report.html"):
        assert (tmp_path / "s" / "two" / name).exists()
    page = (tmp_path / "s" / "report.html").read_text()
    assert '<a href="two/report.html">two</a>' in page
    assert f"<code>{scen}</code>" in page
    assert f"<code>{scen} (variant two)</code>" in (tmp_path / "s" / "two" / "report.html").read_text()
    p = subprocess.run([LAUNCHER, "run", str(scen), "--out", str(tmp_path / "n"), "--no-trace"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 0 and not (tmp_path / "n" / "trace.json").exists()


def chromium(*args):
    exe = shutil.which("chromium")
    if exe is None:
        pytest.skip("chromium is not installed (the launcher's package list installs it)")
    # Not under the sanitizer pass's preloaded ASan runtime (./dpusim test), which hangs chromium.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               f"--user-data-dir={profile}", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=120, env=env)


def test_the_page_renders_in_headless_chromium(bringup, tmp_path):
    out, _ = bringup
    path = write_report(str(out), scenario="scenarios/virtio_net_bringup.py")
    p = chromium("--dump-dom", f"file://{path}")
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    # The page's script ran to its end (it appends this marker) and filled in the log count.
    assert '<div id="report-ready" hidden="">report script ran</div>' in dom
    assert '<span id="log-shown">472 of 472 lines shown</span>' in dom
    for heading in ("Timeline", "Latency", "Invariants", "Log", "Outputs"):
        assert f"<h2>{heading}</h2>" in dom
    shot = tmp_path / "shot.png"
    p = chromium("--window-size=1200,900", f"--screenshot={shot}", f"file://{path}")
    assert p.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_plain_lines_off_a_terminal():
    s = io.StringIO()
    bar = Progress(3, "seeds", stream=s)
    bar.step("seed 1")
    bar.step()
    bar.step("seed 3", n=1)
    bar.close()
    assert s.getvalue() == "seeds: 1/3 seed 1\nseeds: 2/3\nseeds: 3/3 seed 3\n"
    with pytest.raises(ValueError, match="progress total -1 is negative"):
        Progress(-1, "x", stream=s)


def test_progress_bar_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    s = Tty()
    with Progress(4, "points", stream=s, width=8) as bar:
        bar.step("a", n=2)
    text = s.getvalue()
    assert text.startswith("\rpoints [--------] 0/4 ")
    assert "\rpoints [####----] 2/4 " in text and " a\x1b[K" in text
    assert text.endswith("\n")
