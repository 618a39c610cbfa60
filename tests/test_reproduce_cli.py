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
