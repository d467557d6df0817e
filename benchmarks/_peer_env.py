"""Virtual environments for the peers a benchmark compares bacc with (under
``benchmarks/.peer-envs/``, not in git): made once from the package registry, marked ready with
what they were made from, and reused while that is unchanged."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path


def env_python(env: Path) -> Path:
    """The python of the environment ``env``."""
    return env / "bin" / "python"


def _wanted(python: str, steps: list) -> str:
    return json.dumps({"python": python, "steps": steps})


def is_ready(env: Path, python: str, steps: list) -> bool:
    """Whether ``env`` was made, by this python version, from these install steps."""
    marker = env / ".ready"
    return (marker.exists() and marker.read_text() == _wanted(python, steps)
            and env_python(env).exists())


def make_env(env: Path, interpreter: str, python: str, steps: list, check: str) -> str | None:
    """Make ``env`` afresh with ``interpreter`` (version ``python``): ``pip install`` each step,
    then run ``check``; every command and its output go to ``<env>.log`` beside it. Returns
    None when made and marked ready, else why not."""
    shutil.rmtree(env, ignore_errors=True)
    env.parent.mkdir(parents=True, exist_ok=True)
    py = env_python(env)
    log = env.parent / f"{env.name}.log"
    commands = [[interpreter, "-m", "venv", str(env)]]
    commands += [[str(py), "-m", "pip", "install", *step] for step in steps]
    commands += [[str(py), "-c", check]]
    with log.open("w") as fh:
        for cmd in commands:
            fh.write("$ " + " ".join(cmd) + "\n")
            fh.flush()
            try:
                rc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT,
                                    timeout=1800).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            if rc != 0:
                return f"did not install ({' '.join(cmd[1:5])}: exit {rc}; see {log})"
    (env / ".ready").write_text(_wanted(python, steps))
    return None
