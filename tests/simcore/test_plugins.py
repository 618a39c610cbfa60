"""The one plug-in registry (simcore/plugins.py) behind every group, and aliases: a paper's name
for a class with preset parameters, which keeps its name in the solver id."""

from __future__ import annotations

import pytest

from schedbench.instances.sources import SOURCES
from schedbench.simcore.cerberus.policy import CERBERUS_POLICIES
from schedbench.simcore.errors import SolverParameterError, UnknownNameError
from schedbench.simcore.kinds.base import KINDS
from schedbench.simcore.kinds.reservation.problem import ReservationProblem
from schedbench.simcore.locality.registry import LOCALITY_SCHEDULERS, make_locality_scheduler
from schedbench.simcore.plugins import Alias, PluginError, Registry, class_with
from schedbench.simcore.policy_registry import POLICIES
from schedbench.simcore.problem import Budget
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.registry import (
    SOLVERS,
    known_solvers,
    make_solver,
    register_solver,
    solver_alias,
    unregister_solver,
)

GROUPS = [SOLVERS, POLICIES, CERBERUS_POLICIES, LOCALITY_SCHEDULERS, KINDS, SOURCES]


@pytest.mark.parametrize("registry", GROUPS, ids=lambda r: r.group)
def test_every_group_refuses_a_function_before_calling_it(registry):
    with pytest.raises(
        Exception, match="'os:system': is a builtin_function_or_method, not a class"
    ):
        registry.load_spec("os:system")
    with pytest.raises(Exception, match="expected module:Class"):
        registry.load_spec("os")
    with pytest.raises(Exception, match="cannot import module 'no_such_module_xyz'"):
        registry.load_spec("no_such_module_xyz:X")


@pytest.mark.parametrize("registry", GROUPS, ids=lambda r: r.group)
def test_every_group_lists_and_fails_the_same_way(registry):
    names = registry.names()
    assert names == sorted(names) and names
    with pytest.raises(UnknownNameError) as info:
        registry.load("no-such-name")
    assert str(info.value).startswith(f"unknown {registry.what} 'no-such-name'; known ")
    assert names[0] in str(info.value)


class _Thing:
    def act(self) -> None:
        pass


def test_register_replace_and_unregister():
    reg = Registry(
        "schedbench.test-nothing", "thing", protocol="a thing", check=lambda o: class_with(o, "act")
    )
    assert reg.names() == []
    reg.register("a", _Thing)
    reg.register("a", _Thing)  # the same again: fine
    with pytest.raises(PluginError, match="already registered"):
        reg.register("a", type("Other", (_Thing,), {}))
    with pytest.raises(PluginError, match="has no act\\(\\) method"):
        reg.register("b", dict)
    with pytest.raises(PluginError, match="without ':'"):
        reg.register("x:y", _Thing)
    assert reg.resolve("a").obj is _Thing and reg.resolve("a").alias is None
    reg.register("a2", Alias("a2", _Thing, {"k": 1}))
    resolved = reg.resolve("a2")
    assert resolved.obj is _Thing and dict(resolved.params) == {"k": 1}
    assert reg.aliases() == {"a2": reg.load("a2")}
    reg.unregister("a")
    assert reg.names() == ["a2"]


# -- aliases of solvers -------------------------------------------------------------------------
#: Every name that was a class of its own before variants became parameters: its solver id stays
#: the name, so stored results and `compare` keep aligning.
PAPER_NAMES = [
    "bbsched-ga",
    "weighted-cpu",
    "weighted-bb",
    "constrained-cpu",
    "constrained-bb",
    "constrained-ssd",
    "reservation-first-fit",
    "ff",
    "pe-b",
    "pe-w",
    "du-b",
    "du-w",
    "pedu-b",
    "pedu-w",
]


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_a_paper_name_is_an_alias_that_keeps_its_solver_id(name):
    alias = solver_alias(name)
    assert alias is not None and alias.name == name
    solver = make_solver(name)
    assert solver.id == name
    assert type(solver) is alias.target
    assert {k: solver.params()[k] for k in alias.params} == dict(alias.params)


def test_an_alias_takes_further_parameters_and_names_them_in_its_id():
    assert make_solver("weighted-cpu", {"engine": "cpsat"}).id == "weighted-cpu[engine=cpsat]"
    assert make_solver("pe-b", {"policy": "du-w"}).id == "pe-b[policy=du-w]"
    # the class with the same parameters is the same solver under its own name
    assert make_solver("fit", {"policy": "pe-b"}).id == "fit[policy=pe-b]"
    assert make_solver("fit", {"policy": "pe-b"}) == make_solver("pe-b")
    with pytest.raises(SolverParameterError, match="'pe-b' has no parameter 'polcy'"):
        make_solver("pe-b", {"polcy": "ff"})
    with pytest.raises(SolverParameterError, match="parameter 'policy': expected one of"):
        make_solver("fit", {"policy": "best"})


def test_an_alias_and_its_class_give_the_same_decisions():
    problem = ReservationProblem(
        now=0,
        ready=0,
        duration=10,
        deadline=100,
        n_pe=2,
        pes=4,
        held=((0, 30, (0,)), (5, 20, (3,))),
    )
    by_alias = make_solver("pe-w").solve(problem, Budget())
    by_class = make_solver("fit", {"policy": "pe-w"}).solve(problem, Budget())
    assert (by_alias.start, by_alias.pe_set) == (by_class.start, by_class.pe_set)
    assert by_alias.solver == "pe-w" and by_class.solver == "fit[policy=pe-w]"


def test_an_alias_registered_in_process():
    register_solver("coarse-dp", Alias("coarse-dp", DPSolver, {"unit_nodes": 2.0}, "dp in pairs"))
    try:
        assert "coarse-dp" in known_solvers()
        solver = make_solver("coarse-dp")
        assert solver.unit_nodes == 2.0 and solver.id == "coarse-dp"
        assert make_solver("coarse-dp", {"unit_nodes": 4}).id == "coarse-dp[unit_nodes=4]"
    finally:
        unregister_solver("coarse-dp")
    assert "coarse-dp" not in known_solvers()


def test_the_ten_locality_schedulers_are_two_classes_with_parameters():
    aliases = LOCALITY_SCHEDULERS.aliases()
    assert len(aliases) == 10
    assert {a.target.__name__ for a in aliases.values()} == {"FCFS", "ScoreScheduler"}
    lea_bf = make_locality_scheduler("lea-bf")
    assert (lea_bf.name, lea_bf.rule, lea_bf.backfill) == ("lea-bf", "lea", True)
    assert make_locality_scheduler("fcfs").name == "fcfs"
