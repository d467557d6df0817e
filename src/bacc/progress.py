"""A tiny progress bar on standard error, drawn only when standard error is a terminal.

No dependency. Long jobs (counting a large Parquet data set, evaluating thousands of groups)
report through it; in a pipe, a log file or CI nothing is written, so output stays clean.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar: ``label [#######.....]  57%  12.3 s``.

    Parameters
    ----------
    total : float, optional
        What ``update`` counts up to (default 100: a percentage). ``None`` draws an
        indeterminate bar (elapsed time only).
    label : str
        Text before the bar.
    enabled : bool
        ``False`` never draws. ``True`` (default) draws when ``stream`` is a terminal.
    stream : file-like, optional
        Where to draw (default ``sys.stderr``, looked up when the bar is created).
    delay : float
        Seconds to wait before drawing the first time, so that short jobs never flash a bar.
    min_interval : float
        Least number of seconds between two redraws.

    Examples
    --------
    >>> with Progress(3, "counting") as bar:   # draws only on a terminal
    ...     for _ in range(3):
    ...         bar.advance()
    """

    width = 28

    def __init__(
        self,
        total: float | None = 100.0,
        label: str = "",
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        delay: float = 0.5,
        min_interval: float = 0.1,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.total = total
        self.label = label
        self.done = 0.0
        self.delay = delay
        self.min_interval = min_interval
        self.on = bool(enabled) and _is_terminal(self.stream)
        self._start = time.monotonic()
        self._last = -1.0
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, done: float, detail: str = "") -> None:
        """Set the amount done (in units of ``total``) and redraw if it is time to."""
        self.done = float(done)
        self._draw(detail)

    def advance(self, step: float = 1.0, detail: str = "") -> None:
        """Add ``step`` to the amount done and redraw if it is time to."""
        self.update(self.done + step, detail)

    def close(self) -> None:
        """Erase the bar (if one was drawn)."""
        if self._drawn:
            self.stream.write("\r" + " " * self._line_width() + "\r")
            self.stream.flush()
            self._drawn = False

    # -- drawing ------------------------------------------------------------------------------
    def _line_width(self) -> int:
        return len(self.label) + self.width + 40

    def _draw(self, detail: str) -> None:
        if not self.on:
            return
        now = time.monotonic()
        elapsed = now - self._start
        if elapsed < self.delay or now - self._last < self.min_interval:
            return
        self._last = now
        if self.total:
            frac = min(max(self.done / self.total, 0.0), 1.0)
            full = int(self.width * frac)
            bar = "#" * full + "." * (self.width - full)
            text = f"{self.label} [{bar}] {frac * 100:3.0f}%  {elapsed:.1f} s"
        else:  # indeterminate: a marker that moves
            pos = int(elapsed * 8) % self.width
            bar = "." * pos + "#" + "." * (self.width - pos - 1)
            text = f"{self.label} [{bar}]  {elapsed:.1f} s"
        if detail:
            text += f"  {detail[:30]}"
        self.stream.write("\r" + text.ljust(self._line_width()))
        self.stream.flush()
        self._drawn = True


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # closed or detached stream
        return False
