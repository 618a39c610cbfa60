"""Tests of bench/report.py: leaderboard numbers against hand computation, the Markdown report,
and the HTML report (embedded PNGs that decode, ids, "no data" notes, a headless-browser load)."""

from __future__ import annotations

import base64
import math
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from schedbench.bench.report import (
    KIVIAT_MAX,
    ReportError,
    decision_leaderboard,
    format_table,
    html_report,
    kiviat_axes,
    kiviat_baseline,
    markdown_report,
    simulation_leaderboard,
)
from schedbench.bench.store import ResultStore
from schedbench.simcore.indicators import front_fraction, gd, hypervolume_ratio, igd_plus

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BUDGET = 10.0
EXACT_FRONT = [[10.0, 1.0], [8.0, 4.0], [5.0, 6.0]]
NAMES = ["nodes", "bb_tb"]


# -- building a store by hand -----------------------------------------------------------------


def _decision(
    status: str,
    objectives: list[float],
    pareto: list[list[float]],
    latency: float,
    solver: str,
    reference: Any,
) -> dict[str, Any]:
    """``Decision.to_dict()`` plus the runner's ``reference_pareto`` and ``objective_names``."""
    m = len(objectives) or (len(pareto[0]) if pareto else 1)
    return {
        "status": status,
        "selected": [0, 2] if objectives else [],
        "objectives": objectives,
        "pareto": [{"selected": [i], "objectives": p} for i, p in enumerate(pareto)],
        "latency_s": latency,
        "solver": solver,
        "notes": [],
        "stats": {},
        "trace": [],
        "reference_pareto": reference,
        "objective_names": NAMES[:m] if m == 2 else ["jobs"],
    }


def _m1(
    solver: str, instance: str, status: str, gap: float | None, latency: float, conc: int
) -> dict[str, Any]:
    answered = status in ("optimal", "feasible")
    z_star = 40.0
    z = z_star * (1.0 - gap) if answered and gap is not None else None
    return {
        "kind": "decision",
        "family": "knap-1d",
        "instance": instance,
        "instance_hash": f"h-{instance}",
        "solver": solver,
        "solver_name": solver.split("[")[0],
        "budget_s": BUDGET,
        "status": status,
        "latency_s": latency,
        "concurrency": conc,
        "isolated": False,
        "executor": "local",
        # What decision_quality() gives, less its text fields (the store keeps numbers only).
        "metrics": {
            "n_objectives": 1,
            "feasible": answered,
            "primal_gap": gap,
            "primal_integral": None if gap is None else min(1.0, gap + latency / BUDGET),
        },
        "decision": _decision(
            status, [z] if z is not None else [], [], latency, solver, [[z_star]]
        ),
    }


def _m2(
    solver: str, instance: str, pareto: list[list[float]], latency: float, *, reference: bool = True
) -> dict[str, Any]:
    if reference:
        quality = {
            "igd_plus": igd_plus(pareto, EXACT_FRONT),
            "gd": gd(pareto, EXACT_FRONT),
            "hv_ratio": hypervolume_ratio(pareto, EXACT_FRONT),
            "front_found": front_fraction(pareto, EXACT_FRONT),
            "front_size": len(EXACT_FRONT),
        }
    else:
        quality = dict.fromkeys(("igd_plus", "gd", "hv_ratio", "front_found", "front_size"))
    return {
        "kind": "decision",
        "family": "bi",
        "instance": instance,
        "instance_hash": f"h-{instance}",
        "solver": solver,
        "solver_name": solver,
        "budget_s": BUDGET,
        "status": "optimal" if solver == "dp" else "feasible",
        "latency_s": latency,
        "concurrency": 1,
        "isolated": False,
        "executor": "local",
        "metrics": {"n_objectives": 2, "feasible": True, **quality},
        "decision": _decision(
            "feasible", pareto[0], pareto, latency, solver, EXACT_FRONT if reference else None
        ),
    }


def _sim(
    solver: str, scenario: str, rep: int, status: str = "finished", **metrics: Any
) -> dict[str, Any]:
    return {
        "kind": "simulation",
        "family": "bbsched",
        "instance": scenario,
        "solver": solver,
        "repetition": rep,
        "status": status,
        "error": "simulation stopped: invalid decision" if status == "error" else None,
        "budget_s": 15.0,
        "concurrency": 1,
        "metrics": metrics,
    }


def _s1(
    node: float, bb: float, wait: float, slow: float, bsd: float, dec: int, dlm: float | None
) -> dict[str, Any]:
    return {
        "node_usage": node,
        "bb_usage": bb,
        "ssd_usage": None,
        "ssd_waste": None,
        "wait_mean_s": wait,
        "slowdown_mean": slow,
        "bounded_slowdown_mean": bsd,
        "decisions": dec,
        "decision_latency_median_s": dlm,
    }


def decision_rows() -> list[dict[str, Any]]:
    return [
        _m1("dp", "w20-a", "optimal", 0.0, 0.01, 1),
        _m1("dp", "w20-b", "optimal", 0.0, 0.03, 1),
        _m1("ga[seed=0]", "w20-a", "feasible", 0.1, 0.5, 1),
        _m1("ga[seed=0]", "w20-b", "feasible", 0.3, 2.0, 2),  # ran next to another cell
        _m1("mip-cbc", "w20-a", "optimal", 0.0, 1.0, 1),
        _m1("mip-cbc", "w20-b", "error", 1.0, 0.2, 1),  # failed: charged the budget
        _m1("cpsat[time_limit_s=5]", "w20-a", "optimal", 0.0, 0.2, 3),
        _m1("cpsat[time_limit_s=5]", "w20-b", "optimal", 0.0, 0.4, 3),
        _m2("dp", "p1", EXACT_FRONT, 0.05),
        _m2("dp", "p2", EXACT_FRONT, 0.07),
        _m2("dp", "p3", EXACT_FRONT, 0.06, reference=False),
        _m2("moo", "p1", [[10.0, 1.0], [7.0, 3.0]], 0.8),
        _m2("moo", "p2", [[8.0, 4.0]], 1.2),
        _m2("moo", "p3", [[9.0, 2.0]], 1.0, reference=False),
    ]


def simulation_rows() -> list[dict[str, Any]]:
    return [
        _sim("naive", "S1", 0, **_s1(0.6, 0.5, 1000.0, 10.0, 8.0, 0, None)),
        _sim("ga", "S1", 0, **_s1(0.8, 0.7, 600.0, 5.0, 4.0, 100, 0.01)),
        _sim("ga", "S1", 1, **_s1(0.9, 0.6, 400.0, 4.0, 3.0, 120, 0.03)),
        _sim("ga", "S1", 2, status="error", **_s1(0.1, 0.1, 9.0, 1.0, 1.0, 5, 9.0)),
        _sim("weighted", "S1", 0, **_s1(0.7, 0.8, 800.0, 8.0, 6.0, 90, 0.02)),
        _sim(
            "naive",
            "S5",
            0,
            **{**_s1(0.6, 0.4, 500.0, 6.0, 5.0, 0, None), "ssd_usage": 0.5, "ssd_waste": 0.2},
        ),
        _sim(
            "constrained-ssd",
            "S5",
            0,
            **{**_s1(0.7, 0.5, 400.0, 5.0, 4.0, 80, 0.01), "ssd_usage": 0.7, "ssd_waste": 0.0},
        ),
    ]


def build_store(path: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with ResultStore(path) as store:
        run = store.begin_run("suite", {"budget_s": BUDGET}, provenance={"test": True})
        for i, row in enumerate(rows):
            store.add({"suite": "suite", "run_id": run, "cell_id": f"c{i}", **row})
        store.finish_run(run)
        return store.rows()


@pytest.fixture
def all_rows(tmp_path: Path) -> list[dict[str, Any]]:
    return build_store(tmp_path / "s.sqlite", decision_rows() + simulation_rows())


def by_solver(board: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["solver"]: e for e in board}


# -- decision leaderboard ---------------------------------------------------------------------


def test_decision_leaderboard_hand_values(all_rows):
    board = decision_leaderboard(all_rows)
    # Failure share first, then quality loss (dp 0 = cpsat 0 < ga 0.2 < moo 0.28), then SGM.
    assert [e["solver"] for e in board] == [
        "dp",
        "cpsat[time_limit_s=5]",
        "ga[seed=0]",
        "moo",
        "mip-cbc",
    ]
    b = by_solver(board)

    mip = b["mip-cbc"]
    assert (mip["cells"], mip["failures"], mip["latency_from"], mip["lat_n"]) == (2, 1, "alone", 2)
    # The failed cell took 0.2 s but is charged the 10 s budget: latencies (1, 10).
    assert mip["median_s"] == pytest.approx(5.5)
    assert mip["p95_s"] == pytest.approx(1.0 + 0.95 * 9.0)
    assert mip["max_s"] == pytest.approx(10.0)
    assert mip["within_budget"] == pytest.approx(0.5)
    assert mip["sgm_s"] == pytest.approx(math.sqrt((1.0 + 1.0) * (10.0 + 1.0)) - 1.0)
    assert mip["primal_gap"] == pytest.approx(0.5)
    assert mip["budget_s"] == BUDGET

    ga = b["ga[seed=0]"]
    assert ga["primal_gap"] == pytest.approx(0.2)  # quality uses every cell
    assert (ga["latency_from"], ga["lat_n"], ga["median_s"]) == ("alone", 1, pytest.approx(0.5))

    cpsat = b["cpsat[time_limit_s=5]"]  # no cell ran alone: said so, not silently mixed
    assert cpsat["latency_from"] == "concurrent (3)"
    assert cpsat["median_s"] == pytest.approx(0.3)

    dp = b["dp"]
    assert dp["cells"] == 5 and dp["failures"] == 0
    assert dp["median_s"] == pytest.approx(0.05)  # of 0.01, 0.03, 0.05, 0.07, 0.06
    assert dp["primal_gap"] == 0.0 and dp["igd_plus"] == 0.0
    assert dp["front_found"] == 1.0 and dp["hv_ratio"] == pytest.approx(1.0)
    assert dp["ref_missing"] == pytest.approx(1 / 5)

    moo = b["moo"]
    assert moo["igd_plus"] == pytest.approx((0.29428090415820635 + 0.26666666666666666) / 2)
    assert moo["front_found"] == pytest.approx(1 / 3)
    assert moo["hv_ratio"] == pytest.approx((0.5438596491228072 + 0.8596491228070174) / 2)
    assert moo["ref_missing"] == pytest.approx(1 / 3)
    assert moo["primal_gap"] is None


def test_alone_only_false_mixes_and_says_so(all_rows):
    b = by_solver(decision_leaderboard(all_rows, alone_only=False))
    ga = b["ga[seed=0]"]
    assert (ga["latency_from"], ga["lat_n"]) == ("mixed (2)", 2)
    assert ga["median_s"] == pytest.approx(1.25)
    assert b["dp"]["latency_from"] == "alone"
    assert b["cpsat[time_limit_s=5]"]["latency_from"] == "mixed (3)"


def test_by_family(all_rows):
    board = decision_leaderboard(all_rows, by_family=True)
    keys = [(e["family"], e["solver"]) for e in board]
    assert keys == [
        ("bi", "dp"),
        ("bi", "moo"),
        ("knap-1d", "dp"),
        ("knap-1d", "cpsat[time_limit_s=5]"),
        ("knap-1d", "ga[seed=0]"),
        ("knap-1d", "mip-cbc"),
    ]
    dp_1d = board[2]
    assert dp_1d["cells"] == 2 and dp_1d["median_s"] == pytest.approx(0.02)
    assert dp_1d["igd_plus"] is None and dp_1d["ref_missing"] == 0.0


def test_mixed_budgets_charge_each_failure_its_own_budget():
    rows = [
        {
            "kind": "decision",
            "solver": "x",
            "status": "error",
            "latency_s": 1.0,
            "budget_s": 5.0,
            "concurrency": 1,
        },
        {
            "kind": "decision",
            "solver": "x",
            "status": "error",
            "latency_s": None,
            "budget_s": 20.0,
            "concurrency": 1,
        },
        {
            "kind": "decision",
            "solver": "x",
            "status": "feasible",
            "latency_s": 2.0,
            "budget_s": 20.0,
            "concurrency": 1,
            "decision": {"objectives": [3.0]},
        },
        # A timeout that returned nothing is a failure (as bench.quality.is_failure).
        {
            "kind": "decision",
            "solver": "x",
            "status": "timeout",
            "latency_s": 25.0,
            "budget_s": 20.0,
            "concurrency": 1,
            "decision": {"objectives": [], "pareto": []},
        },
    ]
    (e,) = decision_leaderboard(rows)
    assert e["failures"] == 3
    assert e["budget_s"] == "mixed (5-20)"
    assert e["max_s"] == pytest.approx(25.0)  # charged max(latency, budget)
    assert e["median_s"] == pytest.approx((5.0 + 20.0) / 2)  # sorted charged: 2, 5, 20, 25
    assert e["within_budget"] == pytest.approx(0.25)
    assert e["sgm_s"] == pytest.approx(math.prod(v + 1 for v in (5, 20, 2, 25)) ** 0.25 - 1)


def test_reference_text_and_unscored_cells():
    rows = [
        {
            "kind": "decision",
            "solver": "y",
            "status": "feasible",
            "latency_s": 0.1,
            "concurrency": None,
            "metrics": {"n_objectives": 1, "reference": "missing", "primal_gap": None},
        },
        {
            "kind": "decision",
            "solver": "y",
            "status": "feasible",
            "latency_s": 0.3,
            "concurrency": None,
            "metrics": {"n_objectives": 1, "reference": "exact", "primal_gap": 0.25},
        },
        {"kind": "simulation", "solver": "y", "status": "finished", "metrics": {}},
    ]
    (e,) = decision_leaderboard(rows)
    assert e["cells"] == 2 and e["ref_missing"] == 0.5 and e["primal_gap"] == 0.25
    assert e["latency_from"] == "concurrent (?)"  # concurrency unknown: not counted as alone
    assert e["budget_s"] == 15.0  # no budget recorded: the default deadline


# -- simulation leaderboard and Kiviat --------------------------------------------------------


def test_simulation_leaderboard_hand_values(all_rows):
    board = simulation_leaderboard(all_rows)
    assert [(e["scenario"], e["solver"]) for e in board] == [
        ("S1", "ga"),
        ("S1", "weighted"),
        ("S1", "naive"),
        ("S5", "constrained-ssd"),
        ("S5", "naive"),
    ]
    ga = board[0]
    assert (ga["family"], ga["runs"], ga["failures"]) == ("bbsched", 3, 1)
    assert ga["node_usage"] == pytest.approx(0.85)  # the failed run is left out
    assert ga["bb_usage"] == pytest.approx(0.65)
    assert ga["wait_mean_s"] == pytest.approx(500.0)
    assert ga["slowdown_mean"] == pytest.approx(4.5)
    assert ga["bounded_slowdown_mean"] == pytest.approx(3.5)
    assert ga["decisions"] == 220
    assert ga["decision_latency_median_s"] == pytest.approx(0.02)
    assert ga["ssd_usage"] is None
    naive = board[2]
    assert naive["decision_latency_median_s"] is None and naive["decisions"] == 0

    # Kiviat S1, by hand, as ratios to the baseline `naive` (node .6, BB .5, wait 1000, slowdown
    # 10), above 1 better, fixed scale 0..2: ga (means of its completed runs) node .85, BB .65,
    # wait 500, slowdown 4.5 (2.22 is drawn at the rim, 2).
    s1 = [e for e in board if e["scenario"] == "S1"]
    labels, values = kiviat_axes(s1)
    assert labels == ["node usage", "BB usage", "avg wait", "avg slowdown"]
    assert kiviat_baseline(s1) == "naive"
    assert values["naive"] == pytest.approx([1.0, 1.0, 1.0, 1.0])
    assert values["ga"] == pytest.approx([0.85 / 0.6, 0.65 / 0.5, 2.0, KIVIAT_MAX])
    assert values["weighted"] == pytest.approx([0.7 / 0.6, 0.8 / 0.5, 1000 / 800, 10 / 8])
    assert ga["vs_baseline"] == pytest.approx((0.85 / 0.6 + 0.65 / 0.5 + 2.0 + 2.0) / 4)
    # a 1 % difference stays a 1 % difference (min-max normalisation made it fill the axis)
    close = [
        dict(s1[0], solver="a"),
        dict(s1[0], solver="naive", node_usage=s1[0]["node_usage"] * 1.01),
    ]
    _labels, near = kiviat_axes(close)
    assert near["a"][0] == pytest.approx(1 / 1.01)

    s5 = [e for e in board if e["scenario"] == "S5"]
    labels, values = kiviat_axes(s5)
    assert labels[-2:] == ["SSD usage", "SSD waste"]
    # No waste against the baseline's 0.2 is drawn at the rim.
    assert values["constrained-ssd"] == pytest.approx(
        [0.7 / 0.6, 0.5 / 0.4, 500 / 400, 6 / 5, 0.7 / 0.5, KIVIAT_MAX]
    )
    assert values["naive"] == pytest.approx([1.0] * 6)


def test_kiviat_single_policy_is_its_own_baseline():
    entries = [
        {
            "solver": "a",
            "node_usage": 0.5,
            "bb_usage": None,
            "wait_mean_s": 3.0,
            "slowdown_mean": 2.0,
        }
    ]
    labels, values = kiviat_axes(entries)
    assert labels == ["node usage", "avg wait", "avg slowdown"]
    assert values == {"a": [1.0, 1.0, 1.0]}


# -- tables and Markdown ----------------------------------------------------------------------


def test_format_table_formats(all_rows):
    board = decision_leaderboard(all_rows)
    simple = format_table(board)
    github = format_table(board, "github")
    for header in ("solver", "failures", "primal_gap", "igd_plus", "latency_from", "sgm_s"):
        assert header in simple and header in github
    assert github.splitlines()[1].startswith("|")
    assert "concurrent (3)" in simple
    assert format_table(board, "html").startswith("<table>")
    assert format_table([]) == "(no rows)"
    with pytest.raises(ReportError, match="fmt"):
        format_table(board, "latex")


def test_markdown_report(all_rows):
    text = markdown_report(all_rows, title="Nightly")
    assert text.startswith("# Nightly")
    for heading in (
        "## Decision leaderboard",
        "### By family",
        "## Simulation leaderboard",
        "## Metric definitions",
    ):
        assert heading in text
    assert "| solver" in text and "| family" in text and "vs_baseline" in text
    assert "bounded_slowdown_mean" in text and "Feitelson" in text  # simcore's definition
    only_sim = markdown_report([r for r in all_rows if r["kind"] == "simulation"])
    assert "_No decision cells._" in only_sim


# -- HTML -------------------------------------------------------------------------------------


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.imgs: list[dict[str, str]] = []
        self.notes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "img":
            self.imgs.append(a)
        if "data-note" in a:
            self.notes.append(a["data-note"])


def parse(path: Path) -> _Elements:
    p = _Elements()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def check_pngs(imgs: list[dict[str, str]]) -> None:
    for img in imgs:
        assert img["alt"].strip(), img["id"]
        prefix = "data:image/png;base64,"
        assert img["src"].startswith(prefix)
        png = base64.b64decode(img["src"][len(prefix) :], validate=True)
        assert png.startswith(PNG_SIGNATURE), img["id"]
        width = int.from_bytes(png[16:20], "big")  # IHDR
        assert width > 100


def test_html_report_full(all_rows, tmp_path):
    out = html_report(all_rows, tmp_path / "out" / "report.html", title="Full <report>")
    assert out == tmp_path / "out" / "report.html" and out.is_file()
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]  # no temp file left
    page = parse(out)
    ids = [img["id"] for img in page.imgs]
    kinds = [img["data-plot"] for img in page.imgs]
    assert ids[:2] == ["plot-quality-latency", "plot-latency-budget"]
    assert kinds.count("pareto") == 2  # p1 and p2; p3 has no exact front
    assert sorted(i for i in ids if i.startswith("plot-pareto-")) == [
        "plot-pareto-bi-p1",
        "plot-pareto-bi-p2",
    ]
    assert sorted(i for i in ids if i.startswith("plot-kiviat-")) == [
        "plot-kiviat-bbsched-s1",
        "plot-kiviat-bbsched-s5",
    ]
    assert len(set(ids)) == len(ids) == 6
    assert page.notes == ["schedules"]  # no run folders: the schedule pictures say why not
    check_pngs(page.imgs)
    text = out.read_text(encoding="utf-8")
    assert "Full &lt;report&gt;" in text
    assert text.count("<table>") == 4  # decision, decision by family, simulation, failed cells
    # The leaderboards first show the terminal's few columns, the store's full table folded.
    for table_id, first in (
        ("table-decision", "<th"),
        ("table-decision-family", "family"),
        ("table-simulation", "scenario"),
    ):
        compact = re.search(rf'<table id="{table_id}" class="compact">(.*?)</table>', text)
        assert compact is not None, table_id
        assert first in compact.group(1)
        assert compact.group(1).count("<th") <= 11  # not the full table's 20-odd columns
    assert text.count("<details><summary>All ") == 3
    assert "<h3>Failed cells</h3>" in text
    assert 'href="http' not in text and 'src="http' not in text  # self-contained


def test_html_report_decision_only_notes_kiviat(tmp_path):
    rows = build_store(tmp_path / "s.sqlite", decision_rows())
    out = html_report(rows, tmp_path / "r.html", title="decisions")
    page = parse(out)
    kinds = [img["data-plot"] for img in page.imgs]
    assert "kiviat" not in kinds and kinds.count("pareto") == 2
    assert set(page.notes) == {"kiviat", "table-simulation", "schedules"}
    assert "No simulation cells: no Kiviat charts." in out.read_text(encoding="utf-8")
    check_pngs(page.imgs)


def test_html_report_without_rows_has_only_notes(tmp_path):
    out = html_report([], tmp_path / "empty.html", title="empty")
    page = parse(out)
    assert page.imgs == []
    assert set(page.notes) == {
        "table-decision",
        "table-simulation",
        "table-failed",
        "quality-latency",
        "latency-budget",
        "pareto",
        "kiviat",
        "schedules",
    }


# -- a real browser ---------------------------------------------------------------------------


#: The browsers the check can drive, in the order the Makefile's `browser` target looks for them.
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
NO_BROWSER = (
    "no chromium on PATH (`make test` installs Debian's only as root with apt-get): "
    "the HTML report's browser check is skipped"
)


def _browser() -> str:
    """The browser to drive; skips the test (fails it with SCHEDBENCH_REQUIRE_BROWSER=1,
    which `make test` sets when it found or installed one) when there is none."""
    found = next(filter(None, map(shutil.which, BROWSERS)), None)
    if found is None:
        if os.environ.get("SCHEDBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"SCHEDBENCH_REQUIRE_BROWSER=1 but {NO_BROWSER.split(' (')[0]}")
        pytest.skip(NO_BROWSER)
    return found


def test_html_report_loads_in_headless_browser(all_rows, tmp_path):
    """The report passes an accessibility and layout check in a real browser — every
    plot decodes, every image has alt text, every table has headers, nothing scrolls
    horizontally at 1280 px — and a screenshot is written for a person to look at."""
    browser = _browser()
    out = html_report(all_rows, tmp_path / "report.html", title="browser")
    expected = [img["id"] for img in parse(out).imgs]
    common = [
        browser,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,1000",
        "--virtual-time-budget=5000",
    ]
    done = subprocess.run(
        [*common, "--dump-dom", out.as_uri()],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert 'data-report-ready="1"' in dom, "the page's load event never fired"
    for plot_id in expected:
        tag = re.search(rf'<img[^>]*\bid="{re.escape(plot_id)}"[^>]*>', dom)
        assert tag is not None, f"{plot_id} missing from the rendered DOM"
        assert 'data-loaded="1"' in tag.group(0), f"{plot_id} did not decode"
        width = re.search(r'data-natural-width="(\d+)"', tag.group(0))
        assert width is not None and int(width.group(1)) > 0
    body = re.search(r"<body[^>]*>", dom).group(0)
    attr = {k: int(v) for k, v in re.findall(r'data-([a-z-]+)="(\d+)"', body)}
    assert attr["images-without-alt"] == 0
    assert attr["tables-without-headers"] == 0
    assert attr["scroll-width"] <= attr["client-width"] <= 1280, attr  # no horizontal scroll
    shot = tmp_path / "report.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", out.as_uri()],
        capture_output=True,
        timeout=90,
        check=False,
    )
    assert shot.is_file() and shot.read_bytes().startswith(PNG_SIGNATURE)


MAKE = shutil.which("make")
ROOT = Path(__file__).resolve().parents[2]


def _make_browser(tmp_path: Path, uid: int, apt: bool, **env: str) -> tuple[int, str, str]:
    """`make browser` on a PATH holding no browser, only a fake `id -u` (``uid``) and, with
    ``apt``, a fake apt-get that logs its arguments; returns (exit code, output, apt log)."""
    fake = Path(tempfile.mkdtemp(dir=tmp_path))
    log = fake / "apt.log"
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    if apt:
        (fake / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    for tool in fake.glob("*"):
        tool.chmod(0o755)
    done = subprocess.run(
        [MAKE, "-s", "--no-print-directory", "-C", str(ROOT), "browser"],
        env={"PATH": str(fake), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr, log.read_text() if log.exists() else ""


@pytest.mark.skipif(MAKE is None, reason="needs make")
def test_make_installs_a_browser_only_as_root_with_apt_get(tmp_path):
    """`make test` stopped before any test for a non-root user: `apt-get install` cannot lock
    its lists. Now only root with apt-get installs; anyone else gets one line and the skip."""
    code, out, apt = _make_browser(tmp_path, 1000, apt=True)
    assert code == 0 and apt == ""
    assert out.strip().splitlines() == [out.strip()] and out.startswith("warning: no chromium")
    assert "browser check is skipped" in out
    code, out, apt = _make_browser(tmp_path, 0, apt=False)
    assert code == 0 and out.startswith("warning: no chromium")
    code, out, apt = _make_browser(tmp_path, 0, apt=True)
    assert code == 0 and "installing Debian's chromium" in out
    assert apt.splitlines() == ["update -qq", "install -y -qq chromium"]
    code, out, apt = _make_browser(tmp_path, 1000, apt=True, SCHEDBENCH_REQUIRE_BROWSER="1")
    assert code != 0 and "SCHEDBENCH_REQUIRE_BROWSER=1" in out and apt == ""


def test_without_a_browser_the_check_skips_with_the_makefiles_reason(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("SCHEDBENCH_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="browser check is skipped"):
        _browser()
    monkeypatch.setenv("SCHEDBENCH_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="SCHEDBENCH_REQUIRE_BROWSER=1 but no chromium"):
        _browser()


def test_kiviat_baseline_prefers_naive_then_cerberus_fcfs() -> None:
    rows = [{"solver": s} for s in ("window:dp", "cerberus-maxt:dp", "cerberus-fcfs", "naive")]
    assert kiviat_baseline(rows) == "naive"
    assert kiviat_baseline(rows[:3]) == "cerberus-fcfs"
    assert kiviat_baseline(rows[:2]) == "cerberus-maxt:dp"  # else the first by name
    assert kiviat_baseline([]) == ""
