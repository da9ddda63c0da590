"""Outputs that never destroy: pagelab writes only regular files, never over one of its own
inputs, and replaces a folder only when its own marker says it wrote it (python/pagelab/_atomic.py,
report/site.py). Each case builds the thing a careless output could destroy (a device-like
node, a symlink, a FIFO, a user's folder, the input itself) and shows it unchanged.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_one_line_error, run_cli
from pagelab import _atomic, traces
from pagelab.errors import PagelabError

PAGELAB = [sys.executable, "-m", "pagelab"]
TEXT = "".join(f"{(i * 7) % 23}\n" for i in range(300))


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    (tmp_path / "t.txt").write_text(TEXT)
    traces.convert(tmp_path / "t.txt", tmp_path / "t.plt", from_="text")
    return tmp_path / "t.plt"


def _snapshot(path: Path) -> tuple:
    """What must not change: the node's kind, inode, and (for a file) its bytes."""
    st = os.lstat(path)
    data = path.read_bytes() if stat.S_ISREG(st.st_mode) else None
    target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
    return (stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev, data, target)


def _device(tmp_path: Path) -> Path:
    """A character device node like /dev/null (1, 3); skipped where nodes cannot be made."""
    node = tmp_path / "dev-null-like"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here ({e})")
    return node


def _curve(trace: Path, output: Path) -> subprocess.CompletedProcess:
    return run_cli("curve", str(trace), "--sizes", "1:4", "--output", str(output))


def test_a_device_node_as_output_is_refused_and_left_a_device(trace, tmp_path):
    node = _device(tmp_path)
    before = _snapshot(node)
    assert_one_line_error(_curve(trace, node), str(node), "a character device")
    assert _snapshot(node) == before


def test_a_fifo_as_output_is_refused_and_left_a_fifo(trace, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    before = _snapshot(fifo)
    assert_one_line_error(_curve(trace, fifo), "named pipe")
    out = tmp_path / "o.plt"
    with pytest.raises(PagelabError, match="named pipe"):
        traces.convert(tmp_path / "t.txt", fifo, from_="text")
    assert _snapshot(fifo) == before and not out.exists()


def test_a_socket_and_a_directory_as_outputs_are_refused(tmp_path):
    import socket

    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        with pytest.raises(PagelabError, match="a socket"):
            _atomic.write_text(sock_path, "x")
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    folder = tmp_path / "d"
    folder.mkdir()
    with pytest.raises(PagelabError, match="a directory"):
        _atomic.write_json(folder, {})
    assert folder.is_dir()


def test_a_symlink_is_followed_the_link_stays_and_its_file_is_written(trace, tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    proc = _curve(trace, link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith(("policy,", '"policy",'))


def test_a_symlink_to_a_device_is_refused_and_both_stay(trace, tmp_path):
    node = _device(tmp_path)
    link = tmp_path / "to-dev"
    link.symlink_to(node)
    before = (_snapshot(node), _snapshot(link))
    assert_one_line_error(_curve(trace, link), "a character device")
    assert (_snapshot(node), _snapshot(link)) == before


def test_an_output_that_is_the_input_is_refused_before_any_work(trace, tmp_path):
    src = tmp_path / "t.txt"
    before = _snapshot(src)
    assert_one_line_error(
        run_cli("trace", "convert", str(src), str(src), "--from", "text"), "same file as the input"
    )
    assert _snapshot(src) == before
    before = _snapshot(trace)
    assert_one_line_error(_curve(trace, trace), "same file as the input")
    assert_one_line_error(
        run_cli("curve", str(trace), "--sizes", "2", "--plot", str(trace)), "--plot"
    )
    assert _snapshot(trace) == before


def test_a_hard_link_or_another_spelling_of_the_input_is_the_same_file(trace, tmp_path):
    hard = tmp_path / "hard.plt"
    os.link(trace, hard)
    before = _snapshot(trace)
    with pytest.raises(PagelabError, match="same file as the input"):
        traces.convert(tmp_path / "t.txt", tmp_path / "sub" / ".." / "t.txt", from_="text")
    assert_one_line_error(_curve(trace, hard), "same file")
    assert_one_line_error(run_cli("trace", "export", str(trace), str(hard)), "same file")
    assert _snapshot(trace) == before


def test_a_report_never_replaces_a_users_folder_that_looks_like_a_site(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name, text in [("index.html", "<p>my page</p>"), ("scoreboard.json", "{}"), ("a.txt", "x")]:
        (mine / name).write_text(text)
    results = tmp_path / "results"
    results.mkdir()
    before = {p.name: p.read_bytes() for p in mine.iterdir()}
    proc = run_cli("report", str(results), "--out", str(mine))
    assert_one_line_error(proc)
    assert {p.name: p.read_bytes() for p in mine.iterdir()} == before


def test_a_report_refuses_a_symlinked_out_and_an_out_holding_the_records(tmp_path):
    from pagelab.report import site

    real = tmp_path / "real"
    real.mkdir()
    (real / site.MARKER).write_text("x")
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(PagelabError, match="is a symlink"):
        site._check_target(link)
    with pytest.raises(PagelabError, match="holds the records"):
        site._check_target(real, real / "records")
    assert link.is_symlink() and (real / site.MARKER).exists()


def test_read_only_folders_name_the_output_not_a_temporary_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(PagelabError) as e:
            _atomic.write_text(ro / "out.csv", "x")
        assert str(ro / "out.csv") in str(e.value) and ".tmp" not in str(e.value)
    finally:
        ro.chmod(0o755)


def test_a_zero_byte_file_is_refused_not_converted_to_an_empty_trace(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    proc = run_cli("trace", "convert", str(empty), str(tmp_path / "o.plt"))
    assert_one_line_error(proc, "empty file")
    assert not (tmp_path / "o.plt").exists()


SHORT = ["--set", "run.duration_s=30", "--set", "run.warmup_s=5"]


def _target(path: Path) -> Path:
    path.write_text(
        '[target]\nname = "t"\nsource = "a paper, Table 1"\n\n'
        '[[point]]\nmetric = "cpu_utilization"\nvalue = 0.5\n'
    )
    return path


@pytest.mark.parametrize("which", ["target", "preset", "parent"])
def test_calibrate_never_writes_over_its_target_or_its_presets(which, tmp_path):
    target = _target(tmp_path / "t.toml")
    base = tmp_path / "base.toml"
    base.write_text(Path(_preset_file("vm370")).read_text())
    mine = tmp_path / "my.toml"
    mine.write_text('# my notes\n[preset]\nextends = "base"\nname = "mine"\n')
    out = {"target": target, "preset": mine, "parent": base}[which]
    before = {p: _snapshot(p) for p in (target, mine, base)}
    proc = run_cli(
        "calibrate", str(mine), "--target", str(target), "--vary", "workload.users=10:20",
        "--out", str(out), "--budget", "1", *SHORT,
    )  # fmt: skip
    assert_one_line_error(proc, "--out", "same file as the input")
    assert {p: _snapshot(p) for p in (target, mine, base)} == before
    assert not any(p.name.endswith("-runs") for p in tmp_path.iterdir()), "nothing ran"


def _preset_file(name: str) -> str:
    from pagelab import system

    return str(system.resolve_spec_path(name))
