"""Independent chunks of array work on several threads.

numpy's and scipy's element-wise functions release the interpreter lock while they run, so
chunks of vectorised work (the quadratures of :func:`bacc.evaluate_many`) proceed in parallel
on threads: no processes to start, no data to copy. Each chunk writes its own rows of the
outputs; the numbers do not depend on how many threads run them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import TypeVar

import numpy as np

from ...errors import BaccError

__all__ = ["Background", "available_cpus", "check_workers", "run_chunks"]

T = TypeVar("T")
R = TypeVar("R")
_MAX_DEFAULT = 8


def available_cpus() -> int:
    """CPUs this process may run on (its affinity where the system reports it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not every platform has affinity
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int | None) -> int:
    """``workers`` as a thread count: ``None`` is every available CPU (at most 8)."""
    if workers is None:
        return min(available_cpus(), _MAX_DEFAULT)
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise BaccError(f"workers must be a positive whole number or None, got {workers!r}")
    return int(workers)


def run_chunks(func: Callable[[T], R], chunks: Sequence[T], workers: int) -> Iterator[R]:
    """``func(chunk)`` for every chunk, on up to ``workers`` threads; results as they finish.

    With one worker or one chunk everything runs in the calling thread, in order. An exception
    in any chunk is raised here (the chunks not yet started are cancelled).
    """
    if workers <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            yield func(chunk)
        return
    with ThreadPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        todo: Iterable = iter(chunks)
        running = set()
        for chunk in todo:
            running.add(pool.submit(func, chunk))
            if len(running) >= 2 * workers:
                break
        try:
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
                for chunk in todo:
                    running.add(pool.submit(func, chunk))
                    if len(running) >= 2 * workers:
                        break
        finally:
            for fut in running:
                fut.cancel()


class Background:
    """``job()`` on a thread of its own while the caller goes on (at once, in the caller's
    thread, when not ``enabled``). :meth:`result` waits for it and raises what it raised. The
    thread is a daemon: if the caller fails first, nothing waits for it."""

    def __init__(self, job: Callable[[], object], enabled: bool = True) -> None:
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if not enabled:
            job()
            return

        def run() -> None:
            try:
                job()
            except BaseException as exc:  # re-raised in result()
                self._error = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self) -> None:
        """Wait for the job; raise its exception, if any."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
