"""What every picture of the project shares: a style per series that stays distinguishable past
ten series, and text that fits its figure.

Series styles: matplotlib's default cycle has ten colours, so an eleventh series (BBSched's
Figure 8 draws eleven methods) repeats the first one's colour. :func:`series_style` pairs the
ten ``tab10`` colours with seven markers (7 and 10 are coprime: the first 70 series all get a
different (colour, marker) pair), and from the eleventh series on also a different line style
and bar hatch, so a series stays apart from the one of the same colour even where markers are
not drawn (bars, lines without markers).

Fitting text: a title made of a long folder or scenario name is wider than its axes and is cut
at the figure's edge. :func:`fit_text` wraps a text artist (at spaces and hyphens, then inside
long words) until its widest line fits a width measured with the figure's renderer;
:func:`fit_inside` does it for every text of a figure that the layout left past an edge.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

#: matplotlib's ``tab10`` colours, in its order.
COLORS: tuple[str, ...] = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
#: Seven markers: a period coprime with the ten colours.
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X")
#: Changes every ten series (after each full round of colours).
LINESTYLES: tuple[str, ...] = ("-", "--", "-.", ":")
HATCHES: tuple[str, ...] = ("", "//", "..", "xx")


@dataclass(frozen=True, slots=True)
class SeriesStyle:
    """How series number ``index`` is drawn (:func:`series_style`)."""

    color: str
    marker: str
    linestyle: str
    hatch: str

    def line(self) -> dict[str, Any]:
        """Keyword arguments for ``plot``, ``step`` and ``errorbar``."""
        return {"color": self.color, "marker": self.marker, "linestyle": self.linestyle}

    def points(self) -> dict[str, Any]:
        """Keyword arguments for ``scatter``."""
        return {"color": self.color, "marker": self.marker}

    def bar(self) -> dict[str, Any]:
        """Keyword arguments for ``bar`` (the hatch drawn in a darker edge colour)."""
        return {"color": self.color, "hatch": self.hatch, "edgecolor": "0.2", "linewidth": 0.3}


def series_style(index: int) -> SeriesStyle:
    """The style of the ``index``-th series (0-based; see the module docstring)."""
    if index < 0:
        raise ValueError(f"series index: expected an integer >= 0, got {index}")
    rounds = index // len(COLORS)
    return SeriesStyle(
        COLORS[index % len(COLORS)],
        MARKERS[index % len(MARKERS)],
        LINESTYLES[rounds % len(LINESTYLES)],
        HATCHES[rounds % len(HATCHES)],
    )


def series_styles(n: int) -> list[SeriesStyle]:
    """The styles of ``n`` series."""
    return [series_style(i) for i in range(n)]


def renderer_of(fig: Any) -> Any:
    """A renderer that measures text as ``savefig`` will draw it (an Agg canvas is attached to
    a figure that has none)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def _wrap(text: str, width: int) -> str:
    return "\n".join(
        textwrap.fill(line, width, break_long_words=True, break_on_hyphens=True) or line
        for line in text.split("\n")
    )


def fit_text(artist: Any, width_px: float) -> None:
    """Wrap the text of ``artist`` (a matplotlib ``Text``) until its widest line is at most
    ``width_px`` display pixels wide; a text that fits is left as it is."""
    renderer = renderer_of(artist.figure)
    original = artist.get_text()
    if not original or artist.get_window_extent(renderer).width <= width_px:
        return
    width = max(len(line) for line in original.split("\n"))
    while width > 8:
        width = max(8, int(width * 0.9))
        artist.set_text(_wrap(original, width))
        if artist.get_window_extent(renderer).width <= width_px:
            return


def _room(box: Any, frame: Any, align: str, margin: float) -> float:
    """The width a text anchored as ``box`` is, aligned ``align``, has inside ``frame``."""
    if align == "left":
        return frame.x1 - box.x0 - margin
    if align == "right":
        return box.x1 - frame.x0 - margin
    centre = (box.x0 + box.x1) / 2
    return 2 * min(centre - frame.x0, frame.x1 - centre) - 2 * margin


def _frame(fig: Any, text: Any) -> Any:
    """Where ``text`` must stay: the figure's column of the axes it belongs to (side-by-side
    panels share the width), or the whole figure for a figure text."""
    from matplotlib.transforms import Bbox

    frame = fig.bbox
    ax = text.axes
    spec = ax.get_subplotspec() if ax is not None else None
    if spec is None:
        return frame
    step = frame.width / spec.get_gridspec().ncols
    lo, hi = spec.colspan.start, spec.colspan.stop
    return Bbox.from_extents(frame.x0 + lo * step, frame.y0, frame.x0 + hi * step, frame.y1)


def fit_inside(fig: Any, texts: Any = None, *, margin_px: float = 4.0) -> None:
    """Wrap every text of ``fig`` that reaches past its column of the figure (an axes' text) or
    past the figure (a figure text) — ``texts``, or by default every axes title, axes text and
    figure text — so that it fits where the layout put it. The layout runs first (a title is
    centred over its axes, which the layout places), and again after a wrap changed a text's
    size, at most four rounds."""
    renderer = renderer_of(fig)
    if texts is None:
        texts = [
            t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title, *ax.texts)
        ]
        texts += list(fig.texts)
    texts = [t for t in texts if t.get_text()]
    for _ in range(4):
        fig.draw_without_rendering()
        changed = False
        for text in texts:
            box, frame = text.get_window_extent(renderer), _frame(fig, text)
            if box.x0 >= frame.x0 and box.x1 <= frame.x1:
                continue
            fit_text(text, _room(box, frame, text.get_horizontalalignment(), margin_px))
            changed = True
        if not changed:
            return
