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


# -- the misbehaviours every command must contain (tests/bench/test_containment.py) ----------


class _Plugin:
    """What every misbehaving plug-in below shares: a name, its id, and taking any problem."""

    name = "plugin"

    @property
    def id(self) -> str:
        return self.name

    def supports(self, problem):
        return True, ""


@dataclass(frozen=True)
class Hanger(_Plugin):
    """Loops forever in Python, never looking at its clock."""

    name: str = "hanger"

    def solve(self, problem, budget):
        while True:
            pass


@dataclass(frozen=True)
class BadIndex(_Plugin):
    """Claims an optimal selection holding a job outside the window."""

    name: str = "bad-index"

    def solve(self, problem, budget):
        return Decision(Status.OPTIMAL, selected=(0, problem.w + 5))


@dataclass(frozen=True)
class OverCapacity(_Plugin):
    """Claims that starting every job of the window is optimal."""

    name: str = "over-capacity"

    def solve(self, problem, budget):
        return Decision(Status.OPTIMAL, selected=tuple(range(problem.w)))


@dataclass(frozen=True)
class ExitZero(_Plugin):
    """Ends its process with exit status 0 and no answer."""

    name: str = "exit-zero"

    def solve(self, problem, budget):
        os._exit(0)


@dataclass(frozen=True)
class Hog(_Plugin):
    """Allocates ``gib`` GiB at once. Refuses (raises HOG-UNCAPPED) unless the process has an
    address-space cap below that: a test must never take the machine's memory."""

    gib: float = 64.0
    name: str = "hog"

    def solve(self, problem, budget):
        import resource

        want = int(self.gib * (1 << 30))
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft >= want:
            raise RuntimeError("HOG-UNCAPPED: no memory cap below the allocation")
        block = bytearray(want)
        return Decision(Status.FEASIBLE, selected=(), stats={"bytes": len(block)})


@dataclass(frozen=True)
class Segfault(_Plugin):
    """Reads address 0, as a broken native solver does: SIGSEGV."""

    name: str = "segfault"

    def solve(self, problem, budget):
        import ctypes
        import faulthandler

        faulthandler.disable()
        ctypes.string_at(0)


@dataclass(frozen=True)
class NoneAnswer(_Plugin):
    """Returns None instead of a decision."""

    name: str = "none-answer"

    def solve(self, problem, budget):
        return None


@dataclass(frozen=True)
class NanClaim(_Plugin):
    """Claims the empty selection is optimal with NaN objective values."""

    name: str = "nan-claim"

    def solve(self, problem, budget):
        nan = float("nan")
        return Decision(
            Status.OPTIMAL, selected=(), objectives=tuple(nan for _ in range(problem.M))
        )


@dataclass(frozen=True)
class Mutator(_Plugin):
    """Multiplies the capacities of the problem it was handed by 1000, then claims that
    starting every job is optimal (it fits the mutated problem)."""

    name: str = "mutator"

    def solve(self, problem, budget):
        object.__setattr__(problem, "capacities", problem.capacities * 1000)
        everything = tuple(range(problem.w))
        return Decision(
            Status.OPTIMAL, selected=everything, objectives=problem.evaluate(everything)
        )


@dataclass(frozen=True)
class Detacher(_Plugin):
    """Starts a process that detaches (new session, its parent gone: a daemon), writes "its
    own pid, the daemon's pid" to ``pid_file``, then hangs."""

    pid_file: str = ""
    name: str = "detacher"

    def solve(self, problem, budget):
        code = (
            "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
            "'import time; time.sleep(600)'], start_new_session=True); print(p.pid)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        with open(self.pid_file + ".tmp", "w") as f:
            f.write(f"{os.getpid()} {int(out.stdout)}")
        os.replace(self.pid_file + ".tmp", self.pid_file)
        time.sleep(600)
