"""The SWF reader and writer (instances/swf.py): the three reference traces, bad lines, each
cleaning rule, headers, gzip, extended BBSched columns, the simulated-log writer and exact
round trips (hand-made, property-based and on the real traces)."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedbench.instances import datasets
from schedbench.instances.swf import CLEANING_KEYS, SwfError, read_swf, write_swf
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.schedule import JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import SWF_INDEX, Workload

#: The reference traces, shipped with the package (the first two gzip-compressed).
KTH = datasets.path("kth-sp2")
LUBLIN = datasets.path("lublin-256")
BBSCHED = datasets.path("bbsched-test")

COLUMNS = (
    "job_id",
    "submit",
    "runtime",
    "requested_time",
    "nodes",
    "bb_gb",
    "ssd_gb",
    "data_in_gb",
    "data_out_gb",
    "swf",
    "extra",
)
DROPS = ("no_processors", "zero_runtime", "negative_submit")


def trace(path: Path) -> Path:
    assert path.is_file(), f"shipped trace {path} is missing: check `schedbench data`"
    return path


def line(job: int, submit: float, run: float, procs: int, req: float = 3600, **kw: float) -> str:
    """An 18-field SWF job line; keyword arguments override fields by SWF_INDEX name."""
    fields = [-1.0] * 18
    fields[SWF_INDEX["job_id"]] = job
    fields[SWF_INDEX["submit"]] = submit
    fields[SWF_INDEX["wait"]] = 0
    fields[SWF_INDEX["run_time"]] = run
    fields[SWF_INDEX["allocated_procs"]] = procs
    fields[SWF_INDEX["requested_procs"]] = procs
    fields[SWF_INDEX["requested_time"]] = req
    fields[SWF_INDEX["status"]] = 1
    for name, value in kw.items():
        fields[SWF_INDEX[name]] = value
    return " ".join(f"{v:g}" for v in fields)


def write(tmp_path: Path, *lines: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def assert_same_columns(a: Workload, b: Workload) -> None:
    assert len(a) == len(b)
    for name in COLUMNS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        assert np.array_equal(x, y), name
    assert a.extra_names == b.extra_names
    assert a.extra_capacities == b.extra_capacities


def is_subsequence(small: tuple, big: tuple) -> bool:
    it = iter(big)
    return all(item in it for item in small)


# ------------------------------------------------------------------------ reference traces


@pytest.fixture(scope="module")
def kth() -> Workload:
    return read_swf(trace(KTH))


def test_kth_counts_are_consistent(kth: Workload) -> None:
    c = kth.cleaning
    assert set(c) == set(CLEANING_KEYS)
    assert c["rows_read"] == 28476  # the header's MaxRecords
    assert c["bad_lines"] == 0
    assert c["rows_read"] == len(kth) + sum(c[k] for k in DROPS)
    # Counted independently of the reader (awk over the file): 1 job with no processors,
    # 8 more with run time <= 0; requested times are all present and the log is in order.
    assert (c["no_processors"], c["zero_runtime"], c["negative_submit"]) == (1, 8, 0)
    assert c["missing_requested_time"] == 0 and c["resorted"] == 0
    assert c["runs_past_request"] == int(np.count_nonzero(kth.runtime > kth.requested_time)) > 0
    assert kth.max_nodes == 100
    assert kth.nodes.max() <= 100 and kth.nodes.min() >= 1
    assert kth.job_id[0] == 15 and kth.submit[0] == 599850  # first job line of the file
    assert kth.source == str(KTH)
    header = dict(kth.header)
    assert header["Computer"] == "IBM SP2"
    assert header["MaxRecords"] == "28476"
    assert header["EndTime"] == "Fri Aug 29 10:55:01 CEST 1997"
    assert ("Information", "http://www.pdc.kth.se/") in kth.header
    assert all(key != "http" for key, _ in kth.header)  # continuation lines are not pairs


def test_kth_without_cleaning_names_the_first_bad_row() -> None:
    with pytest.raises(SwfError) as info:
        read_swf(trace(KTH), clean=False)
    message = str(info.value)
    assert message.startswith(f"{KTH}:")
    assert "rule 'no_processors'" in message or "rule 'zero_runtime'" in message
    assert info.value.line is not None
    # the named line really is a job with no processors or a run time < 0
    fields = datasets.read_bytes(KTH).decode().split("\n")[info.value.line - 1].split()
    assert len(fields) == 18
    run, alloc, req = float(fields[3]), float(fields[4]), float(fields[7])
    assert (alloc <= 0 and req <= 0) or run < 0


def test_kth_round_trip(kth: Workload, tmp_path: Path) -> None:
    out = write_swf(kth, tmp_path / "kth.swf")
    back = read_swf(out)
    assert_same_columns(kth, back)
    assert back.header == kth.header  # KTH has Version, MaxJobs, MaxRecords and MaxNodes
    assert back.max_nodes == 100
    assert back.cleaning["rows_read"] == len(kth) and sum(back.cleaning[k] for k in DROPS) == 0


@pytest.mark.slow
def test_kth_parses_fast() -> None:
    path = trace(KTH)
    read_swf(path)  # warm the page cache
    best = min(_timed(lambda: read_swf(path)) for _ in range(3))
    assert best < 0.5


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_lublin_requested_time_repaired() -> None:
    w = read_swf(trace(LUBLIN))
    assert len(w) == 10_000 and w.max_nodes == 256
    assert w.cleaning["missing_requested_time"] == 10_000
    assert np.array_equal(w.requested_time, w.runtime)
    assert np.all(w.swf[:, SWF_INDEX["requested_time"]] == -1)  # the table stays as read
    assert np.array_equal(w.nodes, w.swf[:, SWF_INDEX["allocated_procs"]])  # field 8 is -1
    with pytest.raises(SwfError, match=r"lublin_256\.swf\.gz:8: expected a requested time") as info:
        read_swf(LUBLIN, clean=False)
    assert "missing_requested_time" in str(info.value)


def test_bbsched_extended_columns(tmp_path: Path) -> None:
    w = read_swf(trace(BBSCHED), bb_column=19, ssd_column=20)
    assert len(w) == 100 and w.max_nodes == 4392
    assert w.extra.shape == (100, 10)
    assert w.extra_names == tuple(f"r{c}" for c in range(19, 29))
    assert w.extra_capacities == (5000.0,) * 10
    assert np.array_equal(w.bb_gb, w.extra[:, 0]) and np.array_equal(w.ssd_gb, w.extra[:, 1])
    assert w.extra[0, 0] == 4972 and w.extra[0, 9] == 2578  # first job line, columns 19 and 28
    assert np.all(w.extra <= 5000) and np.all(w.extra > 0)
    plain = read_swf(BBSCHED)
    assert np.all(plain.bb_gb == 0) and np.array_equal(plain.extra, w.extra)

    back = read_swf(write_swf(w, tmp_path / "bb.swf"))  # bb/ssd come back via the header
    assert_same_columns(w, back)
    assert back.header == (("Version", "2.2"), ("MaxJobs", "100"), ("MaxRecords", "100"), *w.header)
    text = (tmp_path / "bb.swf").read_text()
    assert "; BurstBuffer: " + ", ".join(["5000"] * 10) in text
    assert "; SchedbenchColumns: bb_gb=29, ssd_gb=30" in text
    assert len(text.splitlines()[-1].split()) == 30


# ---------------------------------------------------------------------------- bad lines


def six_lines(bad: str) -> list[str]:
    """A header line, then job lines; the fifth physical line is ``bad``."""
    return [
        "; MaxNodes: 64",
        line(1, 0, 10, 4),
        "",
        line(2, 5, 10, 4),
        bad,
        line(4, 9, 10, 4),
    ]


def test_wrong_field_count_names_the_line(tmp_path: Path) -> None:
    short = " ".join(line(3, 7, 10, 4).split()[:17])
    path = write(tmp_path, *six_lines(short))
    with pytest.raises(SwfError) as info:
        read_swf(path)
    assert str(info.value).startswith(f"{path}:5: expected 18 fields")
    assert str(info.value).endswith("got 17")
    assert info.value.line == 5 and info.value.path == str(path)
    assert isinstance(info.value, ValueError) and isinstance(info.value, SchedbenchError)

    w = read_swf(path, on_bad_line="skip")
    assert w.job_id.tolist() == [1, 2, 4]
    assert w.cleaning["bad_lines"] == 1 and w.cleaning["rows_read"] == 3


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("abc", "a number in field 4 (run_time)"),
        ("1_000", "a number in field 4 (run_time)"),
        ("nan", "a finite number in field 4 (run_time)"),
        ("inf", "a finite number in field 4 (run_time)"),
        ("10;", "a number in field 4 (run_time)"),
    ],
)
def test_bad_token(tmp_path: Path, token: str, expected: str) -> None:
    fields = line(3, 7, 10, 4).split()
    fields[3] = token
    path = write(tmp_path, *six_lines(" ".join(fields)))
    with pytest.raises(SwfError, match=r":5: expected ") as info:
        read_swf(path)
    assert f"expected {expected}, got {token!r}" in str(info.value)
    assert read_swf(path, on_bad_line="skip").cleaning["bad_lines"] == 1


def test_non_integer_processors_is_a_bad_line(tmp_path: Path) -> None:
    path = write(tmp_path, *six_lines(line(3, 7, 10, 4, requested_procs=2.5)))
    with pytest.raises(SwfError, match=r":5: expected an integer in field 8 \(requested_procs\)"):
        read_swf(path)


def test_extended_width_must_match_the_first_job_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        line(1, 0, 10, 4) + " 7 8",
        line(2, 1, 10, 4) + " 7",
        line(3, 2, 10, 4) + " 7 8",
        line(4, 3, 10, 4),
    )
    with pytest.raises(SwfError, match=r"t\.swf:2: expected 20 fields .*line 1.*got 19"):
        read_swf(path)
    w = read_swf(path, on_bad_line="skip")
    assert w.job_id.tolist() == [1, 3] and w.cleaning["bad_lines"] == 2
    assert w.extra.tolist() == [[7, 8], [7, 8]] and w.extra_names == ("r19", "r20")
    assert w.extra_capacities == ()


def test_short_first_line(tmp_path: Path) -> None:
    path = write(tmp_path, "; c", "1 2 3", line(2, 1, 10, 4))
    with pytest.raises(SwfError, match=r":2: expected 18 fields .*got 3"):
        read_swf(path)


def test_skip_mode_with_many_bad_lines_across_chunks(tmp_path: Path) -> None:
    lines = []
    for i in range(1, 10_001):
        lines.append(line(i, i, 10, 2) if i % 1000 else "garbage")
    w = read_swf(write(tmp_path, *lines), on_bad_line="skip")
    assert w.cleaning["bad_lines"] == 10 and len(w) == 9990
    assert not np.any(w.job_id % 1000 == 0)


def test_max_jobs(tmp_path: Path) -> None:
    path = write(tmp_path, *[line(i, i, 10, 2) for i in range(1, 11)], "junk after the limit")
    w = read_swf(path, max_jobs=4)
    assert w.job_id.tolist() == [1, 2, 3, 4] and w.cleaning["rows_read"] == 4
    assert len(read_swf(path, max_jobs=0)) == 0
    with pytest.raises(SwfError, match=":11:"):
        read_swf(path)
    bad_early = write(tmp_path, line(1, 0, 10, 2), "junk", line(2, 1, 10, 2), line(3, 2, 10, 2))
    w = read_swf(bad_early, max_jobs=2, on_bad_line="skip")
    assert w.job_id.tolist() == [1, 2] and w.cleaning["bad_lines"] == 1


def test_argument_errors(tmp_path: Path) -> None:
    path = write(tmp_path, line(1, 0, 10, 2))
    with pytest.raises(ValueError, match="on_bad_line"):
        read_swf(path, on_bad_line="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_jobs"):
        read_swf(path, max_jobs=-1)
    with pytest.raises(SwfError, match=r"bb_column: expected an extended column number"):
        read_swf(path, bb_column=19)
    with pytest.raises(SwfError, match=r"ssd_column: .* in 19\.\.19, got 20"):
        read_swf(write(tmp_path, line(1, 0, 10, 2) + " 5", name="x.swf"), ssd_column=20)


# ------------------------------------------------------------------------------ headers


def test_header_parsing(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "; Version: 2.2",
        ";Computer:Test machine  ",
        "; Information: http://example.org/",
        ";              http://second.example.org/",
        "; Note: a long note",
        ";       which continues on this line (no key)",
        "   ; MaxProcs: 128",
        "; EndTime:   Fri Aug 29 10:55:01 CEST 1997",
        "",
        line(1, 0, 10, 2),
        "   ",
        "; Trailing: comment between jobs",
        line(2, 1, 10, 2),
    )
    w = read_swf(path)
    assert len(w) == 2
    assert w.header[:3] == (
        ("Version", "2.2"),
        ("Computer", "Test machine"),
        ("Information", "http://example.org/"),
    )
    keys = [key for key, _ in w.header]
    assert "http" not in keys and len(keys) == 7  # continuation lines are not pairs
    assert w.max_nodes is None and w.max_procs == 128  # the header as given
    assert w.machine_size == 128 and w.size_unit == "processors"
    assert dict(w.header)["EndTime"] == "Fri Aug 29 10:55:01 CEST 1997"
    assert keys[-1] == "Trailing"


def test_machine_size_is_in_processors_and_ignores_non_integers(tmp_path: Path) -> None:
    path = write(tmp_path, "; MaxProcs: 128", "; MaxNodes: 64", line(1, 0, 10, 2))
    w = read_swf(path)
    assert (w.max_nodes, w.max_procs, w.machine_size, w.procs_per_node) == (64, 128, 128, 2)
    path = write(tmp_path, "; MaxNodes: many", "; MaxProcs: 32", line(1, 0, 10, 2))
    w = read_swf(path)
    assert (w.max_nodes, w.machine_size, w.procs_per_node) == (None, 32, None)
    w = read_swf(write(tmp_path, "; MaxNodes: 16", line(1, 0, 10, 2)))
    assert w.machine_size == 16  # no MaxProcs: one processor per node is all we can assume
    assert read_swf(write(tmp_path, line(1, 0, 10, 2))).machine_size is None


@pytest.mark.parametrize("value", ["0", "-5", "1e30", "10000000000"])
def test_absurd_header_sizes_are_errors_naming_the_line(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, "; Version: 2", f"; MaxProcs: {value}", line(1, 0, 10, 2))
    with pytest.raises(SwfError, match=rf"{path.name}:2: expected MaxProcs between 1 and"):
        read_swf(path)


def test_crlf_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "dos.swf"
    text = "; MaxNodes: 8\r\n" + line(1, 0, 10, 2) + "\r\n\r\n" + line(2, 3, 10, 2) + "\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 2] and w.header == (("MaxNodes", "8"),) and w.max_nodes == 8


def test_capacity_header(tmp_path: Path) -> None:
    path = write(tmp_path, "; BurstBuffer: 100,200 300", line(1, 0, 10, 2) + " 1 2 3")
    assert read_swf(path).extra_capacities == (100.0, 200.0, 300.0)
    path = write(tmp_path, "; BurstBuffer: 100, 200", line(1, 0, 10, 2) + " 1 2 3")
    with pytest.raises(SwfError, match=r":1: expected one BurstBuffer capacity per .*\(3\), got 2"):
        read_swf(path)
    path = write(tmp_path, "; BurstBuffer: 100, lots", line(1, 0, 10, 2) + " 1 2")
    with pytest.raises(SwfError, match=r":1: expected numeric capacities .*got 'lots'"):
        read_swf(path)


def test_empty_file(tmp_path: Path) -> None:
    w = read_swf(write(tmp_path, "; Version: 2.2", "", "; nothing else"))
    assert len(w) == 0 and w.swf.shape == (0, 18) and w.cleaning["rows_read"] == 0
    back = read_swf(write_swf(w, tmp_path / "empty.swf"))
    assert len(back) == 0


# ---------------------------------------------------------------------------------- gzip


def test_gzip_transparent(tmp_path: Path) -> None:
    plain = write(tmp_path, "; MaxNodes: 4", line(1, 0, 10, 2), line(2, 4, 20, 3))
    packed = tmp_path / "t.swf.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert_same_columns(read_swf(plain), read_swf(packed))
    disguised = tmp_path / "no_suffix"
    disguised.write_bytes(packed.read_bytes())
    assert len(read_swf(disguised)) == 2

    out = write_swf(read_swf(plain), tmp_path / "out.swf.gz")
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert_same_columns(read_swf(out), read_swf(plain))
    broken = tmp_path / "broken.gz"
    broken.write_bytes(packed.read_bytes()[:20])
    with pytest.raises(SwfError, match="gzip"):
        read_swf(broken)


# ------------------------------------------------------------------------------ cleaning


def test_rule_no_processors(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        line(1, 0, 10, 2),
        line(2, 1, 10, -1, allocated_procs=0),  # cancelled before start
        line(3, 2, 10, 4, requested_procs=-1),  # allocated procs only
        line(4, 3, 10, 4, allocated_procs=-1),  # requested procs only
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 3, 4] and w.nodes.tolist() == [2, 4, 4]
    assert w.cleaning["no_processors"] == 1
    with pytest.raises(SwfError, match=r":2: expected nodes >= 1 .*rule 'no_processors'"):
        read_swf(path, clean=False)


def test_rule_zero_runtime(tmp_path: Path) -> None:
    path = write(
        tmp_path, line(1, 0, 10, 2), line(2, 1, 0, 2), line(3, 2, -1, 2), line(4, 3, 0.5, 2)
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 4] and w.runtime.tolist() == [10, 0.5]
    assert w.cleaning["zero_runtime"] == 2
    with pytest.raises(SwfError, match=r":3: expected a run time >= 0 .*got -1 .*'zero_runtime'"):
        read_swf(path, clean=False)
    ok = write(tmp_path, line(1, 0, 10, 2), line(2, 1, 0, 2), name="zero.swf")
    assert read_swf(ok, clean=False).runtime.tolist() == [10, 0]  # the invariant allows 0


def test_rule_negative_submit(tmp_path: Path) -> None:
    path = write(tmp_path, line(1, -5, 10, 2), line(2, 0, 10, 2))
    w = read_swf(path)
    assert w.job_id.tolist() == [2] and w.cleaning["negative_submit"] == 1
    assert read_swf(path, clean=False).submit.tolist() == [-5, 0]  # allowed by the invariants


def test_rule_missing_requested_time(tmp_path: Path) -> None:
    path = write(
        tmp_path, line(1, 0, 10, 2, req=-1), line(2, 1, 20, 2, req=0), line(3, 2, 30, 2, req=40)
    )
    w = read_swf(path)
    assert w.requested_time.tolist() == [10, 20, 40]
    assert w.cleaning["missing_requested_time"] == 2
    assert w.swf[:, SWF_INDEX["requested_time"]].tolist() == [-1, 0, 40]
    with pytest.raises(SwfError, match=r":1: .*requested time.*'missing_requested_time'"):
        read_swf(path, clean=False)


def test_rule_resorted_is_stable_by_job_id(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        line(1, 0, 10, 2),
        line(5, 30, 10, 2),
        line(3, 10, 10, 2),
        line(2, 10, 10, 2),
        line(4, 20, 10, 2),
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 2, 3, 4, 5]
    assert w.submit.tolist() == [0, 10, 10, 20, 30]
    assert w.cleaning["resorted"] == 3  # jobs 1 and 3 keep their positions
    assert np.array_equal(w.swf[:, 0], w.job_id)  # the table moves with the rows
    with pytest.raises(SwfError, match=r":3: expected submit times in order .*got 10 .*'resorted'"):
        read_swf(path, clean=False)


def test_rule_runs_past_request_counts_only(tmp_path: Path) -> None:
    path = write(tmp_path, line(1, 0, 100, 2, req=50), line(2, 1, 10, 2, req=50))
    for clean in (True, False):
        w = read_swf(path, clean=clean)
        assert w.cleaning["runs_past_request"] == 1
        assert w.runtime.tolist() == [100, 10] and w.requested_time.tolist() == [50, 50]


def test_rule_unknown_resource(tmp_path: Path) -> None:
    path = write(tmp_path, line(1, 0, 10, 2) + " 30 -1", line(2, 1, 10, 2) + " -1 -1")
    w = read_swf(path, bb_column=19, ssd_column=20)
    assert w.bb_gb.tolist() == [30, 0] and w.ssd_gb.tolist() == [0, 0]
    assert w.cleaning["unknown_resource"] == 2
    assert w.extra.tolist() == [[30, -1], [-1, -1]]  # extra keeps the file's values
    with pytest.raises(SwfError, match=r":1: expected ssd_gb >= 0, got -1 .*'unknown_resource'"):
        read_swf(path, bb_column=19, ssd_column=20, clean=False)


def test_rules_in_order_and_counts_add_up(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        line(1, -3, 0, -1, allocated_procs=-1),  # no processors (first rule wins)
        line(2, -3, 0, 2),  # zero run time (before negative submit)
        line(3, -3, 5, 2),  # negative submit
        line(4, 9, 5, 2, req=-1),
        line(5, 8, 5, 2),
    )
    w = read_swf(path)
    c = w.cleaning
    assert [c[k] for k in DROPS] == [1, 1, 1]
    assert c["rows_read"] == 5 == len(w) + sum(c[k] for k in DROPS)
    assert c["missing_requested_time"] == 1 and c["resorted"] == 2
    assert w.job_id.tolist() == [5, 4]


def test_clean_false_keeps_every_row(tmp_path: Path) -> None:
    path = write(tmp_path, line(1, 0, 10, 2), line(2, 5, 0, 2, req=0))
    w = read_swf(path, clean=False)
    assert len(w) == 2 and all(w.cleaning[k] == 0 for k in DROPS)
    assert w.cleaning["missing_requested_time"] == 0 and w.requested_time.tolist() == [3600, 0]


# ------------------------------------------------------------------------------- writing


def handmade() -> Workload:
    n = 5
    return Workload.from_columns(
        job_id=[10, 11, 12, 13, 14],
        submit=[0.0, 0.5, 3.25, 1e7 + 0.125, 2**40],
        runtime=[1.0, 1e-7, 12345.678901234, 3.0, 86400.0],
        requested_time=[2.0, 1.0, 20000.0, 3.0, 90000.0],
        nodes=[1, 2, 3, 4096, 5],
        bb_gb=[0.0, 1.5, 0.0, 2.0 / 3.0, 1e12],
        data_out_gb=[0.0, 0.0, 7.0, 0.0, 0.0],
        extra=np.arange(2 * n, dtype=float).reshape(n, 2) * 0.1,
        extra_names=("r19", "r20"),
        extra_capacities=(1e4, 2.5),
        max_nodes=4096,
        header=(("Computer", "hand made"), ("Note", "two  spaces")),
        source="handmade",
    )


def test_handmade_round_trip(tmp_path: Path) -> None:
    w = handmade()
    path = write_swf(w, tmp_path / "h.swf")
    back = read_swf(path)
    assert_same_columns(w, back)
    assert back.max_nodes == 4096
    assert is_subsequence(w.header, back.header)
    assert back.cleaning["resorted"] == 0 and back.cleaning["runs_past_request"] == 0
    text = path.read_text()
    assert "np." not in text and "e+" not in text
    job = text.splitlines()[-4].split()  # job 11
    assert job[:4] == ["11", "0.5", "-1", "1e-07"]
    assert job[18:20] == ["0.2", "0.30000000000000004"]  # 3 * 0.1: six decimals would not do
    assert job[20:] == ["1.5", "0"]  # bb_gb and data_out_gb are appended
    assert "; SchedbenchColumns: bb_gb=21, data_out_gb=22" in text
    assert "; BurstBuffer: 10000, 2.5" in text
    # and once more: a written file reads back to the same workload
    again = read_swf(write_swf(back, tmp_path / "h2.swf"))
    assert_same_columns(back, again) and again.header == back.header


def test_writer_rewrites_fields_8_and_9_only_when_needed(tmp_path: Path) -> None:
    w = read_swf(write(tmp_path, line(1, 0, 10, 4, req=-1, requested_procs=-1)))
    assert w.requested_time.tolist() == [10] and w.nodes.tolist() == [4]
    text = write_swf(w, tmp_path / "same.swf").read_text().splitlines()[-1].split()
    assert text[7] == "-1" and text[8] == "-1"  # unknown stays unknown: it reads back the same
    changed = w.replace(nodes=[8], requested_time=[60.0])
    fields = write_swf(changed, tmp_path / "c.swf").read_text().splitlines()[-1].split()
    assert fields[7] == "8" and fields[8] == "60"
    back = read_swf(tmp_path / "c.swf")
    assert back.nodes.tolist() == [8] and back.requested_time.tolist() == [60]
    assert back.cleaning["missing_requested_time"] == 0
    others = [j for j in range(18) if j not in (7, 8)]
    assert np.array_equal(back.swf[:, others], w.swf[:, others])


def test_writer_header_options(tmp_path: Path) -> None:
    w = Workload.from_columns(submit=[0, 1], runtime=[5, 5], nodes=[3, 7])
    text = write_swf(w, tmp_path / "a.swf").read_text().splitlines()
    assert text[:4] == ["; Version: 2.2", "; MaxJobs: 2", "; MaxRecords: 2", "; MaxNodes: 7"]
    bare = write_swf(w, tmp_path / "b.swf", header=False).read_text().splitlines()
    assert len(bare) == 2 and not any(t.startswith(";") for t in bare)
    assert_same_columns(read_swf(tmp_path / "b.swf"), w)
    stale = w.replace(header=(("MaxNodes", "3"),), max_nodes=9)
    assert "; MaxNodes: 9" in write_swf(stale, tmp_path / "c.swf").read_text()


def test_writer_refuses_non_finite(tmp_path: Path) -> None:
    w = Workload.from_columns(submit=[0, 1], runtime=[5, 5], nodes=[3, 7])
    swf = w.swf.copy()
    swf[1, SWF_INDEX["user_id"]] = np.nan
    with pytest.raises(SwfError, match=r"job 2 \(row 1\): expected finite .*field 12 \(user_id\)"):
        write_swf(w.replace(swf=swf), tmp_path / "x.swf")


def test_writer_with_schedule_result(tmp_path: Path) -> None:
    w = Workload.from_columns(
        submit=[0, 10, 20, 30, 40], runtime=[100, 200, 50, 60, 70], nodes=[1, 2, 3, 4, 99]
    )
    nan = np.nan
    start = np.array([5.0, 12.5, 20.0, 35.0, nan])
    end = np.array([105.0, 112.5, 70.0, nan, nan])
    state = np.array(
        [JobState.COMPLETED, JobState.KILLED, JobState.COMPLETED, JobState.UNFINISHED,
         JobState.REJECTED],
        dtype=np.int8,
    )  # fmt: skip
    result = ScheduleResult(
        workload=w,
        system=System.simple("m", 8),
        start=start,
        end=end,
        state=state,
        first_alloc=start,
        last_release=end,
        usage_t=np.zeros(0),
        usage=np.zeros((0, 4)),
        capacity=np.array([8.0, 0.0, 0.0, 0.0]),
    )
    path = write_swf(w, tmp_path / "log.swf", result=result)
    rows = [r.split() for r in path.read_text().splitlines() if not r.startswith(";")]
    assert [r[2] for r in rows] == ["5", "2.5", "0", "5", "-1"]  # wait
    assert [r[3] for r in rows] == ["100", "100", "50", "-1", "-1"]  # simulated run
    assert [r[10] for r in rows] == ["1", "0", "1", "5", "5"]  # status
    assert [r[8] for r in rows] == ["100", "200", "50", "60", "70"]  # requested time
    back = read_swf(path)
    assert back.job_id.tolist() == [1, 2, 3] and back.cleaning["zero_runtime"] == 2
    assert back.runtime.tolist() == [100, 100, 50]
    other = Workload.from_columns(submit=[0], runtime=[1], nodes=[1])
    with pytest.raises(SwfError, match="result"):
        write_swf(other, tmp_path / "x.swf", result=result)


# ----------------------------------------------------------------------- property: round trip

finite = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
times = st.one_of(st.integers(0, 10**9).map(float), finite)


@st.composite
def workloads(draw) -> Workload:
    n = draw(st.integers(0, 12))
    e = draw(st.integers(0, 3))
    with_caps = draw(st.booleans()) or n == 0  # without jobs only the capacities tell E
    submit = sorted(draw(st.lists(times, min_size=n, max_size=n)))
    positive = st.one_of(st.integers(1, 10**6).map(float), finite.filter(lambda x: x > 0))
    runtime = draw(st.lists(positive, min_size=n, max_size=n))
    requested = draw(st.lists(positive, min_size=n, max_size=n))
    ids = draw(st.lists(st.integers(0, 10**12), min_size=n, max_size=n, unique=True))
    side = {
        name: draw(st.lists(st.one_of(st.just(0.0), finite), min_size=n, max_size=n))
        for name in ("bb_gb", "ssd_gb", "data_in_gb", "data_out_gb")
    }
    extra = np.array(draw(st.lists(finite, min_size=n * e, max_size=n * e))).reshape(n, e)
    caps = tuple(draw(st.lists(finite, min_size=e, max_size=e))) if with_caps else ()
    return Workload.from_columns(
        submit=submit,
        runtime=runtime,
        requested_time=requested,
        nodes=draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n)),
        job_id=ids,
        extra=extra,
        extra_names=tuple(f"r{19 + k}" for k in range(e)),
        extra_capacities=caps,
        sort=False,
        **side,
    )


@given(w=workloads())
def test_round_trip_property(tmp_path_factory: pytest.TempPathFactory, w: Workload) -> None:
    path = write_swf(w, tmp_path_factory.mktemp("prop") / "w.swf")
    for clean in (True, False):
        back = read_swf(path, clean=clean)
        assert_same_columns(w, back)
        if len(w):
            assert back.max_nodes == int(w.nodes.max())


@pytest.mark.slow
def test_million_lines_in_a_few_seconds(tmp_path: Path) -> None:
    n = 1_000_000
    rng = np.random.default_rng(0)
    w = Workload.from_columns(
        submit=np.cumsum(rng.integers(0, 100, n)).astype(float),
        runtime=rng.integers(1, 10**5, n).astype(float),
        nodes=rng.integers(1, 128, n),
    )
    path = write_swf(w, tmp_path / "big.swf")
    assert _timed(lambda: read_swf(path)) < 6.0
