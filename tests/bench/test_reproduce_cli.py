"""`schedbench reproduce PAPER`: papers are modules of bench/reproduce/, found by listing it."""

from __future__ import annotations

import types

from schedbench.bench.cli import main
from schedbench.bench.cli import reproduce as cmd
from schedbench.bench.reproduce import reproductions


def test_a_paper_module_is_a_sub_command_with_its_own_options(monkeypatch, capsys):
    seen = {}

    def add_arguments(parser):
        parser.add_argument("--quick", action="store_true")

    def run(args):
        seen["quick"] = args.quick
        return 0

    toy = types.SimpleNamespace(
        PAPER="toy", SUMMARY="a toy paper", add_arguments=add_arguments, run=run, __doc__="Toy."
    )
    monkeypatch.setattr(cmd, "reproductions", lambda: {"toy": toy})
    assert main(["reproduce", "toy", "--quick"]) == 0 and seen == {"quick": True}


def test_every_module_of_the_package_names_its_paper():
    for paper, module in reproductions().items():
        assert paper == module.PAPER and module.SUMMARY and callable(module.run)


def _commands(parser, path=()):
    """Every parser of the command tree with its words (``("reproduce", "bbsched")``)."""
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def test_every_help_is_plain_text(capsys):
    import re

    import pytest

    from schedbench.bench.cli import parser

    seen = []
    for path, _p in _commands(parser()):
        with pytest.raises(SystemExit) as stop:
            main([*path, "--help"])
        assert stop.value.code == 0
        text = capsys.readouterr().out
        seen.append(path)
        markup = re.findall(r"``|:[a-z]+(?::[a-z]+)?:`|\*\*\w|`[^`\s][^`]*`_?", text)
        assert not markup, (" ".join(path), markup[:5])
    # the tree was walked: every sub-command and every paper
    assert ("simulate",) in seen and ("plot", "gantt") in seen
    assert {("reproduce", paper) for paper in reproductions()} <= set(seen)


def test_rest_becomes_plain_text_keeping_the_layout():
    from schedbench.bench.cli._common import plain_text

    text = plain_text(
        "Uses :func:`~schedbench.simcore.metrics.compute_metrics` and :data:`TRIM`.\n\n"
        "What runs\n---------\n* ``results.csv`` — **one** row per *run*; see `the note`_::\n"
        "  kept 2 * 3 * 4"
    )
    assert text == (
        "Uses compute_metrics and TRIM.\n\n"
        "What runs\n---------\n* results.csv — one row per run; see the note:\n"
        "  kept 2 * 3 * 4"
    )
