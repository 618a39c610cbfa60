"""Base schedulers: the order in which queued jobs are considered (BBSched §2.1, §4.3).

A base scheduler only orders the queue; what is started, and how holes are backfilled, is the
policy's and the backfiller's job. Jobs are indexed in submit order, so "arrival order" is
simply increasing row index.

* ``fcfs`` — first come, first served: submit order (BBSched uses it with the Cori traces).
* ``wfp`` — ALCF's utility function on Theta (Allcock et al., "Experience and practice of batch
  scheduling on Leadership Supercomputers at Argonne", JSSPP 2017; BBSched §2.1 and §4.3 use it
  with the Theta traces). Cobalt recomputes, at every scheduling pass, for each queued job

      score = nodes · (queued_time / requested_walltime)^3

  and runs the highest score first: large jobs and jobs that have waited long relative to
  their request rise; short requests rise fast. Ties (e.g. at the instant of arrival, when every
  score is 0) keep arrival order. A requested walltime of 0 is treated as 1 s.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Priority(Protocol):
    name: str
    #: ``True`` when the order changes with time even if the queue does not (WFP).
    dynamic: bool

    def order(self, queue: list[int], now: float) -> list[int]: ...


class FCFS:
    """Submit order. The simulator keeps its queue in arrival order, so this is the identity."""

    name = "fcfs"
    dynamic = False

    def __init__(self, submit: np.ndarray, nodes: np.ndarray, requested_time: np.ndarray):
        pass

    def order(self, queue: list[int], now: float) -> list[int]:
        return queue


class WFP:
    """ALCF's WFP utility, ``nodes · (wait / walltime)^3``, highest first; ties by arrival."""

    name = "wfp"
    dynamic = True

    def __init__(self, submit: np.ndarray, nodes: np.ndarray, requested_time: np.ndarray):
        self._submit = np.asarray(submit, dtype=np.float64)
        self._nodes = np.asarray(nodes, dtype=np.float64)
        self._walltime = np.maximum(np.asarray(requested_time, dtype=np.float64), 1.0)

    def scores(self, jobs: np.ndarray, now: float) -> np.ndarray:
        wait = now - self._submit[jobs]
        return self._nodes[jobs] * (wait / self._walltime[jobs]) ** 3

    def order(self, queue: list[int], now: float) -> list[int]:
        if len(queue) < 2:
            return queue
        jobs = np.fromiter(queue, dtype=np.int64, count=len(queue))
        # lexsort: last key is primary; the queue is in arrival order, so position breaks ties.
        idx = np.lexsort((np.arange(jobs.size), -self.scores(jobs, now)))
        return jobs[idx].tolist()


PRIORITIES: dict[str, type] = {"fcfs": FCFS, "wfp": WFP}
