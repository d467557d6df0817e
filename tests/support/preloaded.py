"""Run Python scripts as ``python script.py args`` (or ``python -m module args``) would, forked
from a process that has already imported numpy and scipy.

Each of the 25 benchmark scripts' quick runs (tests/test_package_benchmarks.py), and each
``python -m bacc`` run of a test that needs no process of its own, paid about 0.7 s to import
numpy and scipy's modules before it began. Here a server process imports them once; each script
then runs in a child forked from it, with the script's own folder (or, for a module, the working
folder) first on ``sys.path``, its own working folder, arguments, environment and umask,
standard input empty, its standard output and error in files, and its exit status as a fresh
process would give it (0, the code of ``sys.exit``, or 1 after an uncaught exception, whose
traceback is on standard error); tests/test_package_benchmarks.py compares it with a fresh
process. Only numpy and scipy are preloaded: importing a package loads nothing that a script
could then use without importing it (numpy loads its submodules itself, and scipy loads each
submodule on first use whether or not it was imported), so a script that forgets an import
fails here as it would fresh. bacc is not preloaded: ``bacc.<module>`` without
``import bacc.<module>`` fails fresh, and must fail here too. What Python reads when it starts
(``PYTHONWARNINGS``, the locale) is the server's.

The server is single-threaded (OpenBLAS is given one thread before numpy starts), so forking it
is safe; it serves one script at a time, and a new one starts after a timeout ended it. Where
there is no ``fork`` (Windows) each run is a new process.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
from pathlib import Path

PRELOAD = ("numpy", "scipy.fft", "scipy.integrate", "scipy.linalg", "scipy.optimize",
           "scipy.special", "scipy.stats")


# ---------------------------------------------------------------------------------- the server
def _child(job: dict) -> None:
    """Run one script in this forked process and leave with its exit status (never returns)."""
    import atexit
    import runpy
    import traceback

    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            f = os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(f, fd)
            os.close(f)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                          closefd=False)
        os.chdir(job["cwd"])
        if job.get("env") is not None:  # read when used (not at start-up): as the caller has it
            os.environ.clear()
            os.environ.update(job["env"])
        if job.get("umask") is not None:
            os.umask(job["umask"])
        try:
            if job.get("module"):  # python -m module: the working folder first on sys.path
                sys.argv = [job["module"], *job["args"]]
                sys.path[0] = os.getcwd()
                runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
            else:
                sys.argv = [job["script"], *job["args"]]
                sys.path[0] = os.path.dirname(os.path.abspath(job["script"]))
                runpy.run_path(job["script"], run_name="__main__")
            code = 0
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - the status is what is reported
                pass
        os._exit(code)


def serve() -> None:
    """Import ``PRELOAD``, then run each job read from standard input (a JSON line) in a forked
    child, answering with a JSON line ``{"code": exit status}``."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing else may write to the answers' pipe
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(job)
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")


# ---------------------------------------------------------------------------------- the client
class Preloaded:
    """A server of :func:`serve` in its own process group, with the environment ``env``."""

    def __init__(self, env: dict[str, str]) -> None:
        self._env = {**env, "OPENBLAS_NUM_THREADS": "1"}
        self._proc = None
        self._start()

    def _start(self) -> None:
        self._proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, env=self._env,
                                      start_new_session=True)

    def run(self, script: Path | None, args: list[str], cwd: Path, timeout: float, *,
            module: str | None = None, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess:
        """``python script *args`` (or ``python -m module *args``) in ``cwd``: the completed
        process (standard output and error as text). With ``env``, the script sees that
        environment (the variables Python reads at start-up are the server's); it has the
        caller's umask. Past ``timeout`` seconds the server and the script are killed and
        ``subprocess.TimeoutExpired`` is raised."""
        import tempfile

        command = [sys.executable, *(["-m", module] if module else [str(script)]), *args]
        if not hasattr(os, "fork"):  # no fork (Windows): a new process, as the caller asked
            return subprocess.run(command, cwd=cwd, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout, check=False)
        if self._proc.poll() is not None:  # ended by an earlier timeout: a new server
            self._start()
        mask = os.umask(0o077)
        os.umask(mask)
        outputs = Path(tempfile.mkdtemp(prefix="preloaded-"))
        job = {"script": str(script) if script else None, "module": module, "args": list(args),
               "cwd": str(cwd), "stdout": str(outputs / "stdout"), "stderr": str(outputs / "stderr"),
               "env": env, "umask": mask}
        self._proc.stdin.write(json.dumps(job) + "\n")
        self._proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(self._proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout)
        if not ready:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self.close()
            raise subprocess.TimeoutExpired(command, timeout)
        answer = self._proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the preloaded server ended while running {' '.join(command)}")
        code = json.loads(answer)["code"]
        out = (outputs / "stdout").read_text(encoding="utf-8", errors="replace")
        err = (outputs / "stderr").read_text(encoding="utf-8", errors="replace")
        shutil.rmtree(outputs, ignore_errors=True)
        return subprocess.CompletedProcess(command, code, out, err)

    def close(self) -> None:
        """End the server: at once when it does not stop within 10 s of the end of its input
        (a script still running is killed with it)."""
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._proc.wait()
        self._proc.stdout.close()


_SERVER: list[Preloaded] = []


def python_m(module: str, args, *, cwd: Path | str | None = None, timeout: float = 120,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m module *args`` as a new process gives it, run by a server shared within this
    test process: in ``cwd``, with this process's environment (at the call), ``MPLBACKEND=Agg``
    and ``env`` added, and its umask. Standard input is empty: a run that reads it, or that
    checks the process itself (its start-up imports, its terminal), needs a real process."""
    if not _SERVER:
        import atexit

        _SERVER.append(Preloaded({**os.environ, "MPLBACKEND": "Agg"}))
        atexit.register(_SERVER[0].close)
    return _SERVER[0].run(None, [str(a) for a in args], cwd=Path(cwd or os.getcwd()),
                          timeout=timeout, module=module,
                          env={**os.environ, "MPLBACKEND": "Agg", **(env or {})})


if __name__ == "__main__":
    serve()
