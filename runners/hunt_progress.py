"""`opconform hunt`'s progress: one line on a terminal, redrawn; a line every few seconds in a log."""

from __future__ import annotations

import sys
import time


class Progress:
    """One line on a terminal, redrawn; a line every `every` seconds in a log."""

    def __init__(self, stream=None, every: float = 10.0):
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = 0.25 if self.tty else every
        self.last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
