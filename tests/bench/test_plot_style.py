"""What the pictures share (``bench/report/style.py``): series that stay distinguishable past
ten, and notes that do not overlap what they follow."""

from __future__ import annotations

import io

import pytest
from matplotlib.colors import to_hex

from schedbench.bench.report import html
from schedbench.bench.report.style import series_style, series_styles
from schedbench.bench.reproduce import bbsched


@pytest.mark.parametrize("n", [11, 12, 30, 70])
def test_n_series_get_n_distinct_colour_marker_pairs(n):
    styles = series_styles(n)
    assert len({(s.color, s.marker) for s in styles}) == n
    # without markers (bars, plain lines) they still differ: colour with hatch and line style
    assert len({(s.color, s.hatch) for s in styles}) == min(n, 40)
    assert len({(s.color, s.linestyle) for s in styles}) == min(n, 40)


def test_a_negative_series_index_is_refused():
    with pytest.raises(ValueError, match="series index"):
        series_style(-1)


def _kiviat(n, baseline="p0"):
    values = {f"p{i}": [1.0 + 0.05 * i, 0.9, 1.1, 0.8] for i in range(n)}
    return html.kiviat_figure(
        "a scenario", ["node usage", "wait", "slowdown", "bb usage"], values, baseline
    )[0]


def test_a_kiviat_chart_of_twelve_policies_draws_twelve_distinct_series():
    fig = _kiviat(12)
    ax = fig.axes[0]
    drawn = {
        (to_hex(line.get_color()), line.get_marker())
        for line in ax.get_lines()
        if line.get_label().startswith("p")
    }
    assert len(drawn) == 12


def test_bbsched_bar_figures_tell_every_method_apart():
    rows = [
        {"scenario": "theta-S4", "method": m.name, "window": 20, "seed": seed, "node_usage": 0.5}
        for m in bbsched.METHODS
        for seed in (1, 2)
    ]
    assert len(bbsched.METHODS) >= 11  # the case that ran out of colours
    fig = bbsched.bars_figure(bbsched.Results(rows), "node_usage", "t", "y", scale=100)
    bars = [c for c in fig.axes[0].containers if hasattr(c, "patches")]
    looks = {(to_hex(c.patches[0].get_facecolor()), c.patches[0].get_hatch()) for c in bars}
    assert len(bars) == len(bbsched.METHODS) == len(looks)


def test_the_kiviat_caption_and_the_report_footer_do_not_overlap():
    fig = _kiviat(3, baseline="a-baseline-with-a-long-name-" * 3)
    token = html._SOURCE.set("suite quick, commit 0123456789ab+dirty, " * 3)
    try:
        html._stamp(fig)
    finally:
        html._SOURCE.reset(token)
    fig.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    renderer = fig.canvas.get_renderer()
    caption, footer = fig.texts[0], fig.texts[-1]
    assert "ratio to" in caption.get_text() and "commit" in footer.get_text()
    a, b = caption.get_window_extent(renderer), footer.get_window_extent(renderer)
    assert not a.overlaps(b)
    # neither overlaps the chart's axis names either
    for label in fig.axes[0].get_xticklabels():
        box = label.get_window_extent(renderer)
        assert not box.overlaps(a) and not box.overlaps(b)


def test_a_long_scenario_name_is_wrapped_to_the_kiviat_chart_width():
    name = "theta-S4-lublin2k/lublin:jobs=2000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2" * 2
    fig = html.kiviat_figure(name, ["a", "b", "c"], {"x": [1.0, 1.0, 1.0]}, "x")[0]
    fig.savefig(io.BytesIO(), format="png")
    title = fig.axes[0].title
    assert "\n" in title.get_text()
    assert title.get_window_extent(fig.canvas.get_renderer()).width <= fig.bbox.width
