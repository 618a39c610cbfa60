"""The advance-reservation paper's findings (``papers/advance-reservation-with-deadlines.txt``,
Section 6.2 and the abstract), each judged on 95 % confidence intervals over seeds
(``_intervals.py``) — used by ``ar.py`` for the agreement table and by its ``--sweep``.

Every finding is a set of *claims*, each about one per-seed quantity: the paired difference of
two policies on the same streams, the change of one policy between two grid points (the same
seed numbers), a relative slowdown gap, a Kendall tau. A claim says the quantity lies in a range
(above 0, within a margin of 0, ...); its verdict is ``yes`` when the 95 % interval lies inside
the range, ``no`` when it lies outside, ``inconclusive`` when it contains an end
(``interval_verdict``). A finding is ``no`` when one of its claims is refuted, ``yes`` when all
hold, ``inconclusive`` otherwise. So a longer run can turn ``inconclusive`` into a verdict but
can give the opposite one only where the two runs' intervals are disjoint.

The margins are the paper's words made numbers (the paper prints none):

* "almost identical" / "at the top" acceptance: within :data:`ACC_MARGIN` (0.01);
* "similar" slowdown: within :data:`SLOW_MARGIN` (2 %) of each other;
* "increase / decrease": every step of the grid in that direction or flat within
  :data:`STEP_TOL` (0.5 % of the policy's level), and the last point beyond the first;
* "outperform": the paired difference above 0; "do not outperform": not above by the margin.

``Samples`` holds the per-seed values: ``(experiment, x, policy) -> {metric: [value per
seed]}``, the seeds in the same order at every point (x: the UMed, the af, or the
(artime, deadline) pair).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schedbench.bench.reproduce._intervals import (
    INCONCLUSIVE,
    NO,
    YES,
    Estimate,
    combine,
    estimate,
    interval_verdict,
    negate,
)
from schedbench.simcore.reservations.fit import PAPER_POLICIES, get_fit_policy


def axis_position(experiment: str, setting: Any) -> Any:
    """A setting's position on its experiment's axis (flexibility: the pair (AR time,
    deadline); utilisation: the median; otherwise the arrival factor)."""
    if experiment == "flex":
        return (setting.artime, setting.deadline)
    return setting.umed if experiment == "umed" else setting.af


Samples = dict[tuple[str, Any, str], dict[str, list[float]]]

ACC_MARGIN = 0.01
SLOW_MARGIN = 0.02
STEP_TOL = 0.005
#: Equal values satisfy "FF has the smallest slowdown" (a tie is not a smaller one).
TIE = 1e-12
#: "alike" rankings: Kendall tau above this.
TAU_ALIKE = 0.6

LABELS = {name: get_fit_policy(name).label for name in PAPER_POLICIES}

#: Why our numbers may differ from the paper's, whatever the finding (ar.md elaborates).
CAUSES = (
    "LANL-CM5 arrival parameters unpublished (model defaults used, offered load in details.csv); "
    "runtime mapping unpublished (ours: ceil)"
)
UNDECIDED = "the 95 % interval contains the claim's bound: more seeds or longer streams decide it"


def label(p: str) -> str:
    return LABELS.get(p, p)


def xs(x: Any) -> str:
    return "{{{:g},{:g}}}".format(*x) if isinstance(x, tuple) else f"{x:g}"


@dataclass(frozen=True, slots=True)
class Claim:
    """One quantity with its interval and the range the paper's finding puts it in."""

    what: str
    est: Estimate | None
    lo: float = -math.inf
    hi: float = math.inf
    #: the claim is that the value lies *outside* (lo, hi)
    outside: bool = False

    @property
    def verdict(self) -> str:
        v = interval_verdict(self.est, self.lo, self.hi)
        return negate(v) if self.outside else v

    def slack(self) -> float:
        """How far the interval is from the nearest end of the range (negative: across it)."""
        e = self.est
        if e is None:
            return -math.inf
        inner = min(e.low - self.lo, self.hi - e.high)
        outer = max(self.lo - e.high, e.low - self.hi)
        return outer if self.outside else inner

    def text(self) -> str:
        e = self.est
        if e is None:
            return f"{self.what}: not measured"
        if self.outside:
            rng = f"outside ({self.lo:+.3g}, {self.hi:+.3g})"
        elif math.isinf(self.hi):
            rng = f"> {self.lo:+.3g}"
        elif math.isinf(self.lo):
            rng = f"< {self.hi:+.3g}"
        else:
            rng = f"in ({self.lo:+.3g}, {self.hi:+.3g})"
        return f"{self.what} {e.mean:+.4f} [{e.low:+.4f}, {e.high:+.4f}] (claim {rng})"


def deciding(claims: Sequence[Claim]) -> Claim | None:
    """The claim that decides a finding: a refuted one, else an undecided one, else the one
    closest to its bound."""
    if not claims:
        return None
    for wanted in (NO, INCONCLUSIVE):
        hits = [c for c in claims if c.verdict == wanted]
        if hits:
            return max(hits, key=Claim.slack) if wanted == NO else min(hits, key=Claim.slack)
    return min(claims, key=Claim.slack)


class Data:
    """Per-seed values of a run, with the paired quantities the findings need."""

    def __init__(self, samples: Samples) -> None:
        self.samples = samples
        self.exps: dict[str, list[Any]] = {}
        for exp, x, _p in samples:
            grid = self.exps.setdefault(exp, [])
            if x not in grid:
                grid.append(x)
        for grid in self.exps.values():
            grid.sort()

    def v(self, exp: str, x: Any, p: str, m: str) -> list[float]:
        return self.samples[(exp, x, p)][m]

    def mean(self, exp: str, x: Any, p: str, m: str) -> float:
        vals = [y for y in self.v(exp, x, p, m) if not math.isnan(y)]
        return sum(vals) / len(vals) if vals else math.nan

    def paired(
        self, a: tuple[str, Any, str], b: tuple[str, Any, str], m: str, rel: bool = False
    ) -> Estimate | None:
        """Per seed, a − b (``rel``: relative to their mean), as an estimate over seeds."""
        va, vb = self.samples[a][m], self.samples[b][m]
        d = []
        for y, z in zip(va, vb, strict=True):
            if math.isnan(y) or math.isnan(z):
                continue
            d.append((y - z) / ((y + z) / 2) if rel else y - z)
        return estimate(d)


def finding(
    name: str, paper: str, ours: str, claims: Sequence[Claim], reason: str = "", **kw: Any
) -> dict[str, Any]:
    """One row of the agreement table (its verdict from its claims unless ``agree`` is given)."""
    agree = kw.get("agree") or combine(c.verdict for c in claims)
    d = deciding(claims)
    why = ""
    if agree == NO:
        why = reason or CAUSES
    elif agree == INCONCLUSIVE:
        why = UNDECIDED + (f"; {reason}" if reason else "")
    return {
        "finding": name,
        "paper": paper,
        "ours": ours,
        "interval": d.text() if d else "",
        "agree": agree,
        "reason": why,
        "decided": d,
    }


def trend_claims(data: Data, exp: str, p: str, m: str, rising: bool) -> list[Claim]:
    """Every step of the grid in the stated direction or flat within the tolerance, and the last
    point beyond the first."""
    grid = data.exps[exp]
    level = abs(sum(data.mean(exp, x, p, m) for x in grid) / len(grid))
    tol = STEP_TOL * level
    out = []
    for a, b in itertools.pairwise(grid):
        e = data.paired((exp, b, p), (exp, a, p), m)
        what = f"{label(p)} {m} {xs(a)}->{xs(b)}"
        out.append(Claim(what, e, lo=-tol) if rising else Claim(what, e, hi=tol))
    e = data.paired((exp, grid[-1], p), (exp, grid[0], p), m)
    what = f"{label(p)} {m} {xs(grid[0])}->{xs(grid[-1])}"
    out.append(Claim(what, e, lo=0.0) if rising else Claim(what, e, hi=0.0))
    return out


def _span(data: Data, exp: str, ps: Sequence[str], m: str) -> str:
    grid = data.exps[exp]
    a, b = grid[0], grid[-1]
    return f"{xs(a)} -> {xs(b)}: " + ", ".join(
        f"{label(p)} {data.mean(exp, a, p, m):.3f}->{data.mean(exp, b, p, m):.3f}" for p in ps
    )


def trend_finding(
    data: Data, exp: str, ps: Sequence[str], m: str, rising: bool, name: str, paper: str
) -> dict[str, Any]:
    claims = [c for p in ps for c in trend_claims(data, exp, p, m, rising)]
    return finding(name, paper, _span(data, exp, ps, m), claims)


def count_finding(
    name: str, paper: str, ours: str, verdicts: Sequence[str], claims: Sequence[Claim], need: float
) -> dict[str, Any]:
    """A finding that holds when at least ``need`` (a share) of the items hold: ``yes`` when the
    items judged ``yes`` reach it, ``no`` when even the undecided ones cannot."""
    n = len(verdicts)
    yes = sum(v == YES for v in verdicts)
    maybe = yes + sum(v == INCONCLUSIVE for v in verdicts)
    agree = YES if yes >= need * n else NO if maybe < need * n else INCONCLUSIVE
    return finding(name, paper, ours, claims, agree=agree)


# ---------------------------------------------------------------------------------- findings
def findings(
    samples: Samples,
    policies: Sequence[str],
    pedu_reason: str = "",
) -> list[dict[str, Any]]:
    """The paper's findings in its order, each judged on our intervals (module docstring).
    ``pedu_reason``: why PEDu_B and PEDu_W may behave unlike the paper's (quoted where they
    decide a finding)."""
    data = Data(samples)
    have = set(policies)
    paper7 = [p for p in PAPER_POLICIES if p in have]
    out: list[dict[str, Any]] = []
    exps = set(data.exps)
    if "umed" in exps:
        out += _umed_acceptance(data, have, paper7, pedu_reason)
        out += _umed_slowdown(data, have, paper7)
    for exp, fig in (("umed", "Fig. 3"), ("af", "Fig. 5"), ("flex", "Fig. 7")):
        if exp in exps and "ff" in have:
            out.append(_ff_lowest(data, exp, fig, paper7))
    if "af" in exps:
        out.append(
            trend_finding(
                data,
                "af",
                paper7,
                "acceptance",
                False,
                "acceptance falls as af grows",
                "Fig. 4: acceptance of all strategies degrades",
            )
        )
        out.append(
            trend_finding(
                data,
                "af",
                paper7,
                "slowdown",
                True,
                "slowdown grows as af grows",
                "Fig. 5: slowdowns of all strategies degrade (grow)",
            )
        )
    if {"umed", "af"} <= exps and len(paper7) >= 3:
        out.append(_ranking_alike(data, paper7))
    if "flex" in exps:
        out += _flex_findings(data, have, paper7, pedu_reason)
    if "pe-w" in have and len(paper7) >= 2:
        out.append(_pe_w_overall(data, paper7))
    return out


def _gap(
    data: Data, exp: str, x: Any, a: str, b: str, m: str, rel: bool = False
) -> Estimate | None:
    return data.paired((exp, x, a), (exp, x, b), m, rel)


def _umed_acceptance(
    data: Data, have: set[str], paper7: list[str], pedu: str
) -> list[dict[str, Any]]:
    """Figure 2: acceptance against UMed (falls; PE_W and Du_B on top; three pairs; FF beaten)."""
    grid = data.exps["umed"]
    out = [
        trend_finding(
            data,
            "umed",
            paper7,
            "acceptance",
            False,
            "acceptance falls as UMed grows",
            "Fig. 2: all strategies decrease gradually",
        )
    ]
    if {"pe-w", "du-b"} <= have:
        claims = [
            Claim(
                f"UMed {xs(x)}: {label(p)} - {label(q)}",
                _gap(data, "umed", x, p, q, "acceptance"),
                lo=-ACC_MARGIN,
            )
            for x in grid
            for p in ("pe-w", "du-b")
            for q in paper7
            if q not in ("pe-w", "du-b")
        ]
        near = sorted(
            {
                c.what.split(" - ")[1]
                for c in claims
                if c.est is not None and c.est.high > -ACC_MARGIN
            }
        )
        out.append(
            finding(
                "PE_W and Du_B accept the most at every UMed",
                "Fig. 2: PE_W and Du_B clearly the best for all UMed values",
                "no other policy above them by more than 0.01"
                + (f"; within 0.01 of them somewhere: {', '.join(near)}" if near else ""),
                claims,
                pedu if "PEDu_W" in near else "",
            )
        )
    pairs = [("pe-w", "du-b"), ("pedu-b", "pedu-w"), ("pe-b", "du-w")]
    if all(a in have and b in have for a, b in pairs):
        claims = [
            Claim(
                f"UMed {xs(x)}: {label(a)} - {label(b)}",
                _gap(data, "umed", x, a, b, "acceptance"),
                lo=-ACC_MARGIN,
                hi=ACC_MARGIN,
            )
            for a, b in pairs
            for x in grid
        ]
        gaps = ", ".join(
            f"{label(a)}/{label(b)} "
            f"{max(abs(data.mean('umed', x, a, 'acceptance') - data.mean('umed', x, b, 'acceptance')) for x in grid):.3f}"
            for a, b in pairs
        )
        bad_pedu = any(c.verdict != YES for c in claims if "PEDu" in c.what)
        out.append(
            finding(
                "three pairs with almost identical acceptance",
                "Fig. 2: PE_W~Du_B, PEDu_B~PEDu_W, PE_B~Du_W",
                "largest gap within a pair: " + gaps + " (identical: within 0.01)",
                claims,
                pedu if bad_pedu else "",
            )
        )
    better = [p for p in ("pe-w", "du-b", "pedu-b", "pedu-w") if p in have]
    worse = [p for p in ("pe-b", "du-w") if p in have]
    if "ff" in have and better:
        claims = [
            Claim(
                f"UMed {xs(x)}: {label(p)} - FF",
                _gap(data, "umed", x, p, "ff", "acceptance"),
                lo=0.0,
            )
            for p in better
            for x in grid
        ] + [
            Claim(
                f"UMed {xs(x)}: {label(p)} - FF",
                _gap(data, "umed", x, p, "ff", "acceptance"),
                hi=ACC_MARGIN,
            )
            for p in worse
            for x in grid
        ]
        pedu_bad = any(c.verdict != YES for c in claims if c.what.endswith("PEDu_B - FF"))
        out.append(
            finding(
                "all but PE_B and Du_W outperform FF",
                "Fig. 2: except PE_B and Du_W, all other four strategies outperform FF",
                "mean gap to FF over the UMed grid: "
                + ", ".join(
                    f"{label(p)} {sum(data.mean('umed', x, p, 'acceptance') - data.mean('umed', x, 'ff', 'acceptance') for x in grid) / len(grid):+.3f}"
                    for p in better + worse
                )
                + " (outperform: above 0; the two exceptions: not above by 0.01)",
                claims,
                pedu if pedu_bad else "",
            )
        )
    return out


def _umed_slowdown(data: Data, have: set[str], paper7: list[str]) -> list[dict[str, Any]]:
    """Figure 3: slowdown against UMed (grows; the pairs again; PEDu_B and PEDu_W apart)."""
    grid = data.exps["umed"]
    out = [
        trend_finding(
            data,
            "umed",
            paper7,
            "slowdown",
            True,
            "slowdown grows with UMed",
            "Fig. 3: slowdowns of all strategies increase in general",
        )
    ]
    pairs = [("pe-w", "du-b"), ("pe-b", "du-w")]
    if all(a in have and b in have for a, b in pairs):
        claims = [
            Claim(
                f"UMed {xs(x)}: ({label(a)} - {label(b)}) / mean",
                _gap(data, "umed", x, a, b, "slowdown", rel=True),
                lo=-SLOW_MARGIN,
                hi=SLOW_MARGIN,
            )
            for a, b in pairs
            for x in grid
        ]
        out.append(
            finding(
                "PE_W~Du_B and PE_B~Du_W in slowdown too",
                "Fig. 3: PE_W and Du_B, and PE_B and Du_W, similar again as in Fig. 2",
                "largest relative gap within a pair: "
                + ", ".join(
                    f"{label(a)}/{label(b)} {max(abs(c.est.mean) for c in claims if c.est and label(a) in c.what):.3f}"
                    for a, b in pairs
                )
                + " (similar: within 2 %)",
                claims,
            )
        )
    if {"pedu-b", "pedu-w"} <= have:
        claims = [
            Claim(
                f"UMed {xs(x)}: (PEDu_W - PEDu_B) / mean",
                _gap(data, "umed", x, "pedu-w", "pedu-b", "slowdown", rel=True),
                lo=-SLOW_MARGIN,
                hi=SLOW_MARGIN,
                outside=True,
            )
            for x in grid
        ]
        out.append(
            finding(
                "PEDu_B and PEDu_W differ in slowdown",
                "Fig. 3: PEDu_B and PEDu_W surprisingly different",
                "PEDu_W - PEDu_B: "
                + ", ".join(
                    f"{xs(x)} {data.mean('umed', x, 'pedu-w', 'slowdown') - data.mean('umed', x, 'pedu-b', 'slowdown'):+.3f}"
                    for x in grid
                )
                + " (different: apart by more than 2 %)",
                claims,
            )
        )
    return out


def _ff_lowest(data: Data, exp: str, fig: str, paper7: list[str]) -> dict[str, Any]:
    """Figures 3, 5 and 7: FF always has the smallest slowdown."""
    grid = data.exps[exp]
    claims = [
        Claim(f"{xs(x)}: {label(q)} - FF", _gap(data, exp, x, q, "ff", "slowdown"), lo=-TIE)
        for x in grid
        for q in paper7
        if q != "ff"
    ]
    lowest = {x: min(paper7, key=lambda p: data.mean(exp, x, p, "slowdown")) for x in grid}
    return finding(
        f"FF has the lowest slowdown ({exp})",
        f"{fig}: FF always the smallest slowdown",
        "lowest mean: " + ", ".join(f"{xs(x)} {label(p)}" for x, p in lowest.items()),
        claims,
    )


def _tau_per_seed(data: Data, paper7: list[str], m: str) -> list[float]:
    from scipy.stats import kendalltau  # slow to import: only here

    n = len(data.v("umed", data.exps["umed"][0], paper7[0], m))
    out = []
    for k in range(n):
        means = {
            exp: [
                sum(data.v(exp, x, p, m)[k] for x in data.exps[exp]) / len(data.exps[exp])
                for p in paper7
            ]
            for exp in ("umed", "af")
        }
        tau = float(kendalltau(means["umed"], means["af"]).statistic)
        if not math.isnan(tau):
            out.append(tau)
    return out


def _ranking_alike(data: Data, paper7: list[str]) -> dict[str, Any]:
    """Figures 2-5: the policies rank alike in the UMed and the af experiment: per seed, the
    Kendall tau between the policies' means over the UMed grid and over the af grid."""
    claims = [
        Claim(f"{m} Kendall tau", estimate(_tau_per_seed(data, paper7, m)), lo=TAU_ALIKE)
        for m in ("acceptance", "slowdown")
    ]
    return finding(
        "the policies rank alike under UMed and af",
        "Figs. 2-5: the relative performance of the algorithms in both experiments is similar",
        "Kendall tau (per seed) between the policies' mean over the UMed grid and over the af "
        "grid: "
        + ", ".join(f"{c.what.split()[0]} {c.est.mean:+.2f}" for c in claims if c.est)
        + f" (alike: tau > {TAU_ALIKE})",
        claims,
    )


def _flex_findings(
    data: Data, have: set[str], paper7: list[str], pedu: str
) -> list[dict[str, Any]]:
    """Figures 6 and 7: acceptance and slowdown against the flexibility {artime, deadline}."""
    grid = data.exps["flex"]
    out: list[dict[str, Any]] = []
    rising = [p for p in ("pe-w", "du-b", "pedu-b") if p in have]
    if rising:
        claims = [c for p in rising for c in trend_claims(data, "flex", p, "acceptance", True)]
        bad = any(c.verdict != YES for c in claims if c.what.startswith("PEDu_B"))
        out.append(
            finding(
                "PE_W, Du_B, PEDu_B accept more as flexibility grows",
                "Fig. 6: their acceptance increases almost linearly from {1,1} to {5,5}",
                _span(data, "flex", rising, "acceptance"),
                claims,
                pedu if bad else "",
            )
        )
    unstable = [p for p in ("ff", "pe-b", "du-w", "pedu-w") if p in have]
    if unstable and len(grid) >= 3:
        per = {p: trend_claims(data, "flex", p, "acceptance", True) for p in unstable}
        verdicts = [negate(combine(c.verdict for c in cs)) for cs in per.values()]
        out.append(
            count_finding(
                "the other four rise unsteadily with flexibility",
                "Fig. 6: the improvements of FF, PE_B, Du_W, PEDu_W are not stable, "
                "especially at {4,4}",
                _span(data, "flex", unstable, "acceptance")
                + "; unsteady (a step clearly falling): "
                + ", ".join(f"{label(p)} {v}" for p, v in zip(per, verdicts, strict=True))
                + " (holds for at least half of them)",
                verdicts,
                [c for cs in per.values() for c in cs],
                0.5,
            )
        )
    if "pe-w" in have and len(paper7) >= 2:
        out.append(_pe_w_flex(data, paper7))
    if {"pe-w", "du-b"} <= have and len(grid) >= 2:
        lead = {x: _gap(data, "flex", x, "pe-w", "du-b", "acceptance") for x in grid}
        growth = estimate(
            [
                (a - b) - (c - d)
                for a, b, c, d in zip(
                    data.v("flex", grid[-1], "pe-w", "acceptance"),
                    data.v("flex", grid[-1], "du-b", "acceptance"),
                    data.v("flex", grid[0], "pe-w", "acceptance"),
                    data.v("flex", grid[0], "du-b", "acceptance"),
                    strict=True,
                )
            ]
        )
        claims = [
            Claim(f"PE_W - Du_B at {xs(grid[-1])}", lead[grid[-1]], lo=0.0),
            Claim(f"lead growth {xs(grid[0])}->{xs(grid[-1])}", growth, lo=0.0),
        ]
        out.append(
            finding(
                "PE_W's lead over Du_B grows with flexibility",
                "Fig. 6: PE_W better than Du_B as flexibility increases",
                "PE_W - Du_B: " + ", ".join(f"{xs(x)} {e.mean:+.3f}" for x, e in lead.items() if e),
                claims,
            )
        )
    out.append(
        trend_finding(
            data,
            "flex",
            paper7,
            "slowdown",
            True,
            "slowdown grows with flexibility",
            "Fig. 7: slowdowns of all strategies increase",
        )
    )
    return out


def _pe_w_flex(data: Data, paper7: list[str]) -> dict[str, Any]:
    """Figure 6: PE_W at the top at every flexibility and alone at the top at half of them."""
    grid = data.exps["flex"]
    others = [q for q in paper7 if q != "pe-w"]
    top = [
        Claim(
            f"{xs(x)}: PE_W - {label(q)}",
            _gap(data, "flex", x, "pe-w", q, "acceptance"),
            lo=-ACC_MARGIN,
        )
        for x in grid
        for q in others
    ]
    alone_claims = {
        x: [
            Claim(
                f"{xs(x)}: PE_W - {label(q)}",
                _gap(data, "flex", x, "pe-w", q, "acceptance"),
                lo=0.0,
            )
            for q in others
        ]
        for x in grid
    }
    alone = [combine(c.verdict for c in cs) for cs in alone_claims.values()]
    row = count_finding(
        "PE_W clearly accepts the most at every flexibility",
        "Fig. 6: PE_W the best again, defeats the other strategies easily",
        "PE_W above every other policy: "
        + ", ".join(f"{xs(x)} {v}" for x, v in zip(grid, alone, strict=True))
        + " (holds: within 0.01 of the top everywhere, above all others at half the points)",
        alone,
        [c for cs in alone_claims.values() for c in cs],
        0.5,
    )
    agree = combine([combine(c.verdict for c in top), row["agree"]])
    if agree != row["agree"]:
        row = finding(row["finding"], row["paper"], row["ours"], top, agree=agree)
    if agree == NO:
        row["reason"] = "PE_W is not above Du_B and PEDu_W at most points; " + CAUSES
    return row


def _pe_w_overall(data: Data, paper7: list[str]) -> dict[str, Any]:
    """The abstract: PE_W has the highest acceptance overall: within the margin of the top at
    every point of every experiment, and above every other policy on the mean over all points."""
    points = [(exp, x) for exp, grid in data.exps.items() for x in grid]
    others = [q for q in paper7 if q != "pe-w"]
    claims = [
        Claim(
            f"{exp} {xs(x)}: PE_W - {label(q)}",
            _gap(data, exp, x, "pe-w", q, "acceptance"),
            lo=-ACC_MARGIN,
        )
        for exp, x in points
        for q in others
    ]

    def grand(p: str) -> list[float]:
        cols = [data.v(exp, x, p, "acceptance") for exp, x in points]
        return [sum(c) / len(c) for c in zip(*cols, strict=True)]

    pe_w = grand("pe-w")
    means = {p: sum(grand(p)) / len(pe_w) for p in paper7}
    claims += [
        Claim(
            f"mean over all points: PE_W - {label(q)}",
            estimate([a - b for a, b in zip(pe_w, grand(q), strict=True)]),
            lo=0.0,
        )
        for q in others
    ]
    return finding(
        "PE_W is the best algorithm overall",
        "abstract: PE_W the highest acceptance rate",
        "highest mean acceptance over all points: "
        + ", ".join(
            f"{label(p)} {v:.3f}" for p, v in sorted(means.items(), key=lambda t: -t[1])[:3]
        )
        + " (holds: within 0.01 of the top everywhere, the highest mean)",
        claims,
        "another policy is above PE_W somewhere or on the mean; " + CAUSES,
    )


def summary_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many findings agree, disagree, are inconclusive."""
    return {v: sum(r["agree"] == v for r in rows) for v in (YES, NO, INCONCLUSIVE)}
