"""Event-log levels and category filters (tlm/log_filter.h): what each level writes, the hash
of what is written (with `none`, of the summary stream, without writing it), watchers that
still see filtered events, and the command line's --log, --log-keep, --log-omit, --no-vcd."""
import collections
import hashlib
import json
import os
import subprocess

from dpusim.testing import run_ok
from vnet_util import bring_up, frame, vnet_platform

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")


def with_log(doc, log):
    doc = dict(doc)
    doc["outputs"] = {"log": log, "vcd": False}
    return doc


async def some_frames(sim):
    _, (net,) = await bring_up(sim)
    for k in range(3):
        await net.send(frame(net.mac, k, 100))
    await net.recv(3)
    return sim.now


def test_summary_drops_tlps_frames_and_datapath_events_and_counts_frames_per_second():
    full = run_ok(some_frames, vnet_platform())
    summary = run_ok(some_frames, with_log(vnet_platform(), "summary"))
    assert full.result == summary.result  # the simulation is the same
    kinds = collections.Counter(e["event"] for e in summary.events())
    for dropped in ("tlp", "frame", "doorbell", "vq_frame", "vq_used", "vq_interrupt"):
        assert kinds[dropped] == 0 and full.events(dropped), dropped
    for kept in ("vq_state", "work_started", "log", "msi", "virtio_net", "reg_write", "platform_end"):
        assert kinds[kept] == len(full.events(kept)), kept
    (counters,) = summary.events("frame_counters")
    assert {k: counters[k] for k in ("a", "b", "ab_frames", "ab_bytes", "ba_frames", "ba_bytes")} == \
        {"a": "ep0", "b": "loopback", "ab_frames": 3, "ab_bytes": 3 * 114, "ba_frames": 3, "ba_bytes": 3 * 114}
    assert counters["second"] == summary.result // 10**12
    assert summary.events("platform_start")[0]["log"] == "summary"
    # Written lines only: every line of the summary is a line of the full log.
    full_lines = set(full.log.splitlines())
    assert all(line in full_lines for line in summary.log.splitlines() if b"frame_counters" not in line
               and b"platform_start" not in line)


def test_none_gives_the_hash_of_the_summary_stream_without_writing_it():
    summary = run_ok(some_frames, with_log(vnet_platform(), "summary"))
    none = run_ok(some_frames, with_log(vnet_platform(), "none"))
    assert none.log == b""
    assert none.hash_label == "hash (summary)" and summary.hash_label == "hash"
    assert none.hash == summary.hash == hashlib.sha256(summary.log).hexdigest()
    assert run_ok(some_frames, with_log(vnet_platform(), "none")).hash == none.hash


def test_keep_and_omit_categories():
    res = run_ok(some_frames, with_log(vnet_platform(), {"level": "summary", "keep": ["frame"], "omit": ["msi"]}))
    assert len(res.events("frame")) == 6 and not res.events("msi") and not res.events("tlp")
    assert not res.events("frame_counters")  # frames are written: no counters instead
    res = run_ok(some_frames, with_log(vnet_platform(), {"level": "all", "omit": ["tlp"]}))
    assert not res.events("tlp") and len(res.events("vq_frame")) == 6


def test_a_watched_event_of_a_filtered_category_still_reaches_the_scenario():
    async def scenario(sim):
        _, (net,) = await bring_up(sim)
        seen = sim.wait_event("vq_frame", path="ep0", dir="rx")
        await net.send(frame(net.mac, 1))
        e = await seen
        await net.recv(1)
        return e["frame"]

    res = run_ok(scenario, with_log(vnet_platform(), "none"))
    assert res.result > 0


def dpusim(*args):
    p = subprocess.run([os.path.join(ROOT, "dpusim"), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    return p.returncode, p.stdout.splitlines()


def test_command_line_levels_and_no_vcd(tmp_path):
    code, lines = dpusim("run", SCENARIO, "--out", str(tmp_path / "s"), "--log", "summary", "--no-vcd", "--no-pcap")
    assert code == 0
    assert not (tmp_path / "s" / "waves.vcd").exists() and not list((tmp_path / "s").glob("*.pcap"))
    log = (tmp_path / "s" / "events.jsonl").read_bytes()
    assert lines[-1] == "hash: " + hashlib.sha256(log).hexdigest()
    assert not any(json.loads(x)["event"] == "tlp" for x in log.splitlines())
    code, lines2 = dpusim("run", SCENARIO, "--out", str(tmp_path / "n"), "--log", "none")
    assert code == 0
    assert not (tmp_path / "n" / "events.jsonl").exists() and (tmp_path / "n" / "waves.vcd").exists()
    assert len(list((tmp_path / "n").glob("*.pcap"))) == 4
    assert lines2[-1] == "hash (summary): " + hashlib.sha256(log).hexdigest()
    code, lines3 = dpusim("run", SCENARIO, "--out", str(tmp_path / "o"), "--log-omit", "tlp,vq")
    assert code == 0 and lines3[-1].startswith("hash: ") and lines3[-1] != lines[-1]
    code, lines4 = dpusim("run", SCENARIO, "--out", str(tmp_path / "x"), "--log-keep", "nosuch")
    assert code == 2 and "unknown event category 'nosuch'" in "\n".join(lines4)
    code, lines5 = dpusim("run", "--log-categories")
    assert code == 0 and [line.split()[0] for line in lines5] == \
        ["dma", "frame", "frame_counters", "ionic_frame", "log", "mesh", "msi", "rdma", "state", "tlp", "vq"]


def test_a_study_refuses_the_log_options(tmp_path):
    """A study's report() reads every run's full event log: the log options are refused."""
    code, lines = dpusim("run", os.path.join(ROOT, "scenarios", "study_bringup.py"), "--out", str(tmp_path / "s"),
                         "--log", "none")
    assert code == 2
    assert lines == ["dpusim: --log, --log-keep and --log-omit do not apply to a study: its report() reads the full "
                     "event log of every run"]
    assert not (tmp_path / "s").exists()
