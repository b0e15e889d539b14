"""The run's Chrome trace (trace.json): loadable JSON whose slices nest per track, whose flows
pair, whose times are the simulated picoseconds exactly, with a track per application thread,
link direction, requester, virtqueue and host task; the same run gives the same bytes, and
tracing leaves the event log (and so the hash) as it was."""
import collections
import json
import os
import re
import subprocess
from decimal import Decimal

import pytest

from dpusim.cli import load_scenario
from dpusim.report_data import load_events, tlp_round_trips, work_items
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = os.path.join(ROOT, "scenarios", "virtio_net_bringup.py")
PS = Decimal(10**6)


def load_trace(path):
    with open(path) as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]


def ps(us):
    """A trace time (microseconds, six decimals) as integer picoseconds, exactly."""
    v = us * PS
    assert v == v.to_integral_value(), us
    return int(v)


def names(trace):
    """{(pid, tid): "process/thread"} from the metadata events."""
    procs = {e["pid"]: e["args"]["name"] for e in trace if e["ph"] == "M" and e["name"] == "process_name"}
    return {(e["pid"], e["tid"]): f"{procs[e['pid']]}/{e['args']['name']}"
            for e in trace if e["ph"] == "M" and e["name"] == "thread_name"}


def slices_by_track(trace):
    """{(pid, tid): [(begin ps, end ps, the B or X event)]}. B/E pairs are matched in file
    order, an E closing its thread's latest open B, so the file must already nest them."""
    out = collections.defaultdict(list)
    opened = collections.defaultdict(list)
    last = Decimal(0)
    for e in trace:
        if e["ph"] == "M":
            continue
        assert e["ts"] >= last, f"not in time order at {e}"
        last = e["ts"]
        k = (e["pid"], e["tid"])
        if e["ph"] == "B":
            opened[k].append(e)
        elif e["ph"] == "E":
            assert opened[k], f"{k}: an end without a begin at {e['ts']}"
            b = opened[k].pop()
            assert e["ts"] > b["ts"] and e["name"] == b["name"], f"{k}: {e} does not end {b}"
            out[k].append((ps(b["ts"]), ps(e["ts"]), b))
        elif e["ph"] == "X":
            assert e["dur"] == 0  # slices with a length are B/E pairs
            out[k].append((ps(e["ts"]), ps(e["ts"]), e))
    assert not any(opened.values()), "slices left open"
    return out


def slices(trace):
    """Every slice as (track name, name, begin ps, length ps, the B or X event)."""
    track = names(trace)
    return [(track[k], e["name"], b, end - b, e) for k, v in slices_by_track(trace).items() for b, end, e in v]


def check_nesting(by_track):
    """Slices of one track are disjoint or nested, never crossing."""
    for track, slices in by_track.items():
        stack = []
        for b, end, e in sorted(slices, key=lambda s: (s[0], -(s[1] - s[0]))):
            while stack and stack[-1][1] <= b and (stack[-1][1] > stack[-1][0] or stack[-1][0] < b):
                stack.pop()
            assert not stack or end <= stack[-1][1], f"{track}: {e} crosses {stack[-1][2]}"
            stack.append((b, end, e))


def check_flows(trace, by_track):
    """Every flow id has one start and one finish, not earlier, each inside a slice of its track."""
    flows = collections.defaultdict(dict)
    for e in trace:
        if e["ph"] in ("s", "f"):
            assert e["ph"] not in flows[e["id"]], f"flow {e['id']} has two '{e['ph']}'"
            flows[e["id"]][e["ph"]] = e
    for fid, pair in flows.items():
        assert set(pair) == {"s", "f"}, f"flow {fid} is unpaired"
        assert pair["f"]["ts"] >= pair["s"]["ts"]
        assert pair["f"]["bp"] == "e"
        for e in pair.values():
            t = ps(e["ts"])
            assert any(b <= t < end for b, end, _ in by_track[(e["pid"], e["tid"])]), f"flow {fid} binds nothing"
    return flows


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    fn, platform = load_scenario(DEFAULT)
    base = tmp_path_factory.mktemp("trace")
    traced = run(fn, platform, out=str(base / "traced"), trace=True)
    assert traced.ok, traced.describe()
    plain = run(fn, platform, out=str(base / "plain"))
    again = run(fn, platform, out=str(base / "again"), trace=True)
    return base, traced, plain, again


def test_tracing_leaves_the_log_and_its_hash_unchanged(default_run):
    base, traced, plain, again = default_run
    assert traced.hash == plain.hash == again.hash
    assert traced.log == plain.log
    assert not (base / "plain" / "trace.json").exists()


def test_same_run_same_trace_bytes(default_run):
    base, *_ = default_run
    assert (base / "traced" / "trace.json").read_bytes() == (base / "again" / "trace.json").read_bytes()


def test_times_are_exact_microseconds_with_six_decimals(default_run):
    base, *_ = default_run
    text = (base / "traced" / "trace.json").read_text()
    times = re.findall(r'"(?:ts|dur)":([0-9.eE+-]+)', text)
    assert times and all(re.fullmatch(r"\d+\.\d{6}", t) for t in times)
    trace = load_trace(base / "traced" / "trace.json")
    # A hop is its TLP's time on the link, tx_ps to rx_ps, on its link direction's track (or
    # one of its lanes: "link_host down (2)").
    hops = sorted((e["args"]["tlp"], re.sub(r" \(\d+\)$", "", t), b, b + d) for t, _, b, d, e in slices(trace)
                  if t.startswith("PCIe links/") and e["cat"] == "tlp")
    events = [e for e in load_events(base / "traced" / "events.jsonl") if e["event"] == "tlp"]
    assert len(hops) == len(events) == 8006  # 5614 TLPs, some crossing two links
    assert hops == sorted((e["tlp"], f"PCIe links/{e['path']} {e['dir']}", e["tx_ps"], e["rx_ps"]) for e in events)


def test_slices_nest_and_flows_pair(default_run):
    base, *_ = default_run
    trace = load_trace(base / "traced" / "trace.json")
    assert {e["ph"] for e in trace} == {"M", "B", "E", "X", "i", "s", "f"}
    by_track = slices_by_track(trace)
    check_nesting(by_track)
    flows = check_flows(trace, by_track)
    kinds = collections.Counter(pair["s"]["name"] for pair in flows.values())
    # A request flow per completed non-posted request, and no other (no flow joins a TLP's hops).
    round_trips = tlp_round_trips(load_events(base / "traced" / "events.jsonl"))
    assert kinds["request"] == sum(len(v) for v in round_trips.values()) == 1331
    assert set(kinds) == {"request"}


def test_tracks_of_threads_links_requesters_queues_and_tasks(default_run):
    base, *_ = default_run
    trace = load_trace(base / "traced" / "trace.json")
    tracks = set(names(trace).values())
    for t in ["vnet/main", "vnet/worker", "vnet/workqueue", "vnet/mq0", "vnet/mq3", "PCIe links/link_host down",
              "PCIe links/link_host up", "PCIe links/link_dsp3 up", "PCIe requests/00:00.0",
              "PCIe requests/02:00.0", "ep0/vq0", "ep3/vq16", "ep0/engine", "ep2/device", "host/MSI",
              "host/scenario #1", "host/virtio_net", "wires/wire0 ep0->loopback"]:
        assert t in tracks, t
    # Each (pid, tid) is named once.
    meta = [(e["pid"], e["tid"]) for e in trace if e["ph"] == "M" and e["name"] == "thread_name"]
    assert len(meta) == len(set(meta))


def test_round_trips_match_the_log(default_run):
    base, *_ = default_run
    trace = load_trace(base / "traced" / "trace.json")
    events = load_events(base / "traced" / "events.jsonl")
    got = collections.defaultdict(list)
    for t, name, _, d, e in slices(trace):
        if t.startswith("PCIe requests/"):
            got[name].append(d)
            assert e["args"]["end"]["latency_ps"] == d
    want = tlp_round_trips(events)
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in want.items()}


def test_work_items_log_lines_msis_and_states(default_run):
    base, *_ = default_run
    trace = load_trace(base / "traced" / "trace.json")
    events = load_events(base / "traced" / "events.jsonl")
    track = names(trace)
    on = collections.defaultdict(list)  # track (lanes merged) -> [(name, begin, length, event)]
    for t, name, b, d, e in slices(trace):
        on[t.split(" (")[0]].append((name, b, d, e))
    marks = collections.defaultdict(list)
    for e in trace:
        if e["ph"] == "i":
            marks[track[(e["pid"], e["tid"])]].append(e)
    run_ps, wait_ps = work_items(events)
    worker = on["vnet/worker"]
    assert sorted((n, d) for n, _, d, _ in worker) == sorted((t, d) for t, ds in run_ps.items() for d in ds)
    assert {e["args"]["ep"] for *_, e in worker} == {0, 1, 2, 3}  # the controller of each item
    assert sorted(d for _, _, d, _ in on["vnet/workqueue"]) == sorted(d for ds in wait_ps.values() for d in ds)
    logs = [e for e in trace if e["ph"] == "i" and e["cat"] == "log"]
    assert len(logs) == sum(1 for e in events if e["event"] == "log") == 472
    assert marks["vnet/mq0"][0]["name"] == "MQ start thread waiting for semaphore slot (max 2 concurrent)..."
    assert [n for n, *_ in on["vnet/mq0"]] == ["MQ start QPs 0->4 ep0"]
    assert len(marks["host/MSI"]) == sum(1 for e in events if e["event"] == "msi") == 64
    # A virtqueue's states follow each other without a gap, the last open at the end.
    vq = sorted(on["ep0/vq2"], key=lambda s: s[1])
    assert [n for n, *_ in vq][:3] == ["CREATED", "CONFIGURED", "STARTED"]
    assert all(a[1] + a[2] == b[1] for a, b in zip(vq, vq[1:]))
    assert vq[-1][3]["args"]["end"] == {"open_at_end": True}
    pe1 = on["vnet/main"]
    assert pe1 and {d for _, _, d, _ in pe1} <= {2000000, 1000000, 500000}


def test_host_tasks_nest_their_waits(tmp_path):
    async def worker(sim, n):
        await sim.sleep(1000 * n)
        await sim.host.config_read("00:00.0", 0)

    async def scenario(sim):
        await sim.gather(sim.spawn(worker(sim, 1), "w1"), sim.spawn(worker(sim, 2), "w2"))

    res = run(scenario, {"topology": {"endpoints": 1}}, out=str(tmp_path), trace=True)
    assert res.ok, res.describe()
    trace = load_trace(tmp_path / "trace.json")
    by = collections.defaultdict(list)
    for t, name, b, d, _ in slices(trace):
        if t.startswith("host/"):
            by[t].append((name, b, d))
    # Each task's life, and inside it what it waited for (a config read: 105.397 ns here).
    assert sorted(by["host/w1 #2"]) == [("config_read 00:00.0+0x0", 1000, 105397), ("sleep(1000)", 0, 1000),
                                        ("w1", 0, 106397)]
    assert sorted(by["host/w2 #3"]) == [("config_read 00:00.0+0x0", 2000, 105397), ("sleep(2000)", 0, 2000),
                                        ("w2", 0, 107397)]
    assert sorted(by["host/scenario #1"]) == [("gather", 0, 107397), ("scenario", 0, 107397)]
    # Equal slices: the enclosing task begins first, so a viewer nests the wait inside it.
    order = [e["name"] for e in trace if e["ph"] == "B" and e["name"] in ("scenario", "gather")]
    assert order == ["scenario", "gather"]
    check_nesting(slices_by_track(trace))


def test_a_bad_trace_rule_is_refused_by_name():
    async def scenario(sim):
        with pytest.raises(ValueError, match="trace rule for event 'x': trace template '{oops': '{' without '}'"):
            sim.platform.add_trace_rule({"event": "x", "kind": "instant", "thread": "{oops"})
        with pytest.raises(ValueError, match="kind 'slice' is not instant, begin, end, state, span or ignore"):
            sim.platform.add_trace_rule({"event": "x", "kind": "slice"})
        with pytest.raises(ValueError, match="Begin and End need a key"):
            sim.platform.add_trace_rule({"event": "x", "kind": "begin"})
        with pytest.raises(ValueError, match="unknown field 'colour'"):
            sim.platform.add_trace_rule({"event": "x", "colour": "red"})

    res = run(scenario, {"topology": {"endpoints": 1}})
    assert res.ok, res.describe()


def test_run_command_writes_the_trace_on_request(tmp_path):
    scen = tmp_path / "probe.py"
    scen.write_text('PLATFORM = {"topology": {"endpoints": 1}}\n'
                    "async def scenario(sim):\n    await sim.host.config_read('00:00.0', 0)\n")
    launcher = os.path.join(ROOT, "dpusim")
    p = subprocess.run([launcher, "run", str(scen), "--out", str(tmp_path / "a"), "--trace"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=300)
    assert p.returncode == 0
    assert f"output: {tmp_path / 'a' / 'trace.json'}" in p.stdout.splitlines()
    p = subprocess.run([launcher, "run", str(scen), "--out", str(tmp_path / "b")],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=300)
    assert p.returncode == 0 and not (tmp_path / "b" / "trace.json").exists()
