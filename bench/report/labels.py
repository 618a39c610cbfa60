"""Point labels that do not overlap: a greedy placer for scatter plots of solvers.

Solvers of similar speed and quality sit on top of each other in a quality-against-latency
plot, and labels all drawn up and to the right of their point then cover each other. The
placer below draws each label, measures its box with the figure's renderer, and tries a
fixed list of offsets (right-above first, then below, left, and further out) until the box
overlaps neither a label already placed nor any point marker; a label that fits nowhere takes
the candidate with the least overlapping area and gets a thin leader line back to its point.

Chosen here because the library that does this (``adjustText``) would be one more dependency
for one plot, and a deterministic order (labels placed left to right, lower first) keeps the
pictures reproducible from run to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Offsets in points, tried in order: close in first, then further out.
_OFFSETS: tuple[tuple[float, float], ...] = tuple(
    (dx * r, dy * r)
    for r in (1.0, 2.2, 3.4, 4.6)
    for dx, dy in ((5, 5), (5, -12), (-5, 5), (-5, -12), (0, 9), (0, -16))
)

#: How many offsets sit right next to the point (no leader line needed).
_FIRST_RING = 6

#: Half the side of the box around each marker that no label may cover (points).
_MARKER_HALF_PT = 4.0


def _overlap(a: Any, b: Any) -> float:
    """Area shared by two display-space boxes (0 when disjoint)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def place_labels(
    ax: Any, points: Sequence[tuple[float, float, str]], fontsize: float = 8.0
) -> list[Any]:
    """Annotate each ``(x, y, name)`` of ``ax`` without overlaps where possible.

    Call after the axes' scales and limits are set (positions are measured in display space).
    Returns the annotation artists in the order of ``points``.
    """
    from matplotlib.transforms import Bbox

    ax.get_xlim(), ax.get_ylim()  # settle lazy autoscaling before measuring positions
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    to_px = fig.dpi / 72.0
    markers = []
    for x, y, _ in points:
        px, py = ax.transData.transform((x, y))
        h = _MARKER_HALF_PT * to_px
        markers.append(Bbox.from_extents(px - h, py - h, px + h, py + h))
    placed: list[Any] = []
    order = sorted(
        range(len(points)), key=lambda i: (ax.transData.transform(points[i][:2])[0], points[i][1])
    )
    artists: dict[int, Any] = {}
    for i in order:
        x, y, name = points[i]
        best: tuple[float, Any, Any, int] | None = None
        for k, (dx, dy) in enumerate(_OFFSETS):
            text = ax.annotate(
                name,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=fontsize,
                ha="left" if dx >= 0 else "right",
                va="bottom" if dy >= 0 else "top",
            )
            box = text.get_window_extent(renderer).expanded(1.04, 1.1)
            cost = sum(_overlap(box, other) for other in placed) + sum(
                _overlap(box, m) for j, m in enumerate(markers) if j != i
            )
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, text, box, k)
            else:
                text.remove()
            if cost == 0.0:
                break
        assert best is not None
        cost, text, box, k = best
        if cost > 0.0 or k >= _FIRST_RING:  # far from its point: a leader line shows whose it is
            text.remove()
            text = ax.annotate(
                name,
                (x, y),
                textcoords="offset points",
                xytext=text.xyann,
                fontsize=fontsize,
                ha=text.get_ha(),
                va=text.get_va(),
                arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6},
            )
        placed.append(box)
        artists[i] = text
    return [artists[i] for i in range(len(points))]
