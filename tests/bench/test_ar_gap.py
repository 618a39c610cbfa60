"""``bench/reproduce/_ar_gap.py``: the policies' gap to the proven offline optimum on windows of a
stream. No policy beats a proven optimum (gap >= 0), checked against an exhaustive search on
small windows."""

from __future__ import annotations

import csv
import itertools
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.bench.cli import main
from schedbench.bench.reproduce import _ar_gap as gap
from schedbench.bench.reproduce import ar
from schedbench.instances.ar_workload import PAPER_PES, generate_ar_requests
from schedbench.simcore.reservations.driver import serve
from schedbench.simcore.reservations.fit import PAPER_POLICIES
from schedbench.simcore.reservations.requests import Request
from tests._ar_brute import offline_optimum_brute


@pytest.mark.parametrize(
    ("n", "size", "count"), [(3000, 60, 2), (3000, 80, 3), (100, 60, 2), (100, 30, 5), (59, 60, 2)]
)
def test_windows_are_disjoint_inside_the_stream_and_spread(n, size, count):
    starts = gap.window_starts(n, size, count)
    assert len(starts) == (min(count, n // size) if n >= size else 0)
    assert all(0 <= s <= n - size for s in starts)
    assert all(b - a >= size for a, b in itertools.pairwise(starts))
    if len(starts) >= 2:  # spread over the stream, not packed at its start
        assert starts[-1] >= n / 2 - size


@st.composite
def small_windows(draw):
    """A few requests on a 4-PE machine with short windows (so the exhaustive search is cheap)."""
    n = draw(st.integers(1, 7))
    out = []
    for i in range(n):
        arrival = draw(st.integers(0, 6))
        ready = arrival + draw(st.integers(0, 2))
        duration = draw(st.integers(1, 4))
        deadline = ready + duration + draw(st.integers(0, 3))
        out.append(Request(arrival, i, ready, duration, deadline, draw(st.integers(1, 4))))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_windows())
def test_no_policy_beats_the_proven_optimum_and_the_optimum_is_exact(window):
    row = gap.window_gap(window, 4, PAPER_POLICIES, time_limit_s=10.0)
    optimum = offline_optimum_brute(window, 4)
    assert row["proven"]
    assert row["optimum"] == optimum
    for p in PAPER_POLICIES:
        assert row["accepted"][p] == len(serve(window, 4, p).accepted)
        assert 0 <= row["optimum"] - row["accepted"][p] <= len(window)
    assert gap.gap_estimate([row], "ff").mean >= 0


def test_a_policy_above_a_proven_optimum_is_an_error(monkeypatch):
    window = [Request(0, 1, 0, 10, 10, 4), Request(0, 2, 0, 10, 10, 4)]  # only one fits
    both = SimpleNamespace(accepted=[SimpleNamespace(start=None)] * 2)  # a broken policy: both
    monkeypatch.setattr(gap, "serve", lambda *a, **k: both)
    with pytest.raises(gap.GapError, match="more than the proven optimum 1"):
        gap.window_gap(window, 4, ["ff"], time_limit_s=5.0)


def test_gaps_of_paper_scale_windows_are_never_negative():
    requests = generate_ar_requests(600, seed=3)
    rows = gap.stream_gaps(requests, PAPER_PES, PAPER_POLICIES, count=2, size=30, time_limit_s=5)
    assert [r["first"] for r in rows] == gap.window_starts(600, 30, 2)
    for r in rows:
        assert r["size"] in (30, 15) and r["asked"] == 30
        if r["proven"]:
            assert all(r["optimum"] >= a for a in r["accepted"].values())


def _window(proven, optimum, accepted, size=10):
    return {"size": size, "proven": proven, "optimum": optimum, "accepted": {"ff": accepted}}


def test_the_gap_is_taken_over_proven_windows_only():
    windows = [_window(True, 9, 8), _window(True, 10, 8), _window(False, 10, 0)]
    e = gap.gap_estimate(windows, "ff")
    assert e.n == 2 and e.mean == pytest.approx(0.15)
    assert e.low < 0.15 < e.high
    assert gap.gap_estimate([_window(False, 10, 0)], "ff") is None
    setting = ar.Setting(7.0, 1.0, 3.0, 3.0)
    items = [{"seed": 1, "gaps": [dict(w, first=0, bound=10, wall_s=0.1) for w in windows]}]
    rows = gap.gap_rows({"umed": [setting]}, {setting: items}, ["ff"])
    assert rows[0]["windows"] == 3 and rows[0]["proven"] == 2 and rows[0]["gap"] == 0.15
    assert "0.150 [" in gap.gap_table(rows, {"ff": "FF"})
    per_window = gap.window_rows({setting: items}, ["ff"])
    assert [r["gap"] for r in per_window] == [0.1, 0.2, ""]


def test_reproduce_ar_writes_the_gap_table(tmp_path, capsys):
    out = tmp_path / "g"
    argv = ["reproduce", "ar", "--out", str(out), "--experiments", "umed", "--umed", "5,7"]
    argv += ["--seeds", "2", "--jobs", "120", "--bound-jobs", "0", "--workers", "1"]
    argv += ["--gap-windows", "2", "--gap-size", "20", "--gap-time", "5"]
    assert main(argv) == 0
    with open(out / "gap.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * len(PAPER_POLICIES)
    assert all(int(r["windows"]) == 4 for r in rows)
    assert all(float(r["gap"]) >= 0 for r in rows if r["gap"])
    assert "gap to the proven offline optimum" in capsys.readouterr().out
    assert (out / "gap_windows.csv").stat().st_size > 0
