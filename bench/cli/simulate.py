"""``schedbench simulate``: one trace-driven simulation on any simulation core, written to a
directory (``bench/api.py``: :func:`~bench.api.simulate` does the work; this module parses the
arguments and prints).

    schedbench simulate --workload SPEC [--system (preset | TOML)] [--policy NAME]
        [--core NAME] [--solver NAME [--set k=v ...]] [--window N] [--priority fcfs|wfp]
        [--backfill easy|conservative|none] [--lifecycle classic|three-phase] [--profile paper|cqsim]
        [--option KEY=VALUE ...] [--policy-set KEY=VALUE ...] [--out DIR] ...
    schedbench simulate --stream --workload SPEC [--system ...] [--backfill easy|none]
        [--chunk-jobs N] [--out DIR]

The policy names the core (``schedbench policies`` lists them by core): ``naive`` and
``window`` run on BBSched's engine, ``lea`` on the locality simulator, ``pe-b`` and ``reserve``
on the advance-reservation core, and so on. ``--option`` sets any key
of the core's spec (``--option mode=paper``); ``--window``, ``--priority`` and the other
flags are the same keys, for the cores that have them.

Writes to ``--out`` (default ``results/simulate/<workload>_<policy>_<hash>``) the core's files —
``jobs.csv`` (per-job records in the common schema: ``id, submit, start, end, nodes, status``
and the core's own columns), ``metrics.json`` and what the core adds (``usage.csv``,
``schedule.swf``, ``knapsack_calls.csv``) — and ``decisions.jsonl`` when a solver decides: one
line per decision, written as the simulation goes, so it survives a crash.

``--stream`` runs the naive policy on BBSched's engine in bounded memory, for workloads of
millions of jobs (``bench/cli/simulate_stream.py``): ``jobs.csv`` and ``metrics.json`` only.

If a simulation on the engine stops on an error or Ctrl-C, what was computed so far is still
written (``metrics.json`` then says ``"aborted": true`` and the unfinished jobs have empty times).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import sys
from pathlib import Path
from typing import Any

from schedbench.bench import api
from schedbench.bench.cli._common import (
    add_budget_args,
    add_memory_arg,
    add_set_args,
    file_name,
    name_text,
)
from schedbench.bench.cli.simulate_stream import add_stream_args, run_stream
from schedbench.bench.cli.simulate_stream import check_args as check_stream_args
from schedbench.bench.progress import progress
from schedbench.bench.report.terminal import format_metrics
from schedbench.instances.cores.bbsched import PROFILES
from schedbench.instances.systems import PRESETS
from schedbench.simcore.core import SpecError
from schedbench.simcore.engine import LIFECYCLES
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.policies import BACKFILLS
from schedbench.simcore.priority import PRIORITIES
from schedbench.solvers import registry

#: Spec keys with an option of their own (the rest: ``--option KEY=VALUE``).
_FLAGS = {
    "workload": "--workload",
    "system": "--system",
    "window": "--window",
    "starvation_bound": "--starvation-bound",
    "priority": "--priority",
    "backfill": "--backfill",
    "lifecycle": "--lifecycle",
    "warmup_s": "--warmup",
    "cooldown_s": "--cooldown",
    "skip_bad_lines": "--skip-bad-lines",
    "profile": "--profile",
    "policy": "--policy",  # not a spec key: a profile's check of the policy names it
}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate a workload under a policy and write per-job records, metrics, decisions",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--workload",
        required=True,
        metavar="SPEC",
        help="the core's workload: an SWF file, dataset (schedbench data: e.g. kth-sp2) or "
        "generator spec, e.g. lublin:jobs=10000,nodes=256,seed=1 with transforms +bbsched:S4 "
        "+arrivals:1.5 +head:1000; another core's own (schedbench policies names the cores; "
        "e.g. locality:jobs=N,nodes=M,seed=S, ar:jobs=N,seed=S)",
    )
    p.add_argument(
        "--system",
        default=None,
        metavar="PRESET|TOML",
        help=f"machine: {', '.join(PRESETS)} or a .toml file (default: the SWF header's "
        "MaxNodes, else MaxProcs); locality[:NODES] for the locality core, ar[:PES] for "
        "reservations",
    )
    p.add_argument(
        "--policy",
        default=None,
        type=name_text,
        metavar="NAME|module:Class",
        help="a policy of any simulation core; it names the core (see 'schedbench policies': "
        "naive, window; lea; pe-b, reserve; ...; plug-ins) or module:Class with "
        "--core; default the core's baseline (naive), or its solver policy (window) when "
        "--solver is given",
    )
    p.add_argument(
        "--core",
        default=None,
        metavar="NAME",
        help="the simulation core (see 'schedbench policies'; or module:Class of a plug-in); "
        "needed only when the policy does not name it",
    )
    p.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a key of the core's spec (repeatable; values read as Python literals, else text), "
        "e.g. mode=paper for the locality core",
    )
    p.add_argument(
        "--policy-set",
        dest="policy_params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="policy option (repeatable; values read as Python literals, else as text)",
    )
    p.add_argument(
        "--solver",
        default=None,
        help="a solver of the core's problem kind for a policy that decides with one "
        "(window, lea, reserve, ...), or module:Class of a plug-in",
    )
    add_set_args(p)
    p.add_argument(
        "--window",
        type=int,
        default=None,
        help="window size (default 20, BBSched; the knapsack window of a core that has one, "
        "0 = the whole queue)",
    )
    p.add_argument(
        "--starvation-bound",
        type=int,
        default=None,
        help="passes a job may stay in the window before it must start (default 50)",
    )
    p.add_argument(
        "--priority",
        default=None,
        choices=sorted(PRIORITIES),
        help="base scheduler order (default fcfs)",
    )
    p.add_argument("--backfill", default=None, choices=BACKFILLS, help="default easy")
    p.add_argument("--lifecycle", default=None, choices=LIFECYCLES, help="default classic")
    p.add_argument(
        "--profile",
        default=None,
        choices=PROFILES,
        help="BBSched core semantics: paper (the paper's text, default) or cqsim (the authors' "
        "simulator, job for job; rules: --option cqsim_rules={...})",
    )
    add_budget_args(p)
    p.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="ask the solver in one child process for the whole run, killed (with what it "
        "started) and replaced at budget + grace, under a memory cap: a hang, crash, exit or "
        "interrupt is that decision's timeout or error (--no-isolate: in this process under a "
        "soft deadline); default: a plug-in isolated, the project's own solvers in this process",
    )
    add_memory_arg(p)
    p.add_argument(
        "--on-invalid",
        default="raise",
        choices=("raise", "fallback"),
        help="an invalid decision stops the run (default) or falls back to naive",
    )
    p.add_argument(
        "--warmup",
        type=float,
        default=None,
        metavar="S",
        help="seconds after the first submission excluded from the metrics",
    )
    p.add_argument(
        "--cooldown",
        type=float,
        default=None,
        metavar="S",
        help="seconds before the last submission excluded from the metrics",
    )
    p.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="skip (and count) malformed SWF lines instead of stopping",
    )
    p.add_argument("--out", type=file_name, default=None, metavar="DIR", help="output directory")
    p.add_argument(
        "--record-decisions",
        type=file_name,
        default=None,
        metavar="FILE",
        help="store every decision problem posed (JSON lines) for replay in suites; a policy "
        "that decides with a solver only (use --solver naive to record the baseline's)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_stream_args(p)


def _slug(text: str, limit: int = 48) -> str:
    """``text`` as a readable, shell- and glob-safe name part: runs of anything but letters,
    digits, ``.`` and ``-`` become ``-``; cut at a word boundary within ``limit`` characters."""
    words = [w for w in re.split(r"[^A-Za-z0-9.]+", text) if w]
    out = ""
    for word in words:
        if out and len(out) + 1 + len(word) > limit:
            break
        out = f"{out}-{word}" if out else word[:limit]
    return out or "run"


def default_out_name(workload: str, policy: str, extra: str = "") -> str:
    """The default ``--out`` folder name: the workload (a trace's file name, or the generator
    spec) and the policy, each cut at a word boundary, plus 8 hex digits of a hash of the
    whole configuration so that two runs that differ only past the cut do not collide."""
    first = workload.split("+")[0]
    if "/" in first or first.endswith((".swf", ".gz")):
        name = Path(first).name.removesuffix(".gz").removesuffix(".swf")
        workload_part = _slug(name + workload[len(first) :])
    else:
        workload_part = _slug(workload)
    digest = hashlib.sha256(f"{workload}|{policy}|{extra}".encode()).hexdigest()[:8]
    return f"{workload_part}_{_slug(policy, 32)}_{digest}"


def run(args: argparse.Namespace) -> int:
    if args.stream:
        return _run_stream(args)
    if args.params and not args.solver:
        return _fail("--set sets the solver's parameters: add --solver NAME")
    options = {
        key: getattr(args, attr)
        for key, attr in (
            ("window", "window"),
            ("starvation_bound", "starvation_bound"),
            ("priority", "priority"),
            ("backfill", "backfill"),
            ("lifecycle", "lifecycle"),
            ("profile", "profile"),
            ("warmup_s", "warmup"),
            ("cooldown_s", "cooldown"),
        )
        if getattr(args, attr) is not None
    }
    if args.skip_bad_lines:
        options["skip_bad_lines"] = True
    options.update(_literals(args.options, "--option"))
    try:
        plan = api.plan_simulation(
            args.workload,
            policy=args.policy,
            solver=args.solver,
            params=registry.parse_assignments(args.params),
            system=args.system,
            core=args.core,
            options=options,
            policy_options=_literals(args.policy_params, "--policy-set"),
            budget=args.budget,
            seed=args.seed,
            record=bool(args.record_decisions),
            isolate=args.isolate,
            memory_limit=args.memory_limit,
        )
    except SpecError as exc:
        return _fail(_spec_message(exc, args.policy))
    out = Path(args.out) if args.out else Path("results") / "simulate" / _default_out(args, plan)
    bar: Any = None

    def show(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = progress(total, "simulate", "job", disable=args.no_progress)
        bar.set_done(done)

    try:
        done = api.run_plan(
            plan,
            out=out,
            record_decisions=args.record_decisions,
            on_invalid=args.on_invalid,
            progress=None if args.no_progress else show,
        )
    finally:
        if bar is not None:
            bar.close()
    return _print(done, args)


def _run_stream(args: argparse.Namespace) -> int:
    """``--stream`` (``bench/cli/simulate_stream.py``)."""
    problem = check_stream_args(args)
    if problem is not None:
        return _fail(problem)
    label = f"naive-{args.backfill or 'easy'}-stream"
    extra = f"{args.system}|{args.chunk_jobs}"
    out = (
        Path(args.out)
        if args.out
        else Path("results") / "simulate" / default_out_name(args.workload, label, extra)
    )
    return run_stream(args, out)


def _print(done: api.Simulated, args: argparse.Namespace) -> int:
    """The run's summary on stdout, its notes and warnings on stderr (what the core says)."""
    run = done.run
    if run.error is not None:
        at = run.config.get("stopped_at")
        print(
            f"schedbench: error: simulation stopped at t={at:g}: {run.error}\n"
            if isinstance(at, (int, float))
            else f"schedbench: error: simulation stopped: {run.error}\n",
            end=f"  partial results written to {done.out}/\n",
            file=sys.stderr,
        )
        if isinstance(run.error, KeyboardInterrupt):
            return 130
        # the culprit: a bad input says 2; a solver's fault (an invalid answer) says 1
        return run.error.exit_code if isinstance(run.error, SchedbenchError) else 1
    if isinstance(run.metrics.get("error"), str):
        # the run finished but nothing could be measured (a warm-up past the last submission):
        # an empty table with exit 0 would read as a result
        print(
            f"schedbench: error: no metrics: {run.metrics['error']}",
            end=f"\n  the schedule was written to {done.out}/\n",
            file=sys.stderr,
        )
        return 2
    for note in run.notes:
        print(f"note: {note}", file=sys.stderr)
    for line in run.summary:
        print(line)
    shown = {k: v for k, v in run.metrics.items() if v is not None}
    print(format_metrics(shown, done.core.headline))
    for line in run.details:
        print(line)
    for warning in run.warnings:
        print(warning, file=sys.stderr)
    if done.recorded is not None:
        print(f"recorded {done.recorded} decision problems to {args.record_decisions}")
    first, *rest = done.files
    print(f"written: {done.out}/{first}" + "".join(f", {f}" for f in rest))
    return 0


def _fail(message: str) -> int:
    print(f"schedbench: error: {message}", file=sys.stderr)
    return 2


def _spec_message(exc: SpecError, policy: str | None) -> str:
    """A spec error in the words of the command line: the option, not the spec key."""
    option = _option(exc.key)
    if exc.key.startswith("policy_options.") and policy:
        name = exc.key.partition(".")[2]
        return f"{option}: policy {policy!r} has no option {name!r}; expected {exc.expected}"
    return f"{option}: {str(exc).partition(': ')[2]}"


def _option(key: str) -> str:
    """The command-line option that sets spec key ``key``."""
    if key.startswith("policy_options."):
        return f"--policy-set {key.partition('.')[2]}"
    if key == "policy_options":
        return "--policy-set"
    return _FLAGS.get(key, f"--option {key}")


def _default_out(args: argparse.Namespace, plan: api.Plan) -> str:
    label = plan.policy + (f":{plan.solver.id}" if plan.solver is not None else "")
    extra = "|".join(
        str(x) for x in (args.system, plan.core.name, plan.spec.options, args.params, args.seed)
    )
    return default_out_name(args.workload, label, extra)


def _literals(items: list[str], option: str) -> dict[str, Any]:
    """``--policy-set`` / ``--option`` items: each value a Python literal (``3``, ``0.5``,
    ``True``), else text."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise SpecError(option, "KEY=VALUE", item)
    for key, value in registry.parse_assignments(items).items():
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            out[key] = value  # plain text, e.g. a name
    return out


COMMANDS = {"simulate": run}
