"""The timer every benchmark shares: one clock, one way to time a call, in one process.

* ``timed(fn)``: median time of one call, over blocks of calls (a pause of the shared machine
  spoils one block, not the figure); ``block=0`` times single calls.
* ``interleaved({name: fn})``: per-round times of several functions, each round running a block
  of calls of every function in turn (a change of load hits all of them alike).
* ``fastest(fn)``: the fastest of a few single calls, in wall-clock and in CPU time.
* ``Stopwatch``: wall-clock and CPU time of a ``with`` block (for runs too long to repeat).
* ``machine()``: one line naming the versions, the CPUs and the load, printed before a table.

Every benchmark times its baseline with the same functions, in the same process, and prints
the ratio baseline / bacc.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable


class Stopwatch:
    """Wall-clock (``wall``) and CPU time of this process (``cpu``) spent in a ``with`` block,
    in seconds."""

    wall: float = 0.0
    cpu: float = 0.0

    def __enter__(self) -> Stopwatch:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def once(fn: Callable[[], object]) -> tuple[object, float]:
    """The result of one call of ``fn`` and its wall-clock time in seconds."""
    with Stopwatch() as sw:
        out = fn()
    return out, sw.wall


def timed(fn: Callable[[], object], repeat: int = 5, block: float = 0.05,
          most: int = 2000) -> float:
    """Median time of one call of ``fn``: ``repeat`` blocks of calls, each about ``block``
    seconds long (at most ``most`` calls), after one call to warm up (imports, caches).
    ``block=0`` times ``repeat`` single calls."""
    number = _calls_per_block(fn, block, most)
    times = []
    for _ in range(repeat):
        with Stopwatch() as sw:
            for _ in range(number):
                fn()
        times.append(sw.wall / number)
    return statistics.median(times)


def interleaved(fns: dict[str, Callable[[], object]], rounds: int = 15, block: float = 0.02,
                most: int = 2000) -> dict[str, list[float]]:
    """Per-round time of one call of each function: every round runs a block of calls of each
    function in turn, so a change of load on the machine hits all of them alike. The ratio of
    two functions is best taken round by round (``ratio_by_round``)."""
    number = {name: _calls_per_block(fn, block, most) for name, fn in fns.items()}
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            with Stopwatch() as sw:
                for _ in range(number[name]):
                    fn()
            times[name].append(sw.wall / number[name])
    return times


def ratio_by_round(times: dict[str, list[float]], baseline: str, ours: str) -> float:
    """Median over the rounds of ``interleaved`` of the ratio baseline / ours."""
    return statistics.median(a / b for a, b in zip(times[baseline], times[ours], strict=True))


def fastest(fn: Callable[[], object], repeat: int = 3) -> tuple[float, float]:
    """The fastest of ``repeat`` single calls of ``fn`` (no warm-up): (wall-clock seconds, CPU
    seconds of this process), each the smallest of its kind. CPU time is what a call costs
    without the waits of a shared machine."""
    walls, cpus = [], []
    for _ in range(repeat):
        with Stopwatch() as sw:
            fn()
        walls.append(sw.wall)
        cpus.append(sw.cpu)
    return min(walls), min(cpus)


def machine(*modules: str) -> str:
    """One line: Python and the given modules' versions, the CPUs and the load average."""
    parts = [f"python {platform.python_version()}"]
    for name in modules:
        try:
            parts.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            parts.append(f"{name} -")
    return ", ".join(parts) + f", {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"


def _calls_per_block(fn: Callable[[], object], block: float, most: int) -> int:
    fn()  # warm-up
    if block <= 0:
        return 1
    _, one = once(fn)
    return max(1, min(most, int(block / max(one, 1e-7))))
