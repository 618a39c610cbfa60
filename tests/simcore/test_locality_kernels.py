"""The compiled kernels of the locality planner (``simcore/locality/_kernels.py``) against
plain-Python statements of the same rules (model note §6): the eviction rows, the eviction term
summed in list order in float32, and the reference selection (the first node of smallest
truncated score), which must give the same node and score as scoring every node."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.simcore.locality import _kernels as k
from schedbench.simcore.locality.schedulers import select_reference as select_python


def rows(rng: np.random.Generator, nodes: int, single: bool):
    width = 6
    dtype = np.float32 if single else np.float64
    files = np.zeros((nodes, width), dtype=np.int64)
    ends = np.zeros((nodes, width), dtype=np.int64)
    sizes = np.zeros((nodes, width), dtype=dtype)
    ranks = np.zeros((nodes, width), dtype=np.int64)
    counts = np.zeros(nodes, dtype=np.int64)
    rank = 0
    for n in range(nodes):
        for f in rng.choice(np.arange(1, 9), size=int(rng.integers(0, width)), replace=False):
            k.row_set(files, ends, sizes, ranks, counts, n, int(f), int(rng.integers(0, 60)),
                      float(dtype(rng.uniform(0.1, 130.0))), rank)  # fmt: skip
            rank += 1
    return files, ends, sizes, ranks, counts


def evict_python(files, ends, sizes, counts, node, file, at, cores, single):
    """E (§6) as the reference's loop: sizes of the other files ending by ``at``, in order."""
    if single:
        acc = np.float32(0)
        for j in range(counts[node]):
            if files[node, j] != file and ends[node, j] <= at:
                acc = np.float32(acc + sizes[node, j])
        share = np.float32(np.float32(cores) / np.float32(20))
        return float(np.float32(np.float32(acc * share) / np.float32(0.1)))
    acc64 = 0.0
    for j in range(counts[node]):
        if files[node, j] != file and ends[node, j] <= at:
            acc64 += float(sizes[node, j])
    return acc64 * cores / 20 / 0.1


def full_python(partial_i, w2, e, single):
    if single:
        return int(np.trunc(np.float32(partial_i + np.float32(np.float32(w2) * np.float32(e)))))
    return float(partial_i) + w2 * e


@pytest.mark.parametrize("single", [True, False])
def test_row_set_keeps_rank_order_and_drop_removes(single):
    dtype = np.float32 if single else np.float64
    files, ends, ranks = (np.zeros((1, 4), dtype=np.int64) for _ in range(3))
    sizes = np.zeros((1, 4), dtype=dtype)
    counts = np.zeros(1, dtype=np.int64)
    for f, end, rank in [(5, 10, 3), (7, 11, 1), (9, 12, 2)]:
        k.row_set(files, ends, sizes, ranks, counts, 0, f, end, float(f), rank)
    assert counts[0] == 3 and files[0, :3].tolist() == [7, 9, 5]
    k.row_set(files, ends, sizes, ranks, counts, 0, 9, 40, 9.0, 2)  # a new latest interval
    assert counts[0] == 3 and ends[0, :3].tolist() == [11, 40, 10]
    k.row_drop(files, ends, sizes, ranks, counts, 0, 7)
    assert counts[0] == 2 and files[0, :2].tolist() == [9, 5] and ranks[0, :2].tolist() == [2, 3]


def four_stage_scan(eat, partial, scores, files, ends, sizes, counts, file, cores, w2, single):
    """The reference's scan as written (model note §6): a node is kept only if its EAT, then
    EAT + W_load·TL, then the untruncated score, then the truncated score are each strictly
    below the best truncated score so far."""
    best, who = float("inf"), -1
    for i in range(len(eat)):
        if eat[i] >= best or partial[i] >= best:
            continue
        if w2[i]:
            e = evict_python(files, ends, sizes, counts, i, file, int(eat[i]), cores, single)
            untruncated = (
                float(np.float32(partial[i] + np.float32(np.float32(w2[i]) * np.float32(e))))
                if single
                else float(partial[i]) + w2[i] * e
            )
        else:
            untruncated = float(partial[i])
        if untruncated >= best or scores[i] >= best:
            continue
        best, who = scores[i], i
    return who


@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("seed", range(40))
def test_compiled_selection_is_the_first_node_of_smallest_score(single, seed):
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 30))
    files, ends, sizes, _ranks, counts = rows(rng, nodes, single)
    eat = rng.integers(0, 50, size=nodes).astype(np.int64)
    eat[rng.random(nodes) < 0.4] = 0  # ties at "now"
    tl = rng.choice([0.0, 0.0, 3.5, 64.0], size=nodes).astype(np.float32 if single else np.float64)
    w1 = rng.choice([1, 500], size=nodes).astype(np.int64)
    w2 = rng.choice([0, 1, 1], size=nodes).astype(np.int64)
    partial = np.empty(nodes, dtype=np.float32 if single else np.float64)
    k.partial_scores(eat, tl, w1, partial, single)
    file, cores = int(rng.integers(0, 9)), int(rng.integers(1, 21))
    zero = np.float32(0) if single else 0.0
    share = np.float32(np.float32(cores) / np.float32(20))
    node, score = k.select_reference(
        partial, w2, eat, files, ends, sizes, counts, file, single, zero, share,
        np.float32(0.1), float(cores), 20.0, 0.1,
    )  # fmt: skip

    def exact(i):
        e = evict_python(files, ends, sizes, counts, i, file, int(eat[i]), cores, single)
        return full_python(partial[i], int(w2[i]), e, single)

    scores = [exact(i) if w2[i] else full_python(partial[i], 0, 0.0, single) for i in range(nodes)]
    best = min(range(nodes), key=lambda i: (scores[i], i))
    assert node == best and score == scores[best]
    assert node == four_stage_scan(eat, partial, scores, files, ends, sizes, counts, file, cores,
                                   w2, single)  # fmt: skip
    assert node == select_python(partial, w2, exact, single)
    e_k = k.evict_term(
        files, ends, sizes, counts, best, file, int(eat[best]), single, zero, share,
        np.float32(0.1), float(cores), 20.0, 0.1,
    )  # fmt: skip
    assert e_k == evict_python(
        files, ends, sizes, counts, best, file, int(eat[best]), cores, single
    )
