"""A reference baseline that reproduces how the Cerberus authors' Python DP works — for
measurement only.

This is *not* a solver: it is not registered in ``schedbench.solvers``, has no ``Budget`` or
deadline, returns a bare list of indices and no ``Decision``. It exists only so that
``bench/benchmarks/dp_speed.py`` can time and measure it side by side with our ``dp`` solver on the
same problems, in the same process, on the same machine (the paper reports no machine details, so
its own numbers are not comparable with ours).

What it reproduces (Cerberus, §"Solving the Optimization Problems", written here in our words):

* the CN-BB problem (eq. MaxProduct): choose jobs maximising Σ c_i · bb_run_i subject to
  Σ c_i <= CN and Σ bb_run_i <= BB. The paper's text states the value of a job is c_i · bb_i;
  the printed Recursion MaxProductRecursion adds ``+ 1`` instead, which reads as a copy of the
  MaxTaskNumber recursion, so the text is followed here;
* coarse units: CN and the c_i divided by 512 nodes, BB and the bb_i by 100 GB. Demands are
  rounded *up* and capacities *down* (so the selection is feasible in the original units), and
  the value c_i · bb_i is computed from the coarse demands, as dividing "both CN and c_i" implies;
* a dense memo ``dp[i][c][b]`` for every job prefix i = 0..n and every c = 0..CN, b = 0..BB, as
  nested Python lists, filled bottom-up with
  ``dp(i, c, b) = max(dp(i-1, c, b), dp(i-1, c - c_i, b - bb_i) + value_i)``
  (the second term only when job i fits in (c, b)); the whole table is kept, because the
  traceback needs every layer;
* the traceback from ``dp(n, CN, BB)``: job i is scheduled when it fits and
  ``dp(i-1, c, b) <= dp(i-1, c - c_i, b - bb_i) + value_i`` (the paper's rule, ties taken), and
  the walk continues from the reduced (c, b); otherwise it continues from ``dp(i-1, c, b)``.

It is exact for the coarse problem and pure Python in its loops (no numpy), time
O(n · CN · BB) and memory O(n · CN · BB) list slots — the cost the paper's coarse units exist
to contain.
"""

from __future__ import annotations

import math

from schedbench.simcore.kinds.selection.problem import SelectionProblem


def cerberus_dense_dp(
    problem: SelectionProblem, unit_nodes: float = 512, unit_bb: float = 100
) -> list[int]:
    """Jobs (window indices, ascending) chosen by the Cerberus dense DP in coarse units.

    ``problem`` must have two resources, nodes then burst buffer (``cerberus_run_window``);
    its own objectives and ``must_include`` are ignored — the value is the paper's c_i · bb_i in
    coarse units. Not a solver: see the module docstring.
    """
    if problem.K != 2:
        raise ValueError(f"cerberus_dense_dp needs 2 resources (nodes, bb), got {problem.K}")
    n = problem.w
    cn = math.floor(float(problem.capacities[0]) / unit_nodes)
    bbcap = math.floor(float(problem.capacities[1]) / unit_bb)
    c = [math.ceil(float(x) / unit_nodes) for x in problem.demands[:, 0]]
    bb = [math.ceil(float(x) / unit_bb) for x in problem.demands[:, 1]]
    value = [c[i] * bb[i] for i in range(n)]

    # dp[i][cc][b]: best value using jobs 0..i-1 with cc coarse nodes and b coarse BB available.
    dp: list[list[list[int]]] = [[[0] * (bbcap + 1) for _ in range(cn + 1)]]
    for i in range(1, n + 1):
        ci, bi, vi = c[i - 1], bb[i - 1], value[i - 1]
        prev = dp[i - 1]
        layer: list[list[int]] = []
        for cc in range(cn + 1):
            prev_row = prev[cc]
            row = [0] * (bbcap + 1)
            if ci > cc:
                for b in range(bbcap + 1):
                    row[b] = prev_row[b]
            else:
                take_row = prev[cc - ci]
                for b in range(bbcap + 1):
                    skip = prev_row[b]
                    if bi <= b:
                        take = take_row[b - bi] + vi
                        row[b] = take if take > skip else skip
                    else:
                        row[b] = skip
            layer.append(row)
        dp.append(layer)

    # Traceback from dp(n, CN, BB).
    chosen: list[int] = []
    cc, b = cn, bbcap
    for i in range(n, 0, -1):
        ci, bi = c[i - 1], bb[i - 1]
        if ci <= cc and bi <= b and dp[i - 1][cc][b] <= dp[i - 1][cc - ci][b - bi] + value[i - 1]:
            chosen.append(i - 1)
            cc -= ci
            b -= bi
    return sorted(chosen)
