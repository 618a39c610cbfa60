"""``schedbench plot gantt|usage RUN_DIR [RUN_DIR] [--out FILE.png] ...``: pictures of a run's
schedule (``bench/report/schedule_plots.py``); several folders draw side by side. A run folder
is what ``simulate --out`` writes (any core), or a reproduction's run: a ``reproduce locality``
scheduler (``DIR/<scheduler>``), a ``reproduce ar --requests`` replay (``--out DIR``), and the
other papers' ``OUT/<run>`` folders."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from schedbench.bench.cli._common import file_name
from schedbench.bench.report import schedule_plots as sp


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "plot",
        help="draw a run's schedule: gantt (jobs on nodes), usage",
        description=__doc__,
    )
    kinds = p.add_subparsers(dest="picture", required=True, metavar="PICTURE")
    g = kinds.add_parser("gantt", help="jobs as rectangles over time x nodes")
    u = kinds.add_parser("usage", help="node, burst-buffer and SSD use and queue length over time")
    for q in (g, u):
        q.add_argument(
            "runs",
            nargs="+",
            metavar="RUN_DIR",
            help="run folder(s): simulate --out, a reproduction's OUT/<run>, reproduce "
            "locality DIR/<scheduler>, reproduce ar --requests ... --out DIR (at most 4)",
        )
        q.add_argument(
            "--out",
            type=file_name,
            default=None,
            metavar="FILE.png",
            help="default: in the first folder",
        )
    g.add_argument("--color", default="user", choices=sp.COLOR_MODES, help="default user")
    g.add_argument("--from", dest="t_from", type=float, default=None, metavar="H", help="hours")
    g.add_argument("--to", dest="t_to", type=float, default=None, metavar="H", help="hours")
    g.add_argument(
        "--max-jobs", type=int, default=sp.MAX_JOBS, metavar="N", help="jobs drawn at most"
    )


def run(args: argparse.Namespace) -> int:
    if len(args.runs) > 4:
        raise sp.PlotError(f"expected at most 4 run folders side by side, got {len(args.runs)}")
    runs = [sp.load_run(path) for path in args.runs]
    name = (
        args.picture
        if len(runs) == 1
        else f"{args.picture}-vs-" + "-".join(r.label for r in runs[1:])
    )
    out = Path(args.out) if args.out else runs[0].path / f"{name}.png"
    if args.picture == "gantt":
        path = sp.gantt(
            runs, out, color=args.color, t_from=args.t_from, t_to=args.t_to, max_jobs=args.max_jobs
        )
    else:
        path = sp.usage(runs, out)
    print(path)
    return 0


COMMANDS = {"plot": run}
