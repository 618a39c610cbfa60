"""Point labels of the report's scatter plots do not cover each other (bench/report/labels.py)."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from schedbench.bench.report.labels import _overlap, place_labels


def _axes(points: list[tuple[float, float, str]]) -> tuple[Figure, object]:
    fig = Figure(figsize=(6.0, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.scatter([p[0] for p in points], [p[1] for p in points])
    ax.set_xscale("log")
    return fig, ax


def _boxes(fig: Figure, texts: list[object]) -> list[object]:
    # The text's own box: an annotation's extent also covers its leader line.
    renderer = fig.canvas.get_renderer()
    return [Text.get_window_extent(t, renderer) for t in texts]  # type: ignore[arg-type]


def test_clustered_points_get_disjoint_labels() -> None:
    # Six solvers of nearly equal latency and quality: the naive placement (every label up
    # and right of its point) stacks all six labels on one spot.
    points = [(1e-3 * (1 + 0.01 * i), 0.5 + 0.001 * i, f"solver-{i}") for i in range(6)]
    points.append((1.0, 0.0, "far-away"))
    fig, ax = _axes(points)
    naive = [
        ax.annotate(n, (x, y), textcoords="offset points", xytext=(5, 5)) for x, y, n in points
    ]
    assert any(_overlap(a, b) > 0 for a, b in itertools.combinations(_boxes(fig, naive), 2))
    for t in naive:
        t.remove()
    texts = place_labels(ax, points)
    assert [t.get_text() for t in texts] == [p[2] for p in points]
    boxes = _boxes(fig, texts)
    for a, b in itertools.combinations(boxes, 2):
        assert _overlap(a, b) == 0.0


def test_lone_point_keeps_its_label_beside_it_without_leader() -> None:
    points = [(1e-2, 1.0, "only"), (10.0, 0.0, "other")]
    _fig, ax = _axes(points)
    texts = place_labels(ax, points)
    assert texts[0].xyann == (5, 5)  # type: ignore[attr-defined]
    assert texts[0].arrow_patch is None  # type: ignore[attr-defined]


def test_crowded_label_gets_a_leader_line() -> None:
    points = [(1e-3, 0.5, f"a-rather-long-solver-name-{i}") for i in range(8)]
    _fig, ax = _axes(points)
    texts = place_labels(ax, points)
    assert any(t.arrow_patch is not None for t in texts)  # type: ignore[attr-defined]
