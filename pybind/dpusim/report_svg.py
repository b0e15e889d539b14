"""Inline SVG for the run report: stacked latency histograms on a logarithmic axis and the
timeline of state changes. Plain text, no plotting library, the same bytes for the same data;
every bar, segment and marker carries a <title> (the browser's tooltip)."""
import math
from html import escape

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac", "#1f77b4", "#8c564b"]
# States that read as "working" or "not there" get fixed colours; others take the palette.
GOOD = {"up", "present", "enabled", "ENABLED", "traffic_ok", "open", "ON_STATE", "idle"}
OFF = {"down", "empty", "disabled", "stopped", "DESTROYED", "OFF_STATE", "0 enabled"}
BINS_PER_DECADE = 4


def fmt_ps(ps):
    """A duration in picoseconds with its unit: 635 ps, 2.64 ns, 1.50 ms, 2.18 s."""
    for unit, scale in (("s", 10**12), ("ms", 10**9), ("µs", 10**6), ("ns", 10**3)):
        if abs(ps) >= scale:
            return f"{ps / scale:.3g} {unit}"
    return f"{ps} ps"


def _nice_step(span, ticks=8):
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def histogram(series, width=660, height=230):
    """Stacked histogram of {series name: [latency ps]} over logarithmic bins."""
    names = [n for n in series if series[n]]
    if not names:
        return "<p>No samples.</p>"
    # Zero durations (a step that takes no simulated time) get a bin of their own, left of the
    # logarithmic axis; the axis spans at least one decade.
    zeros = {n: sum(1 for v in series[n] if v <= 0) for n in names}
    logs = {n: [math.log10(v) for v in series[n] if v > 0] for n in names}
    positive = [x for l in logs.values() for x in l] or [0.0]
    lo = math.floor(min(positive) * BINS_PER_DECADE) / BINS_PER_DECADE
    hi = max((math.floor(max(positive) * BINS_PER_DECADE) + 1) / BINS_PER_DECADE, lo + 1)
    zero_bin = any(zeros.values())
    nbins = round((hi - lo) * BINS_PER_DECADE) + zero_bin
    counts = {n: [0] * nbins for n in names}
    for n in names:
        counts[n][0] += zeros[n]
        for x in logs[n]:
            counts[n][zero_bin + min(nbins - 1 - zero_bin, int((x - lo) * BINS_PER_DECADE))] += 1
    top = max(sum(counts[n][b] for n in names) for b in range(nbins))
    left, right, bottom, head = 48, 28, 34, 10
    cols = 3 if max(map(len, names)) <= 24 else 2 if max(map(len, names)) <= 40 else 1
    legend_h = 18 * ((len(names) + cols - 1) // cols)
    pw, ph = width - left - right, height - bottom - head
    bw = pw / nbins
    out = [f'<svg class="hist" width="{width}" height="{height + legend_h}" '
           f'viewBox="0 0 {width} {height + legend_h}" xmlns="http://www.w3.org/2000/svg">']
    for b in range(nbins):
        y = head + ph
        k = b - zero_bin
        a, z = 10 ** (lo + k / BINS_PER_DECADE), 10 ** (lo + (k + 1) / BINS_PER_DECADE)
        span = "= 0" if k < 0 else f"in [{fmt_ps(round(a))}, {fmt_ps(round(z))})"
        for i, n in enumerate(names):
            c = counts[n][b]
            if not c:
                continue
            h = ph * c / top
            y -= h
            out.append(f'<rect x="{left + b * bw + 1:.1f}" y="{y:.1f}" width="{max(bw - 2, 1):.1f}" height="{h:.1f}" '
                       f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(n)}: {c} {span}</title></rect>')
    out.append(f'<line x1="{left}" y1="{head + ph}" x2="{left + pw}" y2="{head + ph}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{head}" x2="{left}" y2="{head + ph}" stroke="#333"/>')
    if zero_bin:
        out.append(f'<text x="{left + bw / 2:.1f}" y="{head + ph + 16}" text-anchor="middle">0</text>')
    for k in range(math.ceil(lo), math.floor(hi) + 1):
        x = left + ((k - lo) * BINS_PER_DECADE + zero_bin) * bw
        out.append(f'<line x1="{x:.1f}" y1="{head + ph}" x2="{x:.1f}" y2="{head + ph + 4}" stroke="#333"/>'
                   f'<text x="{x:.1f}" y="{head + ph + 16}" text-anchor="middle">{fmt_ps(10 ** k)}</text>')
    for frac in (0, 0.5, 1):
        y = head + ph - ph * frac
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{round(top * frac)}</text>')
    for i, n in enumerate(names):
        x, y = 10 + (i % cols) * (width // cols), height + 12 + 18 * (i // cols)
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>'
                   f'<text x="{x + 14}" y="{y}">{escape(n)} ({len(series[n])})</text>')
    out.append("</svg>")
    return "".join(out)


def _state_colours(rows):
    states = sorted({s for _, segs, _ in rows for _, _, s in segs} - GOOD - OFF)
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(states)}
    colours.update({s: "#59a14f" for s in GOOD})
    colours.update({s: "#d0d0d0" for s in OFF})
    colours["idle"] = "#e8f0e0"
    return colours


def timeline(rows, end_ps, width=1000):
    """Rows of state segments and markers against simulated time."""
    if not rows or end_ps <= 0:
        return "<p>No state changes.</p>"
    label_w, row_h, head = 170, 18, 24
    pw = width - label_w - 10
    height = head + row_h * len(rows) + 6
    colours = _state_colours(rows)

    def x(t):
        return label_w + pw * t / end_ps
    out = [f'<svg class="timeline" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'xmlns="http://www.w3.org/2000/svg">']
    step = _nice_step(end_ps)
    t = 0
    while t <= end_ps:
        out.append(f'<line x1="{x(t):.1f}" y1="{head - 6}" x2="{x(t):.1f}" y2="{height}" stroke="#eee"/>'
                   f'<text x="{x(t):.1f}" y="{head - 10}" text-anchor="middle">{fmt_ps(t) if t else "0"}</text>')
        t += step
    for i, (name, segs, marks) in enumerate(rows):
        y = head + i * row_h
        out.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{escape(name)}</text>')
        for a, b, state in segs:
            w = max(x(b) - x(a), 0.5)
            out.append(f'<rect x="{x(a):.2f}" y="{y + 2}" width="{w:.2f}" height="{row_h - 4}" '
                       f'fill="{colours[state]}"><title>{escape(name)}: {escape(state)} from {fmt_ps(a)} to '
                       f'{fmt_ps(b)} ({fmt_ps(b - a)})</title></rect>')
            if w > 7 * len(state) + 6:
                out.append(f'<text class="seg" x="{x(a) + 3:.2f}" y="{y + 12}">{escape(state)}</text>')
        for t, label in marks:
            cx = x(t)
            out.append(f'<path d="M{cx:.2f} {y + 2} l4 6 l-4 6 l-4 -6 z" fill="#222"><title>{escape(name)} at '
                       f'{fmt_ps(t)}: {escape(label)}</title></path>')
    out.append("</svg>")
    return "".join(out)
