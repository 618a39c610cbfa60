"""`schedbench reproduce bbsched --screen`: the one-factor-at-a-time design, the runs settings
share, the paired interval, the estimate models and a tiny screen end to end
(bench/reproduce/_bbsched_screen.py)."""

from __future__ import annotations

import csv
import dataclasses
import math

import numpy as np
import pytest

from schedbench.bench.cli import main
from schedbench.bench.reproduce import _bbsched_screen as sw

KNOBS = ("estimates", "length", "load", "backfill", "window", "order")


def _differences(a: sw.Setting, b: sw.Setting) -> dict[str, tuple]:
    out = {k: (getattr(a, k), getattr(b, k)) for k in KNOBS if getattr(a, k) != getattr(b, k)}
    ra, rb = dict(a.rules), dict(b.rules)
    out.update({k: (ra.get(k), rb.get(k)) for k in set(ra) | set(rb) if ra.get(k) != rb.get(k)})
    return out


def test_every_paper_factor_level_is_switched_alone_from_the_paper_text_base():
    settings = sw.design()
    base = settings[0]
    assert (base.part, base.factor, base.rules) == ("paper", "base", ())
    paper = [s for s in settings if s.part == "paper" and s.factor != "base"]
    expected = {(f, str(lvl)) for f, (_, lvls) in sw.PAPER_FACTORS.items() for lvl in lvls}
    assert {(s.factor, s.level) for s in paper} == expected and len(paper) == len(expected)
    for s in paper:
        diff = _differences(base, s)
        assert list(diff) == [s.factor]
        assert diff[s.factor][0] == sw.PAPER_FACTORS[s.factor][0]


def test_every_rule_is_switched_alone_to_the_code_and_the_corner_switches_them_all():
    settings = sw.design()
    cq = [s for s in settings if s.part == "cqsim"]
    base = cq[0]
    assert base.factor == "base" and dict(base.rules) == {k: v[0] for k, v in sw.RULES.items()}
    toggles = [s for s in cq if s.factor in sw.RULES]
    assert [s.factor for s in toggles] == list(sw.RULES)  # each rule exactly once
    for s in toggles:
        assert _differences(base, s) == {s.factor: sw.RULES[s.factor]}
    corner, kth, kth_corner = cq[-3:]
    assert corner.factor == "all rules"
    assert dict(corner.rules) == {k: v[1] for k, v in sw.RULES.items()}
    assert _differences(base, kth) == {"estimates": ("exact", "kth-sp2")}
    assert _differences(corner, kth_corner) == {"estimates": ("exact", "kth-sp2")}
    assert len(cq) == len(sw.RULES) + 4
    assert len({s.name for s in settings}) == len(settings)
    # every rule is a real field of the profile, and each of its two values is accepted
    from schedbench.simcore.cqsim import CqsimRules

    for k, (paper, code) in sw.RULES.items():
        assert getattr(CqsimRules(**{k: code}), k) == code
        assert getattr(CqsimRules(**{k: paper}), k) == paper


def test_settings_share_the_runs_that_do_not_depend_on_what_they_switch():
    d = {s.name: s for s in sw.design()}
    key = lambda name, m: sw.run_key(d[name], m, 0, 4000, 12000)  # noqa: E731
    # the baseline ignores the window and the decision rules; BBSched does not
    assert key("window=10", "naive") == key("paper base", "naive")
    assert key("window=10", "bbsched") != key("paper base", "bbsched")
    cq_base = next(s for s in sw.design() if s.part == "cqsim")
    assert key("decision_maker=cqsim", "naive") == sw.run_key(cq_base, "naive", 0, 4000, 12000)
    assert key("bb_abandon=True", "naive") != sw.run_key(cq_base, "naive", 0, 4000, 12000)
    # conservative for the baseline only: its baseline is the conservative one, its BBSched EASY
    assert key("backfill=conservative-baseline", "naive") == key("backfill=conservative", "naive")
    assert key("backfill=conservative-baseline", "bbsched") == key("paper base", "bbsched")
    assert key("length=long", "naive").jobs == 12000 and key("paper base", "naive").jobs == 4000


def test_the_paired_interval_pairs_by_seed():
    base = {0: 100.0, 1: 200.0, 2: 50.0, 3: 10.0}
    other = {0: 110.0, 1: 180.0, 2: 60.0, 9: 1.0}  # seed 3 and 9 unpaired
    e = sw.paired(base, other, "relative")
    assert e is not None and e.n == 3
    diffs = [10.0, -10.0, 20.0]
    assert e.mean == pytest.approx(np.mean(diffs))
    # t(0.975, 2) = 4.3027
    half = 4.3027 * np.std(diffs, ddof=1) / math.sqrt(3)
    assert (e.low, e.high) == pytest.approx((e.mean - half, e.mean + half), rel=1e-4)
    pts = sw.paired({0: 0.5, 1: 0.6}, {0: 0.55, 1: 0.6}, "points")
    assert pts is not None and pts.mean == pytest.approx(2.5)
    # a shift common to both methods cancels: the seeds' spread in level does not widen it
    assert sw.paired({0: 0.5, 1: 0.9}, {0: 0.51, 1: 0.91}, "points").high - 1.0 < 1e-9
    assert sw.paired({0: None}, {0: 1.0}, "points") is None
    assert sw.paired({0: 0.0, 1: 1.0}, {0: 1.0, 1: 2.0}, "relative").n == 1


def test_estimate_models_change_requests_only():
    from schedbench.instances.lublin import generate_lublin

    w = generate_lublin(300, nodes=4392, seed=3)
    assert sw.with_estimates(w, "exact", 3) is w
    x2 = sw.with_estimates(w, "x2", 3)
    np.testing.assert_array_equal(x2.runtime, w.runtime)
    assert np.all(x2.requested_time >= 2 * w.runtime - 1e-9)
    kth = sw.with_estimates(w, "kth-sp2", 3)
    np.testing.assert_array_equal(kth.runtime, w.runtime)
    assert np.all(kth.requested_time >= w.requested_time)
    assert np.mean(kth.requested_time > w.requested_time) > 0.5  # most users overestimate
    np.testing.assert_array_equal(
        kth.requested_time, sw.with_estimates(w, "kth-sp2", 3).requested_time
    )
    assert not np.array_equal(kth.requested_time, sw.with_estimates(w, "kth-sp2", 4).requested_time)
    assert sw.kth_ratios().min() >= 1.0 and np.median(sw.kth_ratios()) > 1.5
    with pytest.raises(ValueError, match="estimates"):
        sw.with_estimates(w, "x3", 0)


def test_a_tiny_screen_writes_a_row_per_setting(tmp_path, capsys, monkeypatch):
    full = sw.design()
    cq = [s for s in full if s.part == "cqsim"]
    tiny = [full[0], dataclasses.replace(full[0], factor="order", level="fcfs", order="fcfs")]
    tiny += [cq[0], next(s for s in cq if s.factor == "bb_abandon"), cq[-3]]
    monkeypatch.setattr(sw, "design", lambda: tiny)
    out = tmp_path / "screen"
    argv = ["reproduce", "bbsched", "--screen", "--quick", "--jobs", "120", "--seeds", "0-1"]
    assert main([*argv, "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    with open(out / "screen.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["setting"] for r in rows] == [s.name for s in tiny]
    for r in rows:
        assert r["seeds"] == "2"
        for name in ("node_rel", "bb_rel", "wait_rel"):
            assert float(r[f"{name}_low"]) <= float(r[name]) <= float(r[f"{name}_high"])
        assert r["node_verdict"] in {"yes", "partly", "inconclusive", "no"}
    with open(out / "screen_runs.csv", encoding="utf-8") as fh:
        runs = list(csv.DictReader(fh))
    assert len(runs) == len(tiny) * 2 * 2
    printed = capsys.readouterr().out
    assert "BBSched minus baseline" in printed and "all rules=code" in printed
