"""One root error type for schedbench, with subclasses that also inherit the matching builtin.

Callers may catch ``SchedbenchError`` for everything the project raises on purpose, or
the builtin (``ValueError``, ``LookupError``) when they only care about the kind.
"""

from __future__ import annotations


class SchedbenchError(Exception):
    """Root of every error schedbench raises on purpose."""

    #: The command's exit status for this error: 2, the user's input (a file, a flag, a value);
    #: subclasses that name a solver's fault say 1 (docs/reference/cli.md, "Exit codes").
    exit_code = 2


class ProblemError(SchedbenchError, ValueError):
    """A decision problem (or its JSON form) is malformed.

    ``where`` names the field or key path (``demands[3][1]``); ``source`` the file, if any.
    """

    def __init__(self, where: str, expected: str, got: object = None, *, source: str | None = None):
        self.where = where
        self.expected = expected
        self.got = got
        self.source = source
        prefix = f"{source}: " if source else ""
        got_text = "" if got is None else f", got {_short(got)}"
        super().__init__(f"{prefix}{where}: expected {expected}{got_text}")

    def with_source(self, source: str) -> ProblemError:
        return ProblemError(self.where, self.expected, self.got, source=source)


class UnknownNameError(SchedbenchError, LookupError):
    """A plug-in name that nothing registers; the message lists the known names."""

    what = "name"

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        plural = self.what[:-1] + "ies" if self.what.endswith("y") else self.what + "s"
        super().__init__(
            f"unknown {self.what} {name!r}; known {plural}: "
            f"{', '.join(known) if known else '(none)'}"
        )

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0])


class UnknownSolverError(UnknownNameError):
    """A solver name that no installed package registers."""

    what = "solver"


class SolverParameterError(SchedbenchError, ValueError):
    """A solver parameter that does not exist or has a wrong value."""


class InvalidDecisionError(SchedbenchError, ValueError):
    """A solver returned a selection that breaks the problem's constraints: the solver's fault,
    not the user's (exit status 1)."""

    exit_code = 1


class MetricsError(SchedbenchError, ValueError):
    """Metrics cannot be computed: an empty or inverted window, a malformed result, a bad option."""


class UnknownKindError(UnknownNameError):
    """A problem kind that no installed package registers."""

    what = "problem kind"


class BudgetError(SchedbenchError, ValueError):
    """A decision budget outside the allowed range."""


class ConfigError(SchedbenchError, ValueError):
    """A simulation or policy option with a wrong value; the message names the option."""


class SimulationError(SchedbenchError, RuntimeError):
    """The simulation reached an impossible state (a bug or an invalid plug-in)."""


class InvalidActionError(SimulationError):
    """A scheduling policy returned an action the engine refuses (``simcore/policy.py``): a
    start of a job that is not queued or does not fit, bad cuts, a wake-up in the past, an
    unknown action type. The message names the policy, the time and the job; the action was
    not applied."""


class UnknownPolicyError(UnknownNameError):
    """A policy name that is neither registered in-process nor by an installed package."""

    what = "policy"


class PolicyOptionError(SchedbenchError, ValueError):
    """A policy option that the policy does not accept, or a policy spec that cannot be loaded."""


def _short(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class UsageError(SchedbenchError, ValueError):
    """Command-line flags out of range or contradicting each other; the message names them."""
