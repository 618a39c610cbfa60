"""``schedbench simulate --stream``: a streamed run on BBSched's engine, in bounded memory.

    schedbench simulate --stream --workload lublin:jobs=10000000,nodes=4096,seed=1 \\
        [--system PRESET|TOML] [--backfill easy|none] [--chunk-jobs N] [--out DIR]

The jobs are generated (a ``lublin:`` spec) or read, handed to the engine in chunks of
``--chunk-jobs`` jobs, and leave it once finished (``simcore/stream.py``): ``jobs.csv`` grows as
the run goes (crash-safe up to its last complete line) and the metrics are computed online;
``metrics.json`` is written at the end. A ``lublin:`` spec makes the same model's jobs as
without ``--stream`` but not the same ones (``instances/lublin_stream.py`` says why). The policy
is the naive one (FCFS, EASY backfilling or none) on the classic lifecycle: options that ask for
anything else are refused by name.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from schedbench.bench.progress import progress
from schedbench.bench.report.terminal import format_metrics
from schedbench.instances.systems import resolve_system
from schedbench.instances.workloads import stream_workload
from schedbench.simcore.engine import SimOptions
from schedbench.simcore.metrics import METRIC_DEFINITIONS
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.safeio import atomic_write_text, ensure_dir
from schedbench.simcore.stream import simulate_stream

#: Options of ``simulate`` a streamed run cannot honour, with the value that is allowed.
_REFUSED = (
    ("solver", "--solver", None),
    ("params", "--set", None),
    ("window", "--window", None),
    ("starvation_bound", "--starvation-bound", None),
    ("core", "--core", None),
    ("profile", "--profile", None),
    ("warmup", "--warmup", None),
    ("cooldown", "--cooldown", None),
    ("record_decisions", "--record-decisions", None),
)

HEADLINE = (
    "jobs_measured",
    "jobs_killed",
    "jobs_rejected",
    "node_usage",
    "wait_mean_s",
    "wait_median_s",
    "wait_p95_s",
    "wait_max_s",
    "slowdown_mean",
    "bounded_slowdown_mean",
    "makespan_s",
)


def add_stream_args(p: argparse.ArgumentParser) -> None:
    """``--stream`` and ``--chunk-jobs`` of ``schedbench simulate``."""
    p.add_argument(
        "--stream",
        action="store_true",
        help="streamed run in bounded memory: jobs generated or read in chunks, finished ones "
        "retired, jobs.csv written as they finish, metrics computed online (naive policy, "
        "FCFS, EASY or no backfilling, classic lifecycle; a lublin: spec makes the same "
        "model's jobs, not the same ones)",
    )
    p.add_argument(
        "--chunk-jobs",
        type=int,
        default=1 << 16,
        metavar="N",
        help="with --stream: jobs read or generated at a time (default 65536)",
    )


def check_args(args: argparse.Namespace) -> str | None:
    """Why these ``simulate`` arguments cannot run streamed (None: they can)."""
    for attr, option, allowed in _REFUSED:
        if getattr(args, attr, None) not in (allowed, [], False):
            return f"--stream: {option} is not available in a streamed run (naive policy only)"
    for attr, option in (("options", "--option"), ("policy_params", "--policy-set")):
        if getattr(args, attr, None):
            return f"--stream: {option} is not available in a streamed run"
    if getattr(args, "isolate", False):
        return "--stream: --isolate is not available in a streamed run (no solver)"
    checks = (
        ("policy", "--policy", (None, "naive")),
        ("priority", "--priority", (None, "fcfs")),
        ("backfill", "--backfill", (None, "easy", "none")),
        ("lifecycle", "--lifecycle", (None, "classic")),
    )
    for attr, option, ok in checks:
        value = getattr(args, attr, None)
        if value not in ok:
            allowed = " or ".join(repr(v) for v in ok if v is not None)
            return f"--stream: {option} {value!r}: a streamed run takes {allowed}"
    if args.chunk_jobs < 1:
        return f"--chunk-jobs: expected a number of jobs >= 1, got {args.chunk_jobs}"
    return None


def run_stream(args: argparse.Namespace, out: Path) -> int:
    """Run ``simulate --stream`` (arguments checked by :func:`check_args`) into ``out``."""
    sw = stream_workload(
        args.workload,
        chunk=args.chunk_jobs,
        on_bad_line="skip" if args.skip_bad_lines else "error",
    )
    system = resolve_system(args.system, max_nodes=sw.max_nodes)
    backfill = args.backfill or "easy"
    ensure_dir(out)
    bar = progress(sw.jobs, "simulate", "job", disable=args.no_progress)
    every = max(1000, sw.jobs // 1000)
    options = SimOptions(progress=bar.set_done, progress_every=every)
    started = time.perf_counter()
    try:
        result = simulate_stream(
            sw.chunks, system, NaivePolicy(backfill=backfill), options, records=out / "jobs.csv"
        )
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    config: dict[str, Any] = {
        "core": "bbsched",
        "unit": system.unit,
        **result.config,
        "workload": sw.source,
        "chunk_jobs": args.chunk_jobs,
        "max_window_jobs": result.max_window,
        "wall_s": round(seconds, 3),
    }
    doc = {
        "metrics": result.metrics,
        "definitions": {
            k: METRIC_DEFINITIONS[k] for k in result.metrics if k in METRIC_DEFINITIONS
        },
        "counters": result.counters,
        "config": config,
        "system": {"name": system.name, "nodes": system.nodes, "bb_gb": system.bb_gb},
    }
    atomic_write_text(out / "metrics.json", json.dumps(doc, indent=2, allow_nan=False) + "\n")
    print(
        f"streamed {result.jobs:,} jobs on {system.name} ({system.nodes} nodes), "
        f"{result.config['policy']}: {seconds:.1f} s, at most {result.max_window:,} jobs held"
    )
    shown = {k: v for k, v in result.metrics.items() if v is not None}
    print(format_metrics(shown, HEADLINE))
    print(f"written: {out}/jobs.csv, metrics.json")
    sys.stdout.flush()
    return 0
