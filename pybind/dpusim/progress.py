"""Progress of a long sweep (a study's variants, a benchmark's runs, an exploration's seeds):
a bar redrawn in place on a terminal, plain lines otherwise (a CI log, a pipe).

    bar = Progress(len(points), "seeds")
    for p in points:
        ...
        bar.step(f"seed {p}", failed=not ok)
    bar.close()

Off a terminal a plain line is written every `every` steps (and at the last); other lines (a
failing seed) go above the bar with line(). It writes to stderr by default, so a command's
stdout stays its own. The elapsed wall time is the command's, never a simulated run's, and is
shown on a terminal only: plain lines are the same from one run to the next.
"""
import sys
import time


class Progress:
    def __init__(self, total, label, stream=None, width=30, every=1):
        if total < 0:
            raise ValueError(f"progress total {total} is negative")
        if every < 1:
            raise ValueError(f"progress interval {every} is below 1")
        self.total = total
        self.label = label
        self.done = 0
        self.failed = 0
        self._stream = stream if stream is not None else sys.stderr
        self._tty = hasattr(self._stream, "isatty") and self._stream.isatty()
        self._width = width
        self._every = every
        self._start = time.monotonic()
        self._closed = False
        self._note = ""
        if self._tty:
            self._draw()

    def elapsed(self):
        """Wall-clock seconds since the sweep started."""
        return time.monotonic() - self._start

    def _count(self):
        return f"{self.done}/{self.total}" + (f", {self.failed} failed" if self.failed else "")

    def step(self, note="", n=1, failed=False):
        """Counts `n` more steps done (`failed`: they failed); `note` says which."""
        before = self.done
        self.done += n
        self.failed += n if failed else 0
        self._note = note
        if self._tty:
            self._draw()
        elif self.done // self._every > before // self._every or self.done == self.total:
            self._stream.write(f"{self.label}: {self._count()}{' ' + note if note else ''}\n")
            self._stream.flush()

    def line(self, text):
        """A line of its own, above the bar."""
        if self._tty:
            self._stream.write("\r\x1b[K")
        self._stream.write(text if text.endswith("\n") else text + "\n")
        if self._tty:
            self._draw()
        self._stream.flush()

    def _draw(self):
        frac = self.done / self.total if self.total else 1.0
        full = min(self._width, int(frac * self._width))
        bar = "#" * full + "-" * (self._width - full)
        self._stream.write(f"\r{self.label} [{bar}] {self._count()} {self.elapsed():5.1f}s {self._note}\x1b[K")
        self._stream.flush()

    def close(self):
        """Ends the bar's line on a terminal (once)."""
        if self._tty and not self._closed:
            self._stream.write("\n")
            self._stream.flush()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
