"""Regenerate the shipped Cerberus decision corpora (``instances/decisions/cerberus-*.jsonl``).

Each is the per-queue knapsack problems a Cerberus MaxT run really posed on the generated
workload ``cerberus:jobs=600,seed=1`` (Lublin–Feitelson jobs on 1,171 × 256 cores, Poisson(1)
arrivals, the model note's data draws), kept when the window holds at least 5 jobs and the jobs
do not all fit (the decision binds), then every ``k``-th:

* ``cerberus-maxt-faithful-w10.jsonl`` — faithful mode, window 10, solver ``cerberus-dp``
  (core units of 256 and whole TB, as upstream), every 20th binding decision;
* ``cerberus-maxt-corrected-w50.jsonl`` — corrected mode, window 50, solver ``dp`` (exact cores
  and GB), every 50th.

Run: ``.venv/bin/python bench/benchmarks/cerberus_corpus.py`` (about half a minute). The suite
``cerberus-solvers`` replays them with ``source = "recorded"``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from schedbench.instances.cerberus import load_cerberus_workload
from schedbench.instances.cores.cerberus import cerberus_config, run_cerberus
from schedbench.instances.systems import CERBERUS
from schedbench.simcore.recording import DecisionRecorder
from schedbench.solvers.registry import make_solver

WORKLOAD = "cerberus:jobs=600,seed=1"
OUT = Path(__file__).resolve().parents[2] / "instances" / "decisions"
CORPORA = (
    ("cerberus-maxt-faithful-w10.jsonl", "faithful", 10, "cerberus-dp", 20),
    ("cerberus-maxt-corrected-w50.jsonl", "corrected", 50, "dp", 50),
)


def binds(problem: dict) -> bool:
    demands, capacities = problem["demands"], problem["capacities"]
    return len(demands) >= 5 and any(
        sum(row[k] for row in demands) > capacities[k] for k in range(len(capacities))
    )


#: Not a benchmark: it regenerates shipped data, so `make figures` does not run it.
GENERATES = "instances/decisions/cerberus-*.jsonl"


def main() -> None:
    workload = load_cerberus_workload(WORKLOAD)
    for name, mode, window, solver, every in CORPORA:
        with tempfile.TemporaryDirectory() as tmp:
            full = Path(tmp) / "all.jsonl"
            recorder = DecisionRecorder(full, workload=workload.source, system=CERBERUS.name)
            run_cerberus(
                workload,
                CERBERUS,
                "cerberus-maxt",
                solver=make_solver(solver),
                config=cerberus_config({"mode": mode}, window),
                record=recorder,
            )
            recorder.close()
            lines = [line for line in full.open() if binds(json.loads(line)["problem"])]
        kept = lines[::every]
        (OUT / name).write_text("".join(kept))
        print(f"{name}: {recorder.count} decisions, {len(lines)} binding, {len(kept)} kept")


if __name__ == "__main__":
    main()
