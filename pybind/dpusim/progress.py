"""Progress of a long sweep (a study's variants, a benchmark's runs, an exploration's seeds):
a bar redrawn in place on a terminal, one plain line per step otherwise (a CI log, a pipe).

    bar = Progress(len(points), "seeds")
    for p in points:
        ...
        bar.step(f"seed {p}")
    bar.close()

It writes to stderr by default, so a command's stdout stays its own. The elapsed wall time is
shown on a terminal only: plain lines are the same from one run to the next.
"""
import sys
import time


class Progress:
    def __init__(self, total, label, stream=None, width=30):
        if total < 0:
            raise ValueError(f"progress total {total} is negative")
        self.total = total
        self.label = label
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._tty = hasattr(self._stream, "isatty") and self._stream.isatty()
        self._width = width
        self._start = time.monotonic()
        self._closed = False
        if self._tty:
            self._draw("")

    def step(self, note="", n=1):
        """Counts `n` more steps done; `note` says which (shown after the count)."""
        self.done += n
        if self._tty:
            self._draw(note)
        else:
            self._stream.write(f"{self.label}: {self.done}/{self.total}{' ' + note if note else ''}\n")
            self._stream.flush()

    def _draw(self, note):
        frac = self.done / self.total if self.total else 1.0
        full = min(self._width, int(frac * self._width))
        bar = "#" * full + "-" * (self._width - full)
        elapsed = time.monotonic() - self._start
        self._stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s {note}\x1b[K")
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
