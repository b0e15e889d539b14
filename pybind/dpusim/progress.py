"""A progress report for long commands: a bar redrawn in place on a terminal, plain lines
(at every tenth of the work) when the output is a file or a pipe. Other lines (a failing
seed) go above the bar. It reads the wall clock to show elapsed time: that is the command's,
never a simulated run's."""
import sys
import time


class Progress:
    WIDTH = 30

    def __init__(self, total, what="seeds", stream=None, tty=None):
        self.total = total
        self.what = what
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.failed = 0
        self.start = time.monotonic()
        self._drawn = False
        self._next_line = 1
        self._last_draw = 0.0

    def elapsed(self):
        return time.monotonic() - self.start

    def _status(self):
        return f"{self.done}/{self.total} {self.what}, {self.failed} failed, {self.elapsed():.1f} s"

    def _clear(self):
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self._drawn = False

    def _draw(self):
        filled = self.WIDTH * self.done // max(self.total, 1)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self._status()}")
        self.stream.flush()
        self._drawn = True

    def line(self, text):
        """A line above the bar."""
        self._clear()
        self.stream.write(text + "\n")
        if self.tty:
            self._draw()
        self.stream.flush()

    def advance(self, failed=False):
        self.done += 1
        self.failed += int(failed)
        if self.tty:
            now = time.monotonic()
            if now - self._last_draw >= 0.1 or self.done == self.total:
                self._last_draw = now
                self._draw()
        elif self.done * 10 >= self._next_line * self.total or self.done == self.total:
            while self.done * 10 >= self._next_line * self.total:
                self._next_line += 1
            self.stream.write(self._status() + "\n")
            self.stream.flush()

    def close(self):
        if self.tty and self._drawn:
            self.stream.write("\n")
            self._drawn = False
        self.stream.flush()
