"""Progress bars with an ETA for the long commands (suite runs, simulations, reproductions).

One place decides how progress looks: a ``tqdm`` bar on stderr (stdout carries only the
command's document: docs/design.md#output-people-read), refreshed at most twice a second. A bar is
shown only when it is wanted and stderr is a terminal, unless ``SCHEDBENCH_PROGRESS=1`` forces
it (for logs of long CI runs); ``SCHEDBENCH_PROGRESS=0`` or ``--no-progress`` hides it.

``progress(total, desc, unit)`` returns a :class:`Progress`; a hidden one accepts the same calls
and does nothing, so callers never test for ``None``.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import Any


def wanted(disable: bool = False) -> bool:
    """Whether to draw a bar: not disabled, and stderr a terminal or ``SCHEDBENCH_PROGRESS=1``."""
    if disable:
        return False
    forced = os.environ.get("SCHEDBENCH_PROGRESS", "").strip()
    if forced in {"0", "1"}:
        return forced == "1"
    return sys.stderr.isatty()


class Progress:
    """A counter towards ``total`` with an ETA; a no-op when hidden."""

    def __init__(self, total: int | None, desc: str = "", unit: str = "it", show: bool = True):
        self._bar: Any = None
        self._done = 0
        if show:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                desc=desc or None,
                unit=unit,
                file=sys.stderr,
                mininterval=0.5,
                smoothing=0.1,
                dynamic_ncols=True,
            )

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def update(self, n: int = 1) -> None:
        """``n`` more steps done."""
        self._done += n
        if self._bar is not None:
            self._bar.update(n)

    def set_done(self, done: int) -> None:
        """The number of steps done so far (for callbacks that report a running total)."""
        self.update(done - self._done)

    def note(self, text: str) -> None:
        """A short note after the bar (what is running now); empty to clear it."""
        if self._bar is not None:
            self._bar.set_postfix_str(text[:40])

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def progress(
    total: int | None, desc: str = "", unit: str = "it", disable: bool = False
) -> Progress:
    """A bar for ``total`` steps (None: unknown), shown when :func:`wanted`."""
    return Progress(total, desc, unit, show=wanted(disable) and total != 0)
