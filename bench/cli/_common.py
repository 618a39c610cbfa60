"""Command-line options shared by several ``schedbench`` sub-commands."""

from __future__ import annotations

import argparse
import inspect
import re

from schedbench.simcore.problem import DEFAULT_DEADLINE_S, MAX_DEADLINE_S


def add_budget_args(p: argparse.ArgumentParser) -> None:
    """``--budget S`` (decision deadline) and ``--seed N`` (for randomised solvers)."""
    p.add_argument(
        "--budget",
        type=budget_seconds,
        default=DEFAULT_DEADLINE_S,
        metavar="S",
        help=f"decision deadline in seconds (default {DEFAULT_DEADLINE_S:g}, "
        f"at most {MAX_DEADLINE_S:g})",
    )
    p.add_argument("--seed", type=seed, default=0, help="seed for randomised solvers (default 0)")


def budget_seconds(text: str) -> float:
    """A ``--budget`` value: seconds in (0, MAX_DEADLINE_S]; refused here so that the error
    names the flag."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from exc
    if not 0 < value <= MAX_DEADLINE_S:  # NaN fails too
        raise argparse.ArgumentTypeError(
            f"expected seconds in (0, {MAX_DEADLINE_S:g}], got {text!r}"
        )
    return value


def seed(text: str) -> int:
    """A ``--seed`` value: an integer in 0..2**32-1 (what the solvers' generators accept)."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from exc
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2**32-1, got {value}")
    return value


def file_name(text: str) -> str:
    """A file or folder argument: not empty (an empty name would be read as the current
    folder, ``.``, and an error would name that instead of what was typed)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a file name, got {text!r}")
    return text


def name_text(text: str) -> str:
    """A name argument (a policy, a solver): not empty, so that the error names the flag
    rather than an unknown name ``''``."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a name, got {text!r}")
    return text


def add_memory_arg(p: argparse.ArgumentParser) -> None:
    """``--memory-limit SIZE``: the memory cap of each contained solver process."""
    p.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="memory cap of each solver process (its address space): a size such as 8G or "
        "512M, a share of the machine's RAM such as 50%%, or off (default: "
        "$SCHEDBENCH_MEMORY_LIMIT, else 50%%); an allocation past it fails and the decision "
        "is recorded as error",
    )


def add_set_args(p: argparse.ArgumentParser, what: str = "solver") -> None:
    """``--set KEY=VALUE`` (repeatable) into ``args.params``."""
    p.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"{what} parameter (repeatable)",
    )


_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
_STRONG = re.compile(r"\*\*(.+?)\*\*", re.S)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_INTERPRETED = re.compile(r"(?<![\w`])`([^`\n]+?)`(?:_)?(?![\w`])")


def plain_text(text: str | None) -> str | None:
    """reST as a terminal shows it: a docstring made readable for ``--help``. Roles
    (``:func:`x```, ``:data:`~m.X```) become their target's last name, ````code```` and
    ``*emphasis*`` their text, ``::`` a colon; indentation and line breaks are kept (pair it
    with :class:`argparse.RawDescriptionHelpFormatter`)."""
    if text is None:
        return None
    text = inspect.cleandoc(text)
    text = _ROLE.sub(lambda m: m[1].rsplit(".", 1)[-1] if "~" in m[0] else m[1], text)
    text = _LITERAL.sub(r"\1", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _INTERPRETED.sub(r"\1", text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    # a section title's underline as long as the title it now has
    return re.sub(
        r"^(\S[^\n]*)\n([-=~^])\2+$", lambda m: f"{m[1]}\n{m[2] * len(m[1])}", text, flags=re.M
    )


def plain_help(parser: argparse.ArgumentParser) -> None:
    """Every description, epilog and option help of ``parser`` and its sub-parsers as plain
    text (:func:`plain_text`); a description of several lines keeps its layout."""
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if isinstance(choice.help, str):
                    choice.help = plain_text(choice.help)
            for sub in dict.fromkeys(action.choices.values()):
                plain_help(sub)
    parser.epilog = plain_text(parser.epilog)
    parser.description = plain_text(parser.description)
    if parser.description and "\n" in parser.description:
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
