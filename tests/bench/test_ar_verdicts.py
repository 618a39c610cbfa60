"""`schedbench reproduce ar`: verdicts on 95 % intervals over seeds. A longer run may turn an
inconclusive verdict into one, but a short (quick) and a long (full) run never give opposite
verdicts on the same finding; here on a small grid, both runs sized down alike."""

from __future__ import annotations

import pytest

from schedbench.bench.reproduce import ar

#: A small grid with the ends and the middle of each of the paper's three experiments.
SMALL = {
    "umed": [ar.Setting(u, 1.0, 3.0, 3.0) for u in (5.0, 7.0, 9.0)],
    "af": [ar.Setting(7.0, a, 3.0, 3.0) for a in (0.5, 1.0, 1.5)],
    "flex": [ar.Setting(7.0, 1.0, f, f) for f in (1.0, 3.0, 5.0)],
}
#: (seeds, requests) of the two runs: the quick one shorter and with fewer seeds, as
#: ``reproduce ar --quick`` (5 x 3,000) is to the full run (10 x 10,000).
RUNS = {"quick": (3, 300), "full": (6, 1000)}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict[str, str]]:
    return {
        name: {f["finding"]: f["agree"] for f in ar.judge_grid(SMALL, seeds, jobs)}
        for name, (seeds, jobs) in RUNS.items()
    }


def test_every_finding_has_a_verdict_in_both_runs(verdicts):
    assert verdicts["quick"].keys() == verdicts["full"].keys()
    assert len(verdicts["full"]) == 19
    for run in verdicts.values():
        assert set(run.values()) <= {"yes", "no", "inconclusive"}


def test_quick_and_full_never_give_opposite_verdicts(verdicts):
    quick, full = verdicts["quick"], verdicts["full"]
    opposite = {f: (quick[f], full[f]) for f in full if {quick[f], full[f]} == {"yes", "no"}}
    assert not opposite
