"""What the run report shows, taken from a run's event log (events.jsonl): TLP round trips,
work items and frames as latency samples, the state changes of each device over time (the
virtio-net application's slots, engines and queues; the ionic NIC's LIF, queues, RDMA QPs and
P4 program; the host drivers' steps), the invariants' results and the log lines.

A non-posted request's round trip runs from its first hop (on its requester's own link) to
the arrival of the completion that ends it: the one crossing that link the other way whose
Byte Count fits in it (PCIe §2.2.9), or any completion without data or with an error status.
"""
import collections
import json

NON_POSTED = {"MRd", "MRdLk", "IORd", "IOWr", "CfgRd0", "CfgWr0", "CfgRd1", "CfgWr1"}
COMPLETIONS = {"Cpl", "CplD", "CplLk", "CplDLk"}


def load_events(path):
    """The log's events (dicts), in order."""
    with open(path, "rb") as f:
        return [json.loads(line) for line in f if line.strip()]


def tlp_round_trips(events):
    """{request type: [latency ps...]} from the links' `tlp` events."""
    seen = set()
    open_ = {}
    out = collections.defaultdict(list)
    for e in events:
        if e["event"] != "tlp" or e.get("duplicate"):
            continue
        first = e["tlp"] not in seen
        seen.add(e["tlp"])
        key = (e.get("requester"), e.get("tag"))
        t = e["type"]
        if t in NON_POSTED and first:
            open_[key] = (e["path"], e["dir"], t, e["tx_ps"])
        elif t in COMPLETIONS and key in open_:
            path, d, rtype, tx = open_[key]
            if e["path"] != path or e["dir"] == d:
                continue
            carried = e["len"] * 4 - (int(e["lower_addr"], 16) & 3)
            if t in ("CplD", "CplDLk") and e["status"] == "SC" and e["byte_count"] > carried:
                continue
            out[rtype].append(e["rx_ps"] - tx)
            del open_[key]
    return dict(out)


def work_items(events):
    """({type: [run ps...]}, {type: [wait ps...]}): each item's time on the worker (started ->
    finished) and in the queue (queued -> started)."""
    queued, started = {}, {}
    run, wait = collections.defaultdict(list), collections.defaultdict(list)
    for e in events:
        ev = e["event"]
        if ev == "work_queued":
            queued[e["item"]] = e["time_ps"]
        elif ev == "work_started":
            started[e["item"]] = e["time_ps"]
            if e["item"] in queued:
                wait[e["type"]].append(e["time_ps"] - queued.pop(e["item"]))
        elif ev == "work_finished" and e["item"] in started:
            run[e["type"]].append(e["time_ps"] - started.pop(e["item"]))
    return dict(run), dict(wait)


def frames(events):
    """{"<wire> <from>-><to>": [latency ps...]}: each frame on its wire, from its first bit
    sent to its last bit received."""
    out = collections.defaultdict(list)
    for e in events:
        if e["event"] == "frame":
            out[f"{e['path']} {e['from']}->{e['to']}"].append(e["rx_ps"] - e["tx_ps"])
    return dict(out)


# ---- the timeline of state changes ---------------------------------------------------------
# Each extractor maps an event to (row, state) (a segment until the row's next state) or
# (row, None, label) for a marker. Rows keep the order they first appear in.

def _vq_rows():
    enabled = collections.defaultdict(dict)

    def vq(e):
        states = enabled[e["path"]]
        states[e["vq"]] = e["state"]
        n = sum(1 for s in states.values() if s == "ENABLED")
        return (f"{e['path']} VQs", f"{n} enabled")
    return vq


_ENGINE = {"start": "started", "enable": "enabled", "disable": "disabled", "stop": "stopped"}

# The ionic NIC (models/ionic) as its events show it: the LIF's devcmds (commands.cpp: LIF_INIT
# sets it up, LIF_RESET takes it down), the queues Q_INIT stored, the RDMA QPs' states
# (enum ib_qp_state) and the P4 program loaded.
_IONIC_LIF = {"LIF_INIT": "initialised", "LIF_RESET": "reset"}
_IONIC_QTYPES = {0: "adminq", 1: "notifyq", 2: "rxq", 3: "txq", 4: "eq"}
_IB_QPS = {0: "RESET", 1: "INIT", 2: "RTR", 3: "RTS", 4: "SQD", 5: "SQE", 6: "ERR"}


def _ionic_lif(e):
    if e.get("status") == "SUCCESS" and e.get("cmd") in _IONIC_LIF:
        return (f"{e['path']} LIF", _IONIC_LIF[e["cmd"]])
    return None


def _tally(values, names, unnamed):
    """"2 rxq, 1 txq": how many of `values` are each value, in value order, by `names`."""
    per = collections.Counter(values)
    return ", ".join(f"{per[v]} {names.get(v, f'{unnamed} {v}')}" for v in sorted(per))


def _ionic_queue_rows():
    stored = collections.defaultdict(set)

    def q_init(e):
        queues = stored[e["path"]]
        queues.add((e["type"], e["index"]))
        return (f"{e['path']} queues", _tally((t for t, _ in queues), _IONIC_QTYPES, "type"))
    return q_init


def _qp_rows():
    states = collections.defaultdict(dict)

    def qp(e):
        qps = states[e["path"]]
        qps[e["qp"]] = e.get("state", 0)  # rdma_qp: created, in RESET
        return (f"{e['path']} QPs", _tally(qps.values(), _IB_QPS, "state"))
    return qp


def timeline(events):
    """(rows, end_ps): rows = [(name, segments, markers)], segments = [(from, to, state)],
    markers = [(time, label)]."""
    vq, qp = _vq_rows(), _qp_rows()
    extract = {
        "link_state": lambda e: (e["path"], "up" if e["up"] else "down"),
        "device_present": lambda e: (f"ep{e['ep']} slot", "present" if e["present"] else "empty"),
        "engine": lambda e: (f"{e['path']} engine", _ENGINE.get(e["op"], e["op"])),
        "vq_state": vq,
        "virtio_net": lambda e: (f"driver {e['bdf']}", e["step"]),
        "devcmd": _ionic_lif,
        "q_init": _ionic_queue_rows(),
        "rdma_qp": qp,
        "rdma_modify_qp": qp,
        "p4_load": lambda e: (f"{e['path']} P4 program", f"{e['source']} ({e['features']})"),
        "ionic": lambda e: (f"driver {e['bdf']}", e["step"]),
        "ionic_rdma": lambda e: (f"driver {e['bdf']} RDMA", e["step"]),
        "pciehp": lambda e: (f"pciehp {e['port']}", e["state"]) if e.get("op") == "state" else None,
        "work_started": lambda e: ("worker", e["type"].replace("PCI_CFG_WORK_", "")),
        "work_finished": lambda e: ("worker", "idle"),
    }
    markers = {
        "reset_generation": lambda e: (f"ep{e['ep']} slot", f"reset generation {e['gen']}"),
        "config_interrupt": lambda e: (f"ep{e['ep']} slot", "config interrupt"),
        "device_needs_reset": lambda e: (f"{e['path']} engine", "DEVICE_NEEDS_RESET"),
        "command": lambda e: ("commands", e["line"]),
        "invariant_violation": lambda e: ("violations", f"{e['kind']}: {e['detail']}"),
        "cpl_timeout": lambda e: ("violations", f"completion timeout {e['type']} tag {e['tag']}"),
    }
    rows = {}
    end = 0
    for e in events:
        t = e["time_ps"]
        end = max(end, t)
        ev = e["event"]
        if ev in extract:
            got = extract[ev](e)
            if got is None:
                continue
            name, state = got
            row = rows.setdefault(name, ([], []))
            segs = row[0]
            if segs and segs[-1][2] == state:
                continue
            if segs and segs[-1][1] is None:
                segs[-1] = (segs[-1][0], t, segs[-1][2])
            segs.append((t, None, state))
        elif ev in markers:
            name, label = markers[ev](e)
            rows.setdefault(name, ([], []))[1].append((t, label))
    out = []
    for name, (segs, marks) in rows.items():
        segs = [(a, end if b is None else b, s) for a, b, s in segs]
        out.append((name, [s for s in segs if s[1] > s[0]], marks))
    return out, end


def invariants(events, run_info):
    """[(check, ok, detail)]: what the invariant checker and the run's end say."""
    checks = []
    violations = [e for e in events if e["event"] == "invariant_violation"]
    unexpected = [v for v in violations if not v.get("expected")]
    if unexpected:
        detail = "; ".join(f"{v['kind']} at {v['time_ps']} ps ({v['path']}): {v['detail']}" for v in unexpected)
    else:
        detail = f"{len(violations)} expected" if violations else "none"
    checks.append(("no unexpected invariant violation", not unexpected, detail))
    end = [e for e in events if e["event"] == "platform_end"]
    if end:
        n = end[-1]["outstanding_np"]
        checks.append(("every non-posted request completed or timed out", n == 0,
                       f"{n} outstanding at the end" if n else f"{end[-1]['tlps']} TLPs, none outstanding"))
    else:
        checks.append(("the run reached its end", False, "no platform_end event: the run stopped early"))
    for e in events:
        if e["event"] == "frame_ledger":
            ok = e["sent"] == e["received"] + e["dropped"] + e["in_flight"]
            checks.append(("frames conserved (sent = received + dropped + in flight)", ok,
                           f"sent {e['sent']}, received {e['received']}, dropped {e['dropped']}"
                           f"{' (' + e['drops'] + ')' if e['drops'] else ''}, in flight {e['in_flight']}"))
    if run_info is not None:
        failure = run_info.get("failure") or run_info.get("error")
        checks.append(("the scenario passed", run_info.get("ok", False), failure or "ok"))
    return checks


def log_lines(events):
    """[(time_ps, path, level, msg)] of the `log` events."""
    return [(e["time_ps"], e["path"], e.get("level", ""), e.get("msg", "")) for e in events if e["event"] == "log"]


def stats(values):
    """(count, min, median, p90, p99, max) of a list of numbers (nearest-rank percentiles)."""
    v = sorted(values)
    n = len(v)

    def rank(p):
        return v[min(n - 1, max(0, -(-p * n // 100) - 1))]
    return n, v[0], rank(50), rank(90), rank(99), v[-1]
