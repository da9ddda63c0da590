"""The `pagelab` command as a user runs it."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import assert_one_line_error

BELADY = "1,2,3,4,1,2,5,1,2,3,4,5"


def test_step_prints_every_reference_and_the_total(cli):
    proc = cli("step", "--refs", BELADY, "--frames", "3", "--policy", "fifo", check=True)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 + 12 + 1
    assert lines[-1].startswith("9 faults in 12 references with 3 frames")
    assert "fault" in lines[1] and "hit" in lines[8]  # 1 2 3 4 1 2 5 then 1 hits


def test_list_policies_names_each_with_a_summary(cli):
    out = cli("list", "policies", check=True).stdout
    for name in ("fifo", "lru", "clock", "min", "ar", "random", "ws", "arc"):
        assert f"\n{name}" in "\n" + out


def test_text_trace_converts_and_curves(cli, tmp_path):
    src = tmp_path / "refs.txt"
    src.write_text("# pages, one a line\n" + "\n".join(BELADY.split(",")) + "\n")
    out = tmp_path / "refs.pltrace"
    cli("trace", "convert", str(src), str(out), "--from", "text", "--units", "pages", check=True)
    info = json.loads(cli("trace", "info", str(out), "--json", check=True).stdout)
    assert info["references"] == 12 and info["distinct_pages"] == 5
    csv = cli("curve", str(out), "--policy", "fifo,lru", "--sizes", "3,4", check=True).stdout
    rows = [line.split(",") for line in csv.strip().splitlines()]
    header = rows[0]
    faults = {
        (r[header.index("policy")], r[header.index("frames")]): int(r[header.index("faults")])
        for r in rows[1:]
    }
    assert faults[("fifo", "3")] == 9 and faults[("fifo", "4")] == 10
    assert faults[("lru", "3")] == 10 and faults[("lru", "4")] == 8


def test_curve_writes_parquet_and_plot_atomically(cli, tmp_path):
    src = tmp_path / "refs.txt"
    src.write_text("\n".join(BELADY.split(",")) + "\n")
    trace = tmp_path / "t.pltrace"
    cli("trace", "convert", str(src), str(trace), "--units", "pages", check=True)
    table, png = tmp_path / "c.parquet", tmp_path / "c.png"
    cli(
        "curve",
        str(trace),
        "--policy",
        "lru,min",
        "--sizes",
        "1:5",
        "--format",
        "parquet",
        "--output",
        str(table),
        "--plot",
        str(png),
        check=True,
    )
    import pyarrow.parquet as pq

    t = pq.read_table(table).to_pylist()
    assert len(t) == 10 and {r["policy"] for r in t} == {"lru", "min"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_one_pass_curves_agree_with_per_size_runs(cli, tmp_path):
    import random

    rng = random.Random(3)
    src = tmp_path / "r.txt"
    src.write_text("\n".join(str(rng.randint(0, 40)) for _ in range(3000)) + "\n")
    trace = tmp_path / "r.pltrace"
    cli("trace", "convert", str(src), str(trace), "--units", "pages", check=True)
    for policy in ("lru", "min"):
        every = json.loads(
            cli(
                "curve",
                str(trace),
                "--policy",
                policy,
                "--sizes",
                "all",
                "--format",
                "json",
                check=True,
            ).stdout
        )
        some = json.loads(
            cli(
                "curve",
                str(trace),
                "--policy",
                policy,
                "--sizes",
                "1:41:4",
                "--format",
                "json",
                check=True,
            ).stdout
        )
        by_size = {r["frames"]: r["faults"] for r in every}
        for r in some:
            assert by_size[r["frames"]] == r["faults"], (policy, r["frames"])


@pytest.mark.parametrize(
    "args, needles",
    [
        (["curve", "/nonexistent.pltrace", "--sizes", "3"], ["/nonexistent.pltrace"]),
        (["step", "--refs", "1,2,x", "--frames", "3"], ["--refs", "'x'"]),
        (["step", "--refs", "1,2,3", "--frames", "0"], ["frames"]),
        (["trace", "info", "/nonexistent.pltrace"], ["/nonexistent.pltrace"]),
        (["reproduce", "no-such-reproduction"], ["no-such-reproduction"]),
        (
            ["trace", "capture", "-o", "/tmp/never.pltrace", "--", "/no/such/program"],
            ["/no/such/program"],
        ),
    ],
)
def test_bad_input_gets_one_line_error(cli, args, needles):
    assert_one_line_error(cli(*args), *needles)


def test_corrupt_trace_names_file_and_offset(cli, tmp_path):
    src = tmp_path / "refs.txt"
    src.write_text("\n".join(str(i % 7) for i in range(5000)) + "\n")
    trace = tmp_path / "t.pltrace"
    cli("trace", "convert", str(src), str(trace), "--units", "pages", check=True)
    data = bytearray(trace.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.pltrace"
    bad.write_bytes(bytes(data))
    proc = cli("curve", str(bad), "--sizes", "3")
    assert_one_line_error(proc, str(bad), "byte")
    truncated = tmp_path / "short.pltrace"
    truncated.write_bytes(bytes(data[:40]))
    assert_one_line_error(cli("trace", "info", str(truncated)), str(truncated))
    out = tmp_path / "out.csv"
    assert_one_line_error(cli("curve", str(bad), "--sizes", "3", "--output", str(out)))
    assert not out.exists()


def test_garbage_in_a_lackey_stream_names_the_line(cli, tmp_path):
    src = tmp_path / "l.txt"
    src.write_text("I  0400d7d4,8\n L 04222cac,4\nthis is not lackey\n")
    proc = cli("trace", "convert", str(src), str(tmp_path / "o.pltrace"), "--from", "lackey")
    assert_one_line_error(proc, "line 3")
    assert not (tmp_path / "o.pltrace").exists()


def test_page_size_must_be_a_power_of_two(cli, tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("4096\n8192\n")
    proc = cli("trace", "convert", str(src), str(tmp_path / "o.pltrace"), "--page-size", "3000")
    assert_one_line_error(proc, "power of two")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_capture_records_a_real_program(cli, tmp_path):
    out = tmp_path / "true.pltrace"
    cli("trace", "capture", "-o", str(out), "--", "/bin/true", check=True)
    info = json.loads(cli("trace", "info", str(out), "--json", check=True).stdout)
    kinds = info["references_by_kind"]
    assert info["references"] > 10_000
    assert kinds["instruction"] > 0 and kinds["load"] > 0 and kinds["store"] > 0


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_capture_keeps_the_programs_output_apart_from_the_summary(cli, tmp_path):
    out = tmp_path / "echo.pltrace"
    proc = cli(
        "trace", "capture", "-o", str(out), "--", "/bin/echo", "from the program", check=True
    )
    assert proc.stdout == "from the program\n"
    # the summary (which names the command it traced) on stderr, without the program's output
    assert "references" in proc.stderr
    assert "from the program" not in [line.strip() for line in proc.stderr.splitlines()]


def test_reproduce_writes_its_record(cli, tmp_path):
    proc = cli("reproduce", "belady-anomaly", "--out", str(tmp_path), check=True)
    assert "holds" in proc.stdout
    record = json.loads((tmp_path / "belady-anomaly.json").read_text())
    assert record["name"] == "belady-anomaly" and record["scale"] == "smoke"
    assert all(c["verdict"] == "holds" for c in record["claims"])
    assert record["score"]["predicted"] == 6 and record["score"]["within_10"] == 6
    fifo = {r["row"]: r for r in record["rows"] if r["row"].startswith("fifo")}
    assert fifo["fifo 3 frames"]["pagelab"] == 9 and fifo["fifo 4 frames"]["pagelab"] == 10
    for f in record["figures"]:
        assert (tmp_path / f).read_bytes()[:4] == b"\x89PNG"


def test_generate_runs_an_m44_program_and_records_it(cli, tmp_path):
    out = tmp_path / "t4.pltrace"
    proc = cli(
        "trace",
        "generate",
        "t4-1xqr-star",
        "-o",
        str(out),
        "--params",
        '{"sort": {"items": 500}}',
        check=True,
    )
    assert "result check passed" in proc.stdout
    info = json.loads(cli("trace", "info", str(out), "--json", check=True).stdout)
    assert info["description"]["program"] == "t4-1xqr-star" and info["page_size"] == 1024
    assert_one_line_error(cli("trace", "generate", "t9", "-o", str(out)), "t9")
    bad = cli("trace", "generate", "t1-1x", "-o", str(tmp_path / "x"), "--params", '{"x": 1}')
    assert_one_line_error(bad, "`x`")


def test_chanson_commands_reproduce_the_worked_example(cli):
    out = cli("chanson", "predict", "--mm", "700", "--pn", "8", "--ps", "200", check=True).stdout
    assert "2761 ms" in out  # Chanson 1982 section 4: about 2.8 s
    out = cli(
        "chanson",
        "memory",
        "--target-ms",
        "1000",
        "--pn",
        "8",
        "--ps",
        "200",
        "--check",
        check=True,
    ).stdout
    assert "1287 blocks" in out or "1286 blocks" in out  # 700 + 587 in the paper
    assert "simulated at" in out
