"""Deliberately misbehaving solver plug-ins for the suite-runner tests (importable by workers)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

from schedbench.simcore.kinds.selection.problem import Decision
from schedbench.simcore.problem import Status


@dataclass(frozen=True)
class Sleeper:
    """Ignores the deadline: sleeps ``seconds`` before answering."""

    seconds: float = 60.0
    name: str = "sleeper"

    @property
    def id(self) -> str:
        return f"sleeper[seconds={self.seconds:g}]"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        time.sleep(self.seconds)
        return Decision(
            Status.FEASIBLE,
            selected=(),
            objectives=tuple(0.0 for _ in range(problem.M)),
            solver=self.id,
        )


@dataclass(frozen=True)
class Forker:
    """Starts a long-lived process of its own, writes "its pid, that process's pid" to
    ``pid_file``, then hangs: what a solver running an external binary looks like when it
    misbehaves."""

    pid_file: str = ""
    name: str = "forker"

    @property
    def id(self) -> str:
        return "forker"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(self.pid_file + ".tmp", "w") as f:
            f.write(f"{os.getpid()} {child.pid}")
        os.replace(self.pid_file + ".tmp", self.pid_file)
        time.sleep(600)


@dataclass(frozen=True)
class Crasher:
    """Kills its own process (as a segfaulting native solver would)."""

    name: str = "crasher"

    @property
    def id(self) -> str:
        return "crasher"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        os._exit(13)


@dataclass(frozen=True)
class Raiser:
    """Raises an exception from solve()."""

    name: str = "raiser"

    @property
    def id(self) -> str:
        return "raiser"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        raise RuntimeError("boom")


@dataclass(frozen=True)
class Exiter:
    """Calls sys.exit(code) from solve() (a library that 'exits' on an error)."""

    code: int = 3
    name: str = "exiter"

    @property
    def id(self) -> str:
        return "exiter"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        import sys

        sys.exit(self.code)


@dataclass(frozen=True)
class Interrupter:
    """Raises KeyboardInterrupt from solve()."""

    name: str = "interrupter"

    @property
    def id(self) -> str:
        return "interrupter"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        raise KeyboardInterrupt


@dataclass(frozen=True)
class Chatty:
    """Answers like naive, but prints on fd 1 and fd 2 directly (as C libraries do) and through
    Python's print, in solve() and in warm_up()."""

    name: str = "chatty"

    @property
    def id(self) -> str:
        return "chatty"

    def supports(self, problem):
        return True, ""

    def warm_up(self):
        os.write(1, b"CHATTY-BANNER-FD1\n")

    def solve(self, problem, budget):
        import sys

        os.write(1, b"CHATTY-FD1 solving\n")
        os.write(2, b"CHATTY-FD2 solving\n")
        print("CHATTY-PRINT solving")
        print("CHATTY-PRINT-ERR solving", file=sys.stderr)
        return Decision(Status.FEASIBLE, selected=())
