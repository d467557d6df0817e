"""Files written by ``bacc``, as a careful Unix tool writes them.

``-o`` replaces a regular file atomically with the umask's permissions (an existing file keeps
its mode), writes a named pipe or a character device in place without replacing it, refuses a
folder, a socket, a block device or a link to nothing, and ``-o -`` is standard output. The
terminal width is read in one place and survives terminals of 0, 20 and 300 columns. Matrix
text with empty or malformed counts is refused with one line naming the problem.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import bacc
from bacc.cli import main

MATRIX = "42,3;6,4"
REPORT = ["report", "--matrix", MATRIX, "--no-pictures"]


def run(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``python -m bacc *args``: as a new process gives it, from a process with numpy and scipy
    imported (tests/support/preloaded.py), or a new process where ``kwargs`` ask for more
    (standard input, another working folder)."""
    if not kwargs:
        from support.preloaded import python_m

        return python_m("bacc", args, env=env)
    full_env = dict(os.environ, MPLBACKEND="Agg", **(env or {}))
    return subprocess.run([sys.executable, "-m", "bacc", *args], capture_output=True, text=True,
                          env=full_env, timeout=120, check=False, **kwargs)


def one_error_line(err: str, *needles: str) -> str:
    """The single ``bacc: error:`` line of ``err``, holding every needle."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bacc: error: "), lines[0]
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def umask():
    """Set the umask for one test (restored after it)."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


# ----------------------------------------------------------------------------------------------
# regular files: atomic, with the umask's permissions
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_report_gets_the_permissions_of_the_umask(tmp_path, capsys, umask, mask, mode):
    umask(mask)
    out = tmp_path / "r.html"
    assert main([*REPORT, "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert capsys.readouterr().out == f"wrote {out}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no temporary file left


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_an_existing_report_keeps_its_mode(tmp_path, capsys, umask, mode):
    umask(0o077)
    out = tmp_path / "r.html"
    out.write_text("old")
    out.chmod(mode)
    inode = out.stat().st_ino
    assert main([*REPORT, "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert out.stat().st_ino != inode  # replaced by a rename, not rewritten in place


def test_a_file_the_user_may_not_write_is_not_replaced(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.html"
    out.write_text("read only")
    out.chmod(0o444)
    real_access = os.access
    # as for a user other than root, who may write every file
    monkeypatch.setattr(os, "access", lambda p, m, **kw: False if os.fspath(p) == str(out)
                        and m == os.W_OK else real_access(p, m, **kw))
    assert main([*REPORT, "-o", str(out)]) == 2
    one_error_line(capsys.readouterr().err, f"cannot write the report to {out}",
                   "Permission denied")
    assert out.read_text() == "read only" and stat.S_IMODE(out.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_new_file_mode_reads_the_umask_without_changing_it(umask):
    from bacc.display import files

    umask(0o027)
    assert files.new_file_mode() == 0o640
    assert os.umask(0o027) == 0o027


def test_a_link_to_a_report_is_followed_and_kept(tmp_path, capsys):
    target = tmp_path / "real.html"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.html"
    link.symlink_to(target)
    assert main([*REPORT, "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.html", "real.html"]


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    from bacc.display import files

    out = tmp_path / "r.html"
    out.write_text("previous")
    out.chmod(0o640)

    def full_disk(fd, mode):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fchmod", full_disk)
    with pytest.raises(bacc.BaccError, match="cannot write the report to .*No space left"):
        files.write_text(out, "<html>new</html>")
    assert out.read_text() == "previous"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


# ----------------------------------------------------------------------------------------------
# what is not a regular file
def test_a_named_pipe_is_written_in_place_and_never_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # a reader is there before bacc opens the pipe (so that neither side waits); the page,
    # about 11 kB without pictures, fits the pipe's buffer
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        proc = run(*REPORT, "-o", str(fifo))
        chunks = []
        while True:
            try:
                data = os.read(reader, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(reader)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the pipe
    page = b"".join(chunks).decode("utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_character_device_is_written_in_place(tmp_path, capsys):
    # a null device of this test's own (never the system's /dev/null, which a regression run
    # as root would replace)
    path = tmp_path / "null"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("making a device needs privileges this machine does not give")
    before = os.lstat(path)
    assert main([*REPORT, "-o", str(path)]) == 0
    after = os.lstat(path)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert after.st_rdev == before.st_rdev
    assert capsys.readouterr().out == f"wrote {path}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_folder_is_refused_before_any_work(tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    assert main([*REPORT, "-o", str(folder)]) == 2
    one_error_line(capsys.readouterr().err, str(folder), "it is a folder")
    assert list(folder.iterdir()) == []


def test_a_socket_is_refused(tmp_path, capsys):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        assert main([*REPORT, "-o", str(path)]) == 2
        one_error_line(capsys.readouterr().err, str(path), "a socket", "does not replace")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_block_device_is_refused(tmp_path, capsys):
    path = tmp_path / "blk"
    try:
        os.mknod(path, 0o600 | stat.S_IFBLK, os.makedev(7, 200))
    except (PermissionError, OSError):
        pytest.skip("making a block device needs privileges this machine does not give")
    assert main([*REPORT, "-o", str(path)]) == 2
    one_error_line(capsys.readouterr().err, "a block device")
    assert stat.S_ISBLK(os.lstat(path).st_mode)


def test_a_link_to_nothing_is_refused(tmp_path, capsys):
    link = tmp_path / "dangling.html"
    link.symlink_to(tmp_path / "missing.html")
    assert main([*REPORT, "-o", str(link)]) == 2
    one_error_line(capsys.readouterr().err, "a link to a file that does not exist")
    assert link.is_symlink() and not (tmp_path / "missing.html").exists()


def test_a_missing_folder_and_a_file_as_folder_are_refused(tmp_path, capsys):
    assert main([*REPORT, "-o", str(tmp_path / "no" / "r.html")]) == 2
    one_error_line(capsys.readouterr().err, "does not exist")
    (tmp_path / "f").write_text("x")
    assert main([*REPORT, "-o", str(tmp_path / "f" / "r.html")]) == 2
    one_error_line(capsys.readouterr().err, "not a folder")


def test_the_input_is_still_never_the_output(tmp_path, capsys):
    f = tmp_path / "p.csv"
    f.write_text("y,p\na,a\nb,b\na,b\n")
    link = tmp_path / "link.csv"
    link.symlink_to(f)
    assert main(["report", str(f), "--true", "y", "--pred", "p", "-o", str(link)]) == 2
    one_error_line(capsys.readouterr().err, "is the input")
    assert f.read_text() == "y,p\na,a\nb,b\na,b\n"


# ----------------------------------------------------------------------------------------------
# '-' is standard output
def test_dash_writes_the_report_to_standard_output(tmp_path):
    proc = run(*REPORT, "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<!DOCTYPE html>") and proc.stdout.rstrip().endswith("</html>")
    assert "wrote" not in proc.stdout and "wrote" not in proc.stderr
    assert list(tmp_path.iterdir()) == []  # no file named '-'


def test_dash_is_standard_output_even_beside_a_file_named_dash(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("keep me")
    assert main([*REPORT, "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    assert (tmp_path / "-").read_text() == "keep me"


def test_dash_keeps_standard_output_for_the_page_of_a_paired_report(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("y,a,b\n" + "x,x,x\ny,y,x\nx,y,x\ny,y,y\n" * 3)
    proc = run("report", str(f), "--true", "y", "--pred", "a", "--pred", "b", "--no-pictures",
               "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<!DOCTYPE html>")  # the note on pairing went elsewhere
    assert "paired" in proc.stderr


def test_dash_for_the_monitor_report(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a file named '-' would land here, not in the checkout
    f = tmp_path / "log.csv"
    rows = [f"2026-01-{d:02d},{t},{p}" for d in range(1, 15) for t, p in
            (("x", "x"), ("y", "y"), ("x", "y"), ("y", "y"), ("x", "x"))]
    f.write_text("ts,t,p\n" + "\n".join(rows) + "\n")
    base = ["monitor", str(f), "--true", "t", "--pred", "p", "--time", "ts", "--window", "7D",
            "--simulations", "0", "--no-pictures"]
    assert main([*base, "--format", "json", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("<!DOCTYPE html>") and "</html>" in captured.out
    assert json.loads(captured.err)["window"]  # the JSON went to standard error
    out = tmp_path / "m.html"
    assert main([*base, "-o", str(out)]) == 0
    assert f"report written to {out}" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.csv", "m.html"]


# ----------------------------------------------------------------------------------------------
# the terminal's width
@pytest.mark.parametrize(("columns", "width"), [(0, 100), (1, 1), (20, 20), (300, 300)])
def test_terminal_width_of_a_terminal(monkeypatch, columns, width):
    from bacc.display.text import terminal_width

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=0: os.terminal_size((columns, 24)))
    assert terminal_width() == width


def test_terminal_width_without_a_terminal(monkeypatch):
    from bacc.display.text import terminal_width

    monkeypatch.delenv("COLUMNS", raising=False)

    def no_terminal(fd=0):
        raise OSError(25, "Inappropriate ioctl for device")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert terminal_width() == 100
    assert terminal_width(default=80) == 80


@pytest.mark.parametrize(("env", "width"), [("0", 100), ("-3", 100), ("abc", 100), ("20", 20),
                                            ("300", 300)])
def test_terminal_width_reads_columns(monkeypatch, env, width):
    from bacc.display.text import terminal_width

    monkeypatch.setenv("COLUMNS", env)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=0: os.terminal_size((0, 24)))
    assert terminal_width() == width


@pytest.mark.parametrize("columns", [0, 1, 20, 300])
def test_every_command_starts_in_any_terminal(monkeypatch, capsys, columns):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=0: os.terminal_size((columns, 24)))
    monkeypatch.setattr(sys.stdout, "fileno", lambda: 1, raising=False)  # as on a terminal
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"bacc {bacc.__version__}\n"
    for command in ("evaluate", "report", "monitor", "demo", "plan"):
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        assert text.startswith(f"usage: bacc {command}")
    assert main(["evaluate", "--matrix", MATRIX, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["confusion_matrix"]["counts"] == [[42, 3], [6, 4]]


def _run_in_terminal(columns: int, *args: str) -> tuple[int, str, str]:
    """Run ``bacc`` with standard output on a pseudo-terminal of ``columns`` columns."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["COLUMNS"] = str(columns)
    proc = subprocess.Popen([sys.executable, "-m", "bacc", *args], stdout=slave,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other end closed
                return
            if not data:
                return
            chunks.append(data)

    t = threading.Thread(target=read)
    t.start()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    t.join(timeout=120)
    os.close(master)
    return code, b"".join(chunks).decode().replace("\r\n", "\n"), err


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("columns", [0, 20, 300])
def test_a_terminal_of_any_width_through_a_process(columns):
    code, out, err = _run_in_terminal(columns, "--version")
    assert (code, out, err) == (0, f"bacc {bacc.__version__}\n", "")
    code, out, err = _run_in_terminal(columns, "evaluate", "--help")
    assert code == 0 and err == "" and out.startswith("usage: bacc evaluate")
    # the help text wraps within 40 to 100 columns (a 20-column terminal wraps it itself)
    assert max(len(line) for line in out.splitlines()) <= 100
    code, out, err = _run_in_terminal(columns, "evaluate", "--matrix", MATRIX)
    assert code == 0 and err == "" and "balanced accuracy" in out
    assert max(len(line) for line in out.splitlines()) <= 100


@pytest.mark.parametrize("columns", ["0", "20", "300"])
def test_columns_in_the_environment_through_a_process(columns):
    proc = run("--version", env={"COLUMNS": columns})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"bacc {bacc.__version__}\n", "")
    proc = run("report", "--help", env={"COLUMNS": columns})
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: bacc report")


# ----------------------------------------------------------------------------------------------
# matrix text
@pytest.mark.parametrize(("text", "needle"), [
    ("1,,2;3,4", "row 1 has an empty count at position 2"),
    ("1,2,;3,4", "row 1 has an empty count at position 3"),
    (",1,2;3,4", "row 1 has an empty count at position 1"),
    ("1,2;3,,4", "row 2 has an empty count at position 2"),
    ("1,2;3,4;", "an empty row after the last ';'"),
    ("1,2;;3,4", "an empty row (row 2)"),
    (";1,2;3,4", "an empty row (row 1)"),
    ("1,2;3", "row 2 has 1 count, row 1 has 2"),
    ("1,2,3;4,5,6", "2 rows of 3 counts"),
    ("1,2;3,x", "'x' in row 2 is not a count"),
    ("1,2 3;4,5", "'2 3' in row 1 is not a count"),
    ("1_0,2;3,4", "'1_0' in row 1 is not a count"),
    ("1,nan;3,4", "'nan' in row 1 is not a whole number >= 0"),
    ("1,inf;3,4", "'inf' in row 1 is not a whole number >= 0"),
    ("1,2;-3,4", "'-3' in row 2 is not a whole number >= 0"),
    ("1,3.5;3,4", "'3.5' in row 1 is not a whole number >= 0"),
    ("A=", "no counts"),
    ("=1,2;3,4", "nothing before '='"),
])
def test_malformed_matrix_text_is_refused_with_the_problem_named(capsys, text, needle):
    assert main(["evaluate", "--matrix", text]) == 2
    captured = capsys.readouterr()
    one_error_line(captured.err, "bad matrix text", needle)
    assert captured.out == ""


def test_empty_count_through_a_process():
    proc = run("evaluate", "--matrix", "1,,2;3,4")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    one_error_line(proc.stderr, "'1,,2;3,4'", "row 1 has an empty count at position 2")


@pytest.mark.parametrize(("text", "counts"), [
    ("42,3;6,4", [[42, 3], [6, 4]]),
    ("C2 = 42 3; 6 4", [[42, 3], [6, 4]]),
    ("42, 3 ;\n 6 ,4", [[42, 3], [6, 4]]),
    ("42 3\n6 4\n", [[42, 3], [6, 4]]),
    ("42 3\n\n6 4", [[42, 3], [6, 4]]),
    ("4.0e1,3;6,+4", [[40, 3], [6, 4]]),
    ("1,0,0;0,1,0;0,0,1", [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
])
def test_well_formed_matrix_text_is_read(capsys, text, counts):
    assert main(["evaluate", "--matrix", text, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["confusion_matrix"]["counts"] == counts


def test_positional_matrix_text_is_checked_the_same_way(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "1,,2;3,4"]) == 2
    one_error_line(capsys.readouterr().err, "row 1 has an empty count at position 2")


def test_a_file_path_is_written_as_given(tmp_path):
    from bacc.display import files

    assert files.write_text(tmp_path / "a.txt", "x\u00e9") == Path(tmp_path / "a.txt")
    assert (tmp_path / "a.txt").read_bytes() == "x\u00e9".encode()
