"""The ``placement`` kind: one job on one node, in time, given file caches (see ``problem.py``).

The core's check (:meth:`PlacementKind.vet`): the candidate exists, the start is not before
``now`` nor before the candidate is free, and the objective (the weighted completion delay) is
recomputed from the placement (a claimed value that differs is replaced and counted). Quality
against an exact reference: the objective gap and whether the answer was valid
(``simcore/kinds/scalar.py``). Every candidate can run the job at some time, so ``infeasible``
is never a right answer.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from schedbench.simcore.kinds import scalar
from schedbench.simcore.kinds.base import ProblemKind
from schedbench.simcore.kinds.placement.problem import PlacementDecision, PlacementProblem
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.problem import Status

__all__ = ["PlacementDecision", "PlacementKind", "PlacementProblem"]

#: Slack on the start-time checks (float times from a simulation clock).
_TIME_TOL = 1e-9


class PlacementKind(ProblemKind):
    name = "placement"
    summary = (
        "place one job on a node in time, given file caches (weighted completion delay, minimised)"
    )
    problem_type = PlacementProblem
    decision_type = PlacementDecision
    metrics: ClassVar[tuple[MetricSpec, ...]] = scalar.gap_metrics(
        "placement", "weighted completion delay"
    )

    def vet(self, problem: Any, decision: Any) -> Any:
        if decision.status in (Status.ERROR, Status.INFEASIBLE):
            if decision.status == Status.INFEASIBLE:  # every job fits some node eventually
                return scalar.rejected(
                    decision, "claimed infeasible, but every node can run the job later", node=-1
                )
            return decision
        if decision.node == -1 and decision.status == Status.TIMEOUT:
            return decision  # no answer by the deadline
        if not 0 <= decision.node < problem.nodes:
            return scalar.rejected(
                decision, f"node {decision.node} outside 0..{problem.nodes - 1}", node=-1
            )
        if not math.isfinite(decision.start):
            return scalar.rejected(decision, "the start time is not a finite number", node=-1)
        earliest = problem.earliest_start(decision.node)
        if decision.start < earliest - _TIME_TOL * max(1.0, abs(earliest)):
            return scalar.rejected(
                decision,
                f"start {decision.start:g} before node {decision.node} can run the job "
                f"({earliest:g})",
                node=-1,
            )
        return scalar.recomputed(decision, problem.completion_delay(decision.node, decision.start))

    def quality(
        self, problem: Any, decision: Any, reference: Any | None, *, budget_s: float
    ) -> dict[str, Any]:
        return scalar.gap_quality(decision, reference, self.answered(decision))

    def describe(self, problem: Any) -> str:
        return f"{problem.nodes} candidates"

    def describe_answer(self, problem: Any, decision: Any) -> str:
        """``node 1 at t=100 (delay 4053.6)``: where and when the job starts (the candidate's
        index too when a node is offered more than once), and the weighted completion delay."""
        if not 0 <= decision.node < problem.nodes:
            return ""
        node = int(problem.node_ids[decision.node])
        where = f"node {node}" + (
            f" (candidate {decision.node})"
            if len(set(problem.node_ids.tolist())) < problem.nodes
            else ""
        )
        delay = f" (delay {decision.objectives[0]:g})" if decision.objectives else ""
        return f"{where} at t={decision.start:g}{delay}"

    def examples(self) -> list[tuple[str, Any]]:
        return [
            (
                "cached node busier",
                PlacementProblem(
                    now=0.0,
                    cores=4,
                    runtime=100.0,
                    free_at=[50.0, 0.0],
                    cached=[True, False],
                    file_gb=10.0,
                    bandwidth_gbps=0.1,
                ),
            ),
            (
                "one node",
                PlacementProblem(now=5.0, cores=1, runtime=10.0, free_at=[0.0], cached=[False]),
            ),
            (
                "LEA weights, a load in progress, eviction",
                PlacementProblem(
                    now=100.0,
                    cores=8,
                    runtime=3600.0,
                    free_at=[100.0, 400.0, 100.0],
                    cached=[False, True, False],
                    file_gb=51.2,
                    load_s=[512.0, 0.0, 30.0],
                    evict_s=[0.0, 153.6, 0.0],
                    w_load=500.0,
                    w_evict=1.0,
                ),
            ),
            (
                "backfilled candidate",
                PlacementProblem(
                    now=0.0,
                    cores=2,
                    runtime=60.0,
                    free_at=[300.0, 0.0, 100.0],
                    cached=[True, True, False],
                    file_gb=12.8,
                    node_ids=[0, 0, 1],
                ),
            ),
        ]
