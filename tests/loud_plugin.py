"""A solver plug-in that prints everywhere a library might: when its module is imported, when it
is built, in supports(), warm_up() and solve() (tests/bench/test_solver_output.py). Only imported by
the ``schedbench`` processes those tests start: importing it prints on fd 1."""

from __future__ import annotations

import os

from tests.plugins_for_suites import Chatty

os.write(1, b"LOUD-IMPORT-FD1\n")


class Loud(Chatty):
    name = "loud"

    @property
    def id(self) -> str:
        return "loud"

    def __init__(self) -> None:
        os.write(1, b"LOUD-INIT-FD1\n")

    def supports(self, problem):
        os.write(1, b"LOUD-SUPPORTS-FD1\n")
        os.write(2, b"LOUD-SUPPORTS-FD2\n")
        return True, ""
