"""The run report: one self-contained HTML page (DIR/report.html) from a run's outputs.

    ./dpusim report DIR

It shows the scenario, seed and hash; a timeline of the main state changes per device; the
latency distributions of TLP round trips, work items and frames (inline SVG); the
invariants' results; the log, filtered by level in the page; links to the VCD, the pcaps and
the trace. A study's report also shows its figures and links its variants' reports. The page
needs no network: styles, figures and its small script are inline. The same outputs give the
same bytes (no generation date).
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import sys
from html import escape

from dpusim import report_data as data
from dpusim.report_svg import fmt_ps, histogram, timeline

# A page with more log lines than this shows the first ones and says how many it left out.
MAX_LOG_LINES = 20000

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:16px 0 4px}
table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}
th{background:#f6f6f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:600}.fail{color:#c62828;font-weight:600}
svg text{font:11px system-ui,sans-serif;fill:#333}svg text.seg{fill:#111;font-size:10px}
code,pre{font:12px ui-monospace,monospace}pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:300px}
#log td{font:12px ui-monospace,monospace;white-space:pre-wrap}#log tr.error td{color:#c62828}
#log tr.warning td{color:#a15c00}.meta td:first-child{color:#666}
"""

SCRIPT = """
(function () {
  var level = document.getElementById('log-level'), text = document.getElementById('log-text');
  var rows = document.querySelectorAll('#log tbody tr'), shown = document.getElementById('log-shown');
  var order = {error: 0, warning: 1, info: 2, debug: 3};
  function apply() {
    var max = level.value === 'all' ? 9 : order[level.value], needle = text.value.toLowerCase(), n = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], lv = order[r.className];
      var on = (lv === undefined ? 2 : lv) <= max && (!needle || r.textContent.toLowerCase().indexOf(needle) >= 0);
      r.style.display = on ? '' : 'none';
      if (on) n++;
    }
    shown.textContent = n + ' of ' + rows.length + ' lines shown';
  }
  if (level) { level.addEventListener('change', apply); text.addEventListener('input', apply); apply(); }
  var ready = document.createElement('div');
  ready.id = 'report-ready';
  ready.hidden = true;
  ready.textContent = 'report script ran';
  document.body.appendChild(ready);
})();
"""


class ReportError(Exception):
    pass


def _stats_table(series, label):
    rows = [f"<tr><th>{escape(label)}</th><th>count</th><th>min</th><th>median</th><th>p90</th><th>p99</th>"
            "<th>max</th></tr>"]
    for name in sorted(series):
        n, lo, p50, p90, p99, hi = data.stats(series[name])
        cells = "".join(f'<td class="num">{fmt_ps(v)}</td>' for v in (lo, p50, p90, p99, hi))
        rows.append(f'<tr><td>{escape(name)}</td><td class="num">{n}</td>{cells}</tr>')
    return "<table>" + "".join(rows) + "</table>"


def _distribution(title, series, label, what):
    if not series:
        return f"<h3>{escape(title)}</h3><p>No {escape(what)} in this run.</p>"
    return (f"<h3>{escape(title)}</h3>" + histogram({k: series[k] for k in sorted(series)}) +
            _stats_table(series, label))


def _outputs(out):
    links = []

    def link(name, note):
        if os.path.exists(os.path.join(out, name)):
            links.append(f'<li><a href="{escape(name)}">{escape(name)}</a>: {note}</li>')
    link("events.jsonl", "the event log (one JSON object per line; its SHA-256 is the run's hash)")
    link("waves.vcd", "waveforms: <code>gtkwave waves.vcd</code> (views in the repository's waveforms/)")
    for p in sorted(glob.glob(os.path.join(out, "*.pcap"))):
        link(os.path.basename(p), "frames on a wire, for Wireshark or <code>tshark -r</code>")
    link("trace.json", "the Chrome trace: open it in ui.perfetto.dev (Open trace file) or chrome://tracing")
    link("study.json", "the study's figures")
    return "<ul>" + "".join(links) + "</ul>" if links else "<p>No other outputs.</p>"


def _log(lines):
    levels = sorted({lv for _, _, lv, _ in lines})
    counts = ", ".join(f"{sum(1 for l in lines if l[2] == lv)} {escape(lv)}" for lv in levels)
    head = (f"<p>{len(lines)} lines ({counts}). Show <select id=\"log-level\"><option value=\"all\">all levels"
            "</option><option value=\"error\">errors</option><option value=\"warning\">warnings and worse</option>"
            "<option value=\"info\">info and worse</option><option value=\"debug\">debug and worse</option>"
            "</select> containing <input id=\"log-text\" placeholder=\"text\"> <span id=\"log-shown\"></span></p>")
    rows = []
    for t, path, lv, msg in lines[:MAX_LOG_LINES]:
        rows.append(f'<tr class="{escape(lv)}"><td class="num">{t}</td><td>{escape(path)}</td><td>{escape(lv)}</td>'
                    f"<td>{escape(msg)}</td></tr>")
    more = ""
    if len(lines) > MAX_LOG_LINES:
        more = (f"<p>The first {MAX_LOG_LINES} lines are shown; {len(lines) - MAX_LOG_LINES} more are in "
                "events.jsonl.</p>")
    return (head + '<table id="log"><thead><tr><th>time_ps</th><th>path</th><th>level</th><th>message</th></tr>'
            "</thead><tbody>" + "".join(rows) + "</tbody></table>" + more)


def build(out, scenario=None, variants=()):
    """The report page of the run in directory `out`, as text."""
    log_path = os.path.join(out, "events.jsonl")
    if not os.path.isfile(log_path):
        raise ReportError(f"{out} has no events.jsonl (the outputs of ./dpusim run)")
    with open(log_path, "rb") as f:
        raw = f.read()
    try:
        events = [json.loads(line) for line in raw.splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        raise ReportError(f"{log_path}: not an event log ({e})")
    info = None
    if os.path.isfile(os.path.join(out, "run.json")):
        with open(os.path.join(out, "run.json")) as f:
            info = json.load(f)
    start = next((e for e in events if e["event"] == "platform_start"), {})
    scenario = scenario or (info or {}).get("scenario") or "(not recorded: no run.json)"
    seed = start.get("seed", (info or {}).get("seed"))
    end_ps = max((e["time_ps"] for e in events), default=0)
    checks = data.invariants(events, info)
    passed = all(ok for _, ok, _ in checks)

    parts = [f"<h1>dpusim run report</h1><table class=\"meta\">"
             f"<tr><td>scenario</td><td><code>{escape(scenario)}</code></td></tr>"
             f"<tr><td>seed</td><td>{seed}</td></tr>"
             f"<tr><td>hash</td><td><code>{hashlib.sha256(raw).hexdigest()}</code> (SHA-256 of events.jsonl)</td></tr>"
             f"<tr><td>platform</td><td>{escape(str(start.get('endpoints', '')))}</td></tr>"
             f"<tr><td>simulated time</td><td>{fmt_ps(end_ps)} ({end_ps} ps), {len(events)} events</td></tr>"
             f"<tr><td>result</td><td class=\"{'ok' if passed else 'fail'}\">"
             f"{'passed' if passed else 'FAILED'}</td></tr></table>"]

    rows, tl_end = data.timeline(events)
    parts.append("<h2>Timeline</h2><p>The main state changes of each device against simulated time (hover for "
                 "details; markers are one-off events).</p>" + timeline(rows, tl_end))

    parts.append("<h2>Latency</h2>")
    parts.append(_distribution("TLP round trips (request's first hop to the completion's arrival)",
                               data.tlp_round_trips(events), "request", "non-posted requests"))
    run, wait = data.work_items(events)
    parts.append(_distribution("Work items on the worker (started to finished)", run, "type", "work items"))
    parts.append(_distribution("Work items in the queue (queued to started)", wait, "type", "work items"))
    parts.append(_distribution("Frames", data.frames(events), "path", "frames"))

    parts.append("<h2>Invariants</h2><table><tr><th>check</th><th>result</th><th>detail</th></tr>" + "".join(
        f"<tr><td>{escape(c)}</td><td class=\"{'ok' if ok else 'fail'}\">{'pass' if ok else 'FAIL'}</td>"
        f"<td>{escape(d)}</td></tr>" for c, ok, d in checks) + "</table>")

    if os.path.isfile(os.path.join(out, "study.png")) or variants:
        parts.append("<h2>Study</h2>")
        png = os.path.join(out, "study.png")
        if os.path.isfile(png):
            with open(png, "rb") as f:
                parts.append(f'<img alt="study figures" src="data:image/png;base64,'
                             f'{base64.b64encode(f.read()).decode()}" style="max-width:100%">')
        study = os.path.join(out, "study.json")
        if os.path.isfile(study):
            with open(study) as f:
                parts.append(f"<pre>{escape(f.read())}</pre>")
        if variants:
            parts.append("<p>Variants: " + ", ".join(
                f'<a href="{escape(v)}/report.html">{escape(v)}</a>' for v in variants) + "</p>")

    parts.append("<h2>Log</h2>" + _log(data.log_lines(events)))
    parts.append("<h2>Outputs</h2>" + _outputs(out))
    title = f"dpusim report: {os.path.basename(scenario)}"
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) +
            f"\n<script>{SCRIPT}</script>\n</body></html>\n")


def write_report(out, scenario=None, variants=()):
    """Writes DIR/report.html; returns its path."""
    page = build(out, scenario, variants)
    path = os.path.join(out, "report.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path


def report_command(args):
    parser = argparse.ArgumentParser(prog="dpusim report", description="Write DIR/report.html from a run's outputs.")
    parser.add_argument("dir", help="a run's output directory (events.jsonl, and what else it wrote)")
    try:
        opts = parser.parse_args(args)
    except SystemExit as e:
        return 2 if e.code else 0
    if not os.path.isdir(opts.dir):
        print(f"dpusim: {opts.dir} is not a directory", file=sys.stderr)
        return 2
    variants = sorted(d for d in os.listdir(opts.dir)
                      if os.path.isfile(os.path.join(opts.dir, d, "events.jsonl")))
    try:
        paths = [write_report(os.path.join(opts.dir, v)) for v in variants]
        paths.append(write_report(opts.dir, variants=variants))
    except ReportError as e:
        print(f"dpusim: {e}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"output: {path}")
    return 0
