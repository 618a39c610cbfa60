"""How far the seven policies are from the exact offline optimum at paper scale
(``schedbench reproduce ar --gap-windows N``; beyond the paper, which could not show it).

CP-SAT (``bench/analysis/ar_offline.py``) proves the offline optimum of up to about 80 requests
in seconds, not of a stream of 10^4. So the gap is measured on *windows*: ``count`` disjoint
stretches of ``size`` consecutive requests (in arrival order) of every paper-scale stream, spread
evenly over it (window k is centred at (k + ½) / count of the stream). On each window:

* every policy replays just the window's requests **from an empty machine** (the requests
  before the window are not there; so a window's acceptance is not the stream's acceptance over
  those requests, and both the policies and the optimum see the same, emptier, machine);
* the offline optimum of the same requests (every request known in advance; CP-SAT warm-started
  with the best policy's schedule, ``time_limit_s`` seconds).

A window CP-SAT does not prove within its budget is tried once more on its first half. Only
windows whose optimum CP-SAT *proves* (or whose best schedule meets its proven bound) enter the
gap (``gap_windows.csv`` lists every window,
proven or not, so the selection is visible: the hardest windows are the ones left out). The gap
of a policy on a proven window is (optimum − accepted) / size, an acceptance difference; it is
never negative (no schedule beats a proven optimum, and a policy's schedule is one — checked
here: :class:`GapError` otherwise). Per grid point and policy, ``gap.csv`` gives the mean gap over
the proven windows with its 95 % Student-t interval (``_intervals.py``; each window one sample:
disjoint stretches of independent streams).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedbench.bench.reproduce._intervals import Estimate, estimate
from schedbench.simcore.reservations.driver import serve
from schedbench.simcore.reservations.reading import PINNED, Reading
from schedbench.simcore.reservations.requests import Request


class GapError(AssertionError):
    """A policy accepted more requests of a window than its proven offline optimum."""


def window_starts(n: int, size: int, count: int) -> list[int]:
    """The first index of each of ``count`` disjoint windows of ``size`` requests in a stream of
    ``n`` (module docstring); fewer when ``count`` windows do not fit, none when one does not."""
    if size < 1 or count < 1 or n < size:
        return []
    count = min(count, n // size)
    starts = []
    for k in range(count):
        centre = (k + 0.5) * n / count
        starts.append(min(max(0, round(centre - size / 2)), n - size))
    return starts


def window_gap(
    window: Sequence[Request],
    pes: int,
    policies: Sequence[str],
    *,
    reading: Reading = PINNED,
    time_limit_s: float = 10.0,
    seed: int = 0,
) -> dict[str, Any]:
    """Every policy on ``window`` alone (from an empty machine) and the offline optimum of the
    same requests: size, optimum (CP-SAT's best), bound, proven, CP-SAT seconds, and accepted per
    policy. Raises :class:`GapError` if a policy beats a proven optimum."""
    from schedbench.bench.analysis.ar_offline import offline_bound

    runs = {p: serve(window, pes, p, reading=reading) for p in policies}
    accepted = {p: len(r.accepted) for p, r in runs.items()}
    hint: dict[int, int] = {}
    if runs:
        best_run = max(runs.values(), key=lambda r: len(r.accepted))
        hint = {o.request.id: o.start for o in best_run.accepted if o.start is not None}
    bound = offline_bound(window, pes, time_limit_s=time_limit_s, hint=hint, seed=seed)
    # a group CP-SAT left unproven may still end with its best equal to its bound
    proven = bound.proven or bound.best == bound.bound
    if proven:
        over = {p: a for p, a in accepted.items() if a > bound.best}
        if over:
            raise GapError(
                f"window of {len(window)} requests: {over} accepted, more than the proven "
                f"optimum {bound.best}"
            )
    return {
        "size": len(window),
        "optimum": bound.best,
        "bound": bound.bound,
        "proven": proven,
        "wall_s": bound.wall_s,
        "accepted": accepted,
    }


def stream_gaps(
    requests: Sequence[Request],
    pes: int,
    policies: Sequence[str],
    *,
    count: int,
    size: int,
    reading: Reading = PINNED,
    time_limit_s: float = 10.0,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """:func:`window_gap` of each window of one stream (in arrival order), with its first
    index as ``first``. A window CP-SAT does not prove is tried once more on its first half
    (``size // 2`` requests, the same budget): the row says which size was measured (``size``)
    and which was asked for (``asked``)."""
    ordered = sorted(requests)
    out = []
    for first in window_starts(len(ordered), size, count):
        n = size
        while True:
            row = window_gap(
                ordered[first : first + n],
                pes,
                policies,
                reading=reading,
                time_limit_s=time_limit_s,
                seed=seed,
            )
            if row["proven"] or n < size or n // 2 < 2:
                break
            n //= 2
        out.append({"first": first, "asked": size, **row})
    return out


def gap_estimate(windows: Sequence[Mapping[str, Any]], policy: str) -> Estimate | None:
    """The mean gap (optimum − accepted) / size of ``policy`` over the proven ``windows``, with
    its 95 % interval (None when none is proven)."""
    return estimate(
        (w["optimum"] - w["accepted"][policy]) / w["size"] for w in windows if w["proven"]
    )


WINDOW_COLUMNS = (
    "umed",
    "af",
    "artime",
    "deadline",
    "seed",
    "first",
    "asked",
    "size",
    "proven",
    "optimum",
    "bound",
    "cpsat_s",
    "policy",
    "accepted",
    "gap",
)
GAP_COLUMNS = (
    "experiment",
    "umed",
    "af",
    "artime",
    "deadline",
    "policy",
    "windows",
    "proven",
    "mean_size",
    "optimum_acceptance",
    "gap",
    "gap_low",
    "gap_high",
)


def window_rows(
    by_setting: Mapping[Any, Sequence[Mapping[str, Any]]], policies: Sequence[str]
) -> list[dict[str, Any]]:
    """``gap_windows.csv``: every window of every stream, proven or not, per policy."""
    rows = []
    for s, items in by_setting.items():
        for item in items:
            for w in item.get("gaps") or []:
                for p in policies:
                    rows.append(
                        {
                            "umed": s.umed,
                            "af": s.af,
                            "artime": s.artime,
                            "deadline": s.deadline,
                            "seed": item["seed"],
                            "first": w["first"],
                            "asked": w.get("asked", w["size"]),
                            "size": w["size"],
                            "proven": int(w["proven"]),
                            "optimum": w["optimum"],
                            "bound": w["bound"],
                            "cpsat_s": round(w["wall_s"], 3),
                            "policy": p,
                            "accepted": w["accepted"][p],
                            "gap": round((w["optimum"] - w["accepted"][p]) / w["size"], 6)
                            if w["proven"]
                            else "",
                        }
                    )
    return rows


def gap_rows(
    experiments: Mapping[str, Sequence[Any]],
    by_setting: Mapping[Any, Sequence[Mapping[str, Any]]],
    policies: Sequence[str],
) -> list[dict[str, Any]]:
    """``gap.csv``: per experiment, grid point and policy, the gap over proven windows."""
    rows = []
    for name, grid in experiments.items():
        for s in grid:
            windows = [w for item in by_setting[s] for w in item.get("gaps") or []]
            if not windows:
                continue
            proven = [w for w in windows if w["proven"]]
            opt = estimate(w["optimum"] / w["size"] for w in proven)
            for p in policies:
                e = gap_estimate(windows, p)
                rows.append(
                    {
                        "experiment": name,
                        "umed": s.umed,
                        "af": s.af,
                        "artime": s.artime,
                        "deadline": s.deadline,
                        "policy": p,
                        "windows": len(windows),
                        "proven": len(proven),
                        "mean_size": round(sum(w["size"] for w in proven) / len(proven), 1)
                        if proven
                        else "",
                        "optimum_acceptance": "" if opt is None else round(opt.mean, 4),
                        "gap": "" if e is None else round(e.mean, 6),
                        "gap_low": "" if e is None else round(e.low, 6),
                        "gap_high": "" if e is None else round(e.high, 6),
                    }
                )
    return rows


def gap_table(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str]) -> str:
    """The printed table: one line per grid point, the policies' gaps with their intervals."""
    from tabulate import tabulate

    points: dict[tuple[Any, ...], dict[str, Any]] = {}
    order: list[str] = []
    for r in rows:
        key = (r["experiment"], r["umed"], r["af"], r["artime"], r["deadline"])
        line = points.setdefault(
            key,
            {
                "point": f"{r['experiment']}: UMed {r['umed']:g}, af {r['af']:g}, "
                f"{{{r['artime']:g},{r['deadline']:g}}}",
                "proven": f"{r['proven']}/{r['windows']}",
                "size": r["mean_size"],
                "opt": r["optimum_acceptance"],
            },
        )
        if r["policy"] not in order:
            order.append(r["policy"])
        line[r["policy"]] = (
            "-" if r["gap"] == "" else f"{r['gap']:.3f} [{r['gap_low']:.3f}, {r['gap_high']:.3f}]"
        )
    table = [
        [v["point"], v["proven"], v["size"], v["opt"], *(v.get(p, "") for p in order)]
        for v in points.values()
    ]
    return tabulate(
        table,
        headers=[
            "grid point",
            "proven",
            "mean size",
            "optimum",
            *(labels.get(p, p) for p in order),
        ],
        tablefmt="simple",
    )


def draw_gap(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str], path: Any) -> bool:
    """``fig_offline_gap.png``: per grid point, each policy's gap to the proven optimum with its
    95 % interval as an error bar. False (nothing drawn) when no window is proven."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from schedbench.bench._io import save_figure
    from schedbench.bench.report.style import series_style

    done = [r for r in rows if r["gap"] != ""]
    if not done:
        return False
    points = list(dict.fromkeys((r["experiment"], r["umed"], r["af"], r["artime"]) for r in done))
    policies = list(dict.fromkeys(r["policy"] for r in done))
    fig = Figure(figsize=(7.5, 4.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(policies))
    for k, p in enumerate(policies):
        xs, ys, err = [], [], []
        for x, key in enumerate(points):
            r = next(
                (
                    r
                    for r in done
                    if r["policy"] == p
                    and (r["experiment"], r["umed"], r["af"], r["artime"]) == key
                ),
                None,
            )
            if r is None:
                continue
            xs.append(x + k * width)
            ys.append(r["gap"])
            err.append([r["gap"] - r["gap_low"], r["gap_high"] - r["gap"]])
        yerr = [[e[0] for e in err], [e[1] for e in err]]
        ax.bar(xs, ys, width, yerr=yerr, capsize=1, label=labels.get(p, p), **series_style(k).bar())
    ticks = []
    for key in points:
        r = next(r for r in done if (r["experiment"], r["umed"], r["af"], r["artime"]) == key)
        ticks.append(
            f"{r['experiment']} U{r['umed']:g} af{r['af']:g} {{{r['artime']:g},{r['deadline']:g}}}"
            f" {r['proven']}/{r['windows']}"
        )
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(points))], ticks, rotation=60, fontsize=6)
    ax.set_ylabel("(optimum - accepted) / requests", fontsize=8)
    ax.set_xlabel("grid point, windows proven / tried", fontsize=7)
    ax.set_title(
        "acceptance gap to the proven offline optimum on windows (each policy from an empty machine)",
        fontsize=8,
    )
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=6, ncol=4)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    return True
