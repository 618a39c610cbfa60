"""`schedbench reproduce ar`: the replay form (decisions.csv, summary.csv) and a small run of
the experiment form (results.csv, figures, agreement table)."""

from __future__ import annotations

import csv

import pytest

from schedbench.bench.cli import main
from schedbench.bench.reproduce import ar

HEADER = "id,arrival_s,ready_s,duration_s,deadline_s,pes\n"


def rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_replay_writes_decisions_and_summary_exactly(tmp_path, capsys):
    req = tmp_path / "r.csv"
    req.write_text(
        HEADER
        + "1,0,0,10,100,2\n"
        + "2,0,0,10,100,2\n"
        + "3,0,0,10,15,4\n"  # cannot fit: rejected by the policy
        + "4,1,0,10,30,1\n"  # ready before arrival: rejected at load
    )
    out = tmp_path / "out"
    code = main(
        [
            "reproduce",
            "ar",
            "--requests",
            str(req),
            "--pes",
            "4",
            "--policy",
            "ff",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "request 4: rejected at load: ready 0 before arrival 1" in captured.err
    assert rows(out / "decisions.csv") == [
        ["id", "accepted", "start_s", "pe_ids", "arrival_s", "end_s", "deadline_s"],
        ["1", "1", "0", "0 1", "0", "10", "100"],
        ["2", "1", "0", "2 3", "0", "10", "100"],
        ["3", "0", "", "", "0", "", "15"],
        ["4", "0", "", "", "1", "", "30"],
    ]
    summary = rows(out / "summary.csv")
    assert summary[0] == ["acceptance", "mean_slowdown", "utilisation"]
    assert [float(x) for x in summary[1]] == [0.5, 1.0, 1.0]


@pytest.mark.parametrize("policy", ["pe-w", "reservation-cpsat"])
def test_replay_takes_a_fit_policy_or_a_reservation_solver(tmp_path, policy):
    req = tmp_path / "r.csv"
    req.write_text(HEADER + "1,0,0,10,40,2\n2,0,5,10,40,2\n")
    out = tmp_path / policy
    argv = ["reproduce", "ar", "--requests", str(req), "--pes", "2", "--policy", policy]
    assert main([*argv, "--out", str(out)]) == 0
    decided = rows(out / "decisions.csv")[1:]
    assert [d[1] for d in decided] == ["1", "1"]


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--policy", "best"], "unknown solver 'best'"),
        (["--policy", "dp"], "expected a fit policy"),
        ([], "--policy: required"),
    ],
)
def test_replay_errors_name_what_is_wrong(tmp_path, capsys, extra, match):
    req = tmp_path / "r.csv"
    req.write_text(HEADER + "1,0,0,10,40,2\n")
    argv = ["reproduce", "ar", "--requests", str(req), "--pes", "2", "--out", str(tmp_path / "o")]
    assert main([*argv, *extra]) == 2
    assert match in capsys.readouterr().err


def test_replay_of_a_malformed_csv_names_the_line(tmp_path, capsys):
    req = tmp_path / "r.csv"
    req.write_text(HEADER + "1,0,0,ten,40,2\n")
    argv = ["reproduce", "ar", "--requests", str(req), "--pes", "2", "--policy", "ff"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert (
        "r.csv:2: request 1: duration_s: expected an integer, got 'ten'" in capsys.readouterr().err
    )


def test_replay_from_an_swf_trace(tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text(
        "; MaxProcs: 8\n"
        "1 0 0 100 4 -1 -1 4 120 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        "2 50 0 30 16 -1 -1 16 30 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    out = tmp_path / "o"
    assert main(["reproduce", "ar", "--swf", str(swf), "--policy", "du-b", "--out", str(out)]) == 0
    assert [r[:2] for r in rows(out / "decisions.csv")[1:]] == [["1", "1"], ["2", "0"]]


def test_a_small_experiment_writes_results_figures_and_agreement(tmp_path, capsys):
    out = tmp_path / "exp"
    argv = [
        "reproduce",
        "ar",
        "--out",
        str(out),
        "--umed",
        "6,7",
        "--af",
        "1,1.25",
        "--flex",
        "1:1,3:3",
        "--seeds",
        "2",
        "--jobs",
        "150",
        "--bound-jobs",
        "15",
        "--bound-time",
        "1",
        "--gap-windows",
        "1",
        "--gap-size",
        "15",
        "--gap-time",
        "1",
        "--workers",
        "1",
    ]
    assert main(argv) == 0
    results = rows(out / "results.csv")
    assert tuple(results[0]) == ar.RESULT_COLUMNS
    assert len(results) == 1 + 7 * (2 + 2 + 2)
    first = dict(zip(results[0], results[1], strict=True))
    assert first["experiment"] == "umed" and first["seeds"] == "2" and first["jobs"] == "150"
    assert 0 < float(first["acceptance"]) <= float(first["offline_bound"]) <= 1
    for name in (
        "fig2_acceptance_umed.png",
        "fig3_slowdown_umed.png",
        "fig4_acceptance_af.png",
        "fig5_slowdown_af.png",
        "fig6_acceptance_flex.png",
        "fig7_slowdown_flex.png",
        "fig_offline_ratio.png",
        "details.csv",
        "bounds.csv",
        "gap.csv",
    ):
        assert (out / name).stat().st_size > 0
    agreement = rows(out / "agreement.csv")
    assert agreement[0] == ["finding", "paper", "ours", "interval", "agree", "reason"]
    assert {r[4] for r in agreement[1:]} <= {"yes", "no", "inconclusive"}
    # a reason wherever we differ or cannot tell, and the deciding interval everywhere
    assert all(r[5] for r in agreement[1:] if r[4] != "yes")
    assert all("[" in r[3] and "claim" in r[3] for r in agreement[1:])
    seeds = rows(out / "seeds.csv")
    assert tuple(seeds[0]) == ar.SEED_COLUMNS and len(seeds) == 1 + 6 * 2 * 7
    assert "FF has the lowest slowdown" in capsys.readouterr().out


def test_experiment_options_are_checked(capsys):
    assert main(["reproduce", "ar", "--umed", "12", "--jobs", "5"]) == 2
    assert "--umed: expected values in [4.5, 10]" in capsys.readouterr().err
    assert main(["reproduce", "ar", "--policy", "ff"]) == 2
    assert "--policy: a replay option" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "ar", "--flex", "3-3"])


def _synthetic_samples(acceptance, slowdown, seeds=4):
    """Per-seed samples of the three experiments from acceptance(policy, experiment, x) and
    slowdown(policy, experiment, x), each seed off by the same small amount for every policy
    (so paired differences are exact)."""
    grids = {
        "umed": [5.0, 6.0, 7.0],
        "af": [0.5, 1.0, 1.5],
        "flex": [(f, f) for f in (1.0, 2.0, 3.0, 4.0)],
    }
    noise = [0.001 * (k - seeds / 2) for k in range(seeds)]
    return {
        (exp, x, p): {
            "acceptance": [acceptance(p, exp, k) + e for e in noise],
            "slowdown": [slowdown(p, exp, k) + e for e in noise],
        }
        for exp, xs in grids.items()
        for k, x in enumerate(xs)
        for p in ar.PAPER_POLICIES
    }


RANK = {"ff": 0, "pe-b": 1, "du-w": 2, "pedu-b": 3, "pedu-w": 4, "du-b": 5, "pe-w": 6}


def test_agreement_checks_slowdown_pairs_rankings_and_unsteady_policies():
    # the paper's picture: pairs alike, the same ranking under UMed and af, PE_W / Du_B /
    # PEDu_B rising steadily with flexibility and the other four dipping at {4,4}
    def acc(p, exp, k):
        base = 0.5 + 0.01 * {"pe-w": 6, "du-b": 6}.get(p, RANK[p])
        if exp == "flex":
            steady = p in ("pe-w", "du-b", "pedu-b")
            return base + 0.05 * k - (0.0 if steady or k < 3 else 0.08)
        return base - 0.05 * k

    def slow(p, exp, k):
        return 1.2 + 0.1 * k + 0.1 * {"du-b": 6, "du-w": 1}.get(p, RANK[p])

    found = {
        f["finding"]: f for f in ar.agreement(_synthetic_samples(acc, slow), ar.PAPER_POLICIES)
    }
    assert found["PE_W~Du_B and PE_B~Du_W in slowdown too"]["agree"] == "yes"
    assert found["the policies rank alike under UMed and af"]["agree"] == "yes"
    assert found["the other four rise unsteadily with flexibility"]["agree"] == "yes"

    # the opposite: pairs apart in slowdown, af reverses the ranking, everyone rises steadily
    def acc2(p, exp, k):
        sign = -1 if exp == "af" else 1
        return 0.5 + sign * 0.01 * RANK[p] + (0.05 * k if exp == "flex" else -0.05 * k)

    def slow2(p, exp, k):
        sign = -1 if exp == "af" else 1
        return 2.0 + 0.1 * k + sign * 0.2 * RANK[p]

    found = {
        f["finding"]: f for f in ar.agreement(_synthetic_samples(acc2, slow2), ar.PAPER_POLICIES)
    }
    for name in (
        "PE_W~Du_B and PE_B~Du_W in slowdown too",
        "the policies rank alike under UMed and af",
        "the other four rise unsteadily with flexibility",
    ):
        assert found[name]["agree"] == "no" and found[name]["reason"], name
    assert (
        "acceptance -1.00, slowdown -1.00"
        in found["the policies rank alike under UMed and af"]["ours"]
    )


def test_a_finding_whose_interval_straddles_its_bound_is_inconclusive():
    # PE_W above Du_B by 0.001-0.003 on three seeds, by -0.002 on the fourth: the lead's
    # interval at {4,4} contains 0, so "PE_W's lead grows" can be neither confirmed nor refuted
    def acc(p, exp, k):
        return 0.5 + 0.01 * RANK[p] + (0.05 * k if exp == "flex" else -0.05 * k)

    samples = _synthetic_samples(acc, lambda p, exp, k: 1.2 + 0.1 * k + 0.1 * RANK[p])
    for k, x in enumerate([(1.0, 1.0), (4.0, 4.0)]):
        samples[("flex", x, "du-b")]["acceptance"] = [
            v + d
            for v, d in zip(
                samples[("flex", x, "pe-w")]["acceptance"],
                [0.0, 0.0, 0.0, 0.0] if k == 0 else [-0.001, -0.003, -0.002, 0.002],
                strict=True,
            )
        ]
    found = {f["finding"]: f for f in ar.agreement(samples, ar.PAPER_POLICIES)}
    lead = found["PE_W's lead over Du_B grows with flexibility"]
    assert lead["agree"] == "inconclusive"
    assert "more seeds" in lead["reason"] and "claim > +0" in lead["interval"]
