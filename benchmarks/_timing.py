"""The timer the benchmarks share: medians over blocks of calls, in one process."""

from __future__ import annotations

import statistics
import time


def timed(fn, repeat: int = 5, block: float = 0.05, most: int = 2000) -> float:
    """Median time of one call of ``fn``: ``repeat`` blocks of calls, each about ``block``
    seconds long (a pause of the shared machine spoils one block, not the figure)."""
    fn()
    t = time.perf_counter()
    fn()
    number = max(1, min(most, int(block / max(time.perf_counter() - t, 1e-7))))
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return statistics.median(times)
