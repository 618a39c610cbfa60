"""Hypothesis fuzzing of every input surface, through the command line: the flags, workload
specs, PROBLEM.json of each kind, SWF and SWF.gz, a run's jobs.csv, locality workload files,
suite TOML keys and output paths.

Each generated input runs ``schedbench`` in-process (``bench/cli/__init__.py``'s ``main``, its
stdout and stderr captured) in a folder of its own, next to a sentinel folder; every example must
end in exit 0, 1 or 2, never a traceback (an exception out of ``main`` fails the test), never a
hang (a deadline raises in the command), with an error that is one line naming the culprit, and
with nothing outside the example's folder changed (the sentinel folder and the checkout).

The stored corpus of the audit's cases is in tests/bench/test_fuzz.py (fuzz_corpus.json). Every
failure found here is fixed in the code and kept as an ``@example``. The default pass runs few
examples per surface (derandomised: profile ``ci`` in tests/conftest.py); ``make test-deep``
draws many more (``examples(n)``).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests._checkout import checkout_state
from tests._hyp import PROFILE, examples

ROOT = Path(__file__).resolve().parents[2]
#: Bound on one example: a reader that blocks (a FIFO, a device) or a bound that does not hold
#: fails the example instead of hanging the test; generous for a loaded machine.
EXAMPLE_TIMEOUT_S = 120
#: Commands that take seconds each (a suite run, an HTML report, a picture) are drawn only under
#: ``make test-deep``; the default pass keeps their explicit examples.
DEEP = PROFILE == "deep"

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


def fuzz(n: int) -> settings:
    """``n`` examples in the default pass (20x under ``make test-deep``), no deadline per
    example (the harness has its own), fixtures shared by the examples of a test."""
    return settings(
        max_examples=examples(n),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


# ----------------------------------------------------------------------------- the harness
class Hang(BaseException):
    """Raised in the command when an example outlives its deadline (a BaseException, so that
    no handler of the code under test swallows it)."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def error_lines(self) -> list[str]:
        """stderr without argparse's usage lines (they are not part of the message)."""
        return [
            line
            for line in self.err.splitlines()
            if line.strip() and not line.startswith(("usage:", " "))
        ]


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


class Arena:
    """A base folder holding ``outside/`` (a sentinel nothing may change: a victim file, a
    folder) and one fresh folder per example, where the command runs."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.outside = base / "outside"
        (self.outside / "dir").mkdir(parents=True)
        (self.outside / "victim.txt").write_text("must not change\n")
        self.before = _snapshot(self.outside)
        self.count = 0

    def folder(self) -> Path:
        self.count += 1
        case = self.base / f"case{self.count}"
        case.mkdir()
        return case

    def run(self, argv: Sequence[str], case: Path, env: dict[str, str] | None = None) -> Outcome:
        from schedbench.bench.cli import main

        out, err = io.StringIO(), io.StringIO()
        old_cwd, old_env = os.getcwd(), dict(os.environ)
        os.environ.update(env or {})
        os.chdir(case)
        try:
            with (
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
                _deadline(EXAMPLE_TIMEOUT_S),
            ):
                try:
                    code = main(list(argv))
                except SystemExit as exc:  # argparse refusing a flag
                    code = exc.code if isinstance(exc.code, int) else 2
        finally:
            os.chdir(old_cwd)
            os.environ.clear()
            os.environ.update(old_env)
        return Outcome(code, out.getvalue(), err.getvalue())

    def check(self, outcome: Outcome, culprits: Sequence[str], case: Path) -> None:
        """Exit 0/1/2, no traceback, an error is one line naming one of ``culprits``, nothing
        outside ``case`` changed."""
        where = f"\nstdout: {outcome.out[-800:]}\nstderr: {outcome.err[-1500:]}"
        assert outcome.code in (0, 1, 2), f"exit {outcome.code}{where}"
        assert "Traceback" not in outcome.err, where
        if outcome.code == 2:
            lines = outcome.error_lines()
            errors = [line for line in lines if "error:" in line]
            assert len(errors) == 1 and len(lines) <= 3, f"not one error line{where}"
            names = [c for c in culprits if c]
            assert not names or any(c in errors[0] for c in names), (
                f"the error names none of {names}{where}"
            )
        assert _snapshot(self.outside) == self.before, f"the sentinel folder changed{where}"
        extra = {p.name for p in self.base.iterdir()} - {"outside"}
        assert all(name.startswith("case") for name in extra), f"made next to the case: {extra}"


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    checkout = checkout_state()
    yield Arena(tmp_path)
    assert checkout_state() == checkout, "the checkout changed"


# ----------------------------------------------------------------------------- values
#: Numbers a user may type by mistake or on purpose: signs, zero, huge, not finite, not numbers.
HOSTILE_NUMBERS = [
    "-1",
    "0",
    "-0",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "1000000000000",
    "18446744073709551616",
    "0.5",
    "1e-300",
    "",
    "x",
    "0x10",
    "1_000",
    " 3 ",
    "3,4",
    "1" + "0" * 400,
]
hostile_number = st.sampled_from(HOSTILE_NUMBERS)


def small_or_hostile(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.one_of(st.integers(lo, hi).map(str), hostile_number)


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.sampled_from([10**400, -(10**12), 2**63, 1e300, -0.0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)
json_tree = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def _json_text(data: Any, duplicate: str | None = None) -> str:
    """JSON text of ``data`` (NaN and Infinity as Python writes them); ``duplicate`` repeats
    that top-level key with the value null (a duplicate key)."""
    text = json.dumps(data, allow_nan=True)
    if duplicate is not None and isinstance(data, dict) and data and text.endswith("}"):
        text = text[:-1] + f", {json.dumps(duplicate)}: null}}"
    return text


# ----------------------------------------------------------------------------- paths
#: Where an input or output path may point, besides a regular file in the example's folder.
PATH_KINDS = [
    "regular",
    "missing",
    "folder",
    "fifo",
    "symlink-to-victim",
    "dangling-symlink",
    "file-as-folder",
    "dotdot",
    "absolute",
    "/dev/zero",
    "/dev/null",
    "/dev/full",
    "/proc/self/status",
    "/proc/schedbench-fuzz/x",
    "empty",
]


def make_path(case: Path, kind: str, name: str, content: bytes | None = None) -> str:
    """Make what ``kind`` names in ``case`` (``content`` the bytes of a regular file; None: no
    file) and return the argument naming it."""
    p = case / name
    if kind == "regular":
        if content is not None:
            p.write_bytes(content)
        return name
    if kind == "missing":
        return f"nowhere/{name}"
    if kind == "folder":
        p.mkdir()
        return name
    if kind == "fifo":
        os.mkfifo(p)
        return name
    if kind == "symlink-to-victim":
        p.symlink_to(case.parent / "outside" / "victim.txt")
        return name
    if kind == "dangling-symlink":
        p.symlink_to(case / "no-such-target")
        return name
    if kind == "file-as-folder":
        (case / "afile").write_text("x")
        return f"afile/{name}"
    if kind == "dotdot":
        (case / "sub").mkdir(exist_ok=True)
        if content is not None:
            p.write_bytes(content)
        return f"sub/../{name}"
    if kind == "absolute":
        if content is not None:
            p.write_bytes(content)
        return str(p)
    if kind == "empty":
        return ""
    return kind  # a device or /proc path, as it is


def culprit_names(arg: str) -> list[str]:
    """Words an error about the path ``arg`` may name it by."""
    if not arg:
        return []
    p = Path(arg)
    return [arg, p.name, os.path.normpath(arg), *(str(q) for q in p.parents if str(q) != ".")]


# ----------------------------------------------------------------------------- PROBLEM.json
#: A valid problem of each kind, the solver that answers it, and keys to mutate.
PROBLEMS: dict[str, tuple[dict[str, Any], str]] = {
    "selection": (
        {
            "kind": "selection",
            "resources": ["nodes", "bb"],
            "capacities": [10, 20],
            "demands": [[1, 2], [3, 4], [5, 6]],
            "objectives": [[1, 1, 1]],
            "must_include": [0],
        },
        "naive",
    ),
    "placement": (
        {
            "kind": "placement",
            "now": 0,
            "cores": 4,
            "runtime": 100,
            "file_gb": 10,
            "bandwidth_gbps": 0.1,
            "free_at": [50, 0],
            "cached": [True, False],
        },
        "placement-earliest",
    ),
    "reservation": (
        {
            "kind": "reservation",
            "now": 0,
            "ready": 0,
            "duration": 10,
            "deadline": 40,
            "n_pe": 2,
            "pes": 3,
            "held": [[0, 20, [0]], [5, 15, [1]]],
        },
        "reservation-first-fit",
    ),
}
#: Keys each kind does not have in its example but reads.
OPTIONAL_KEYS = {
    "selection": ["objective_names", "objective_scales", "name", "meta", "extra"],
    "placement": ["load_s", "evict_s", "w_load", "w_evict", "node_ids", "start_term", "extra"],
    "reservation": ["busy", "name", "meta", "extra"],
}
#: Hostile JSON values that are not random trees: out-of-range numbers and near-misses.
HOSTILE_JSON = [
    -1,
    0,
    10**12,
    10**400,
    1e300,
    float("nan"),
    float("inf"),
    True,
    "3",
    [],
    [[]],
    [-1],
    [10**12],
    [[0, 10**15, [0]]],
    [[0, 10, [10**9]]],
    [[5, 1, [0]]],
    {"a": 1},
]


@st.composite
def problem_texts(draw: st.DrawFn) -> tuple[str, str, str]:
    """(kind, solver, JSON text): a valid problem with one key replaced, removed, added or
    given twice, or a random JSON tree."""
    kind = draw(st.sampled_from(sorted(PROBLEMS)))
    base, solver = PROBLEMS[kind]
    data: Any = json.loads(json.dumps(base))
    how = draw(st.sampled_from(["replace", "remove", "duplicate", "tree"]))
    key = draw(
        st.sampled_from(
            sorted(base)[1:] if how != "replace" else [*sorted(base), *OPTIONAL_KEYS[kind]]
        )
    )
    if how == "tree":
        data = draw(json_tree)
    elif how == "remove":
        del data[key]
    elif how == "replace":
        data[key] = draw(st.one_of(st.sampled_from(HOSTILE_JSON), json_tree))
    return kind, solver, _json_text(data, key if how == "duplicate" else None)


@fuzz(40)
@given(problem=problem_texts())
@example(problem=("reservation", "reservation-first-fit", '{"kind": "reservation"}'))
@example(
    problem=("selection", "naive", '{"capacities": [1], "demands": [[1]], "must_include": [[]]}')
)
@example(
    problem=(
        "placement",
        "placement-earliest",
        '{"kind": "placement", "now": 0, "cores": 4, "runtime": 100, "file_gb": 10, '
        '"bandwidth_gbps": 1' + "0" * 400 + ', "free_at": [50, 0], "cached": [true, false]}',
    )
)
@example(
    problem=(
        "placement",
        "placement-earliest",
        '{"kind": "placement", "now": 0, "cores": 4, "runtime": 100, "file_gb": 10, '
        '"bandwidth_gbps": 0.1, "free_at": [50, 0], "cached": [true, false], "load_s": 1'
        + "0" * 400
        + "}",
    )
)
def test_problem_files_of_every_kind_through_solve(arena, problem):
    _kind, solver, text = problem
    case = arena.folder()
    (case / "p.json").write_text(text, encoding="utf-8")
    outcome = arena.run(["solve", "p.json", "--solver", solver, "--no-isolate"], case)
    arena.check(outcome, ["p.json"], case)
    if outcome.code == 0:
        assert json.loads(outcome.out)["status"] in ("optimal", "feasible", "timeout")


# ----------------------------------------------------------------------------- solve's flags
SOLVE_FLAGS = {
    "--budget": small_or_hostile(1, 3),
    "--seed": small_or_hostile(0, 5),
    "--indent": small_or_hostile(0, 4),
    "--memory-limit": st.one_of(
        hostile_number, st.sampled_from(["off", "50%", "0%", "101%", "8G", "1K", "-1G", "1e300G"])
    ),
    "--set": st.one_of(
        st.sampled_from(["population=", "=3", "x", "seed=1", "population=2"]),
        st.tuples(st.sampled_from(["population", "generations", "seed", "zz"]), hostile_number).map(
            "=".join
        ),
    ),
    "--solver": st.sampled_from(
        ["ga", "dp", "nope", "../x:Foo", "os:system", "x:", ":", "naive[seed=1]", "naive "]
    ),
}


@fuzz(30)
@given(
    flags=st.lists(
        st.sampled_from(sorted(SOLVE_FLAGS)).flatmap(
            lambda f: st.tuples(st.just(f), SOLVE_FLAGS[f])
        ),
        min_size=1,
        max_size=3,
    ),
    path_kind=st.sampled_from(PATH_KINDS),
)
@example(flags=[("--indent", "1000000000000")], path_kind="regular")
@example(flags=[("--memory-limit", "")], path_kind="regular")
def test_solve_flags_and_problem_paths(arena, flags, path_kind):
    case = arena.folder()
    good = json.dumps(PROBLEMS["selection"][0]).encode()
    problem = make_path(case, path_kind, "p.json", good)
    argv = ["solve", problem, "--no-isolate"]
    if not any(f == "--solver" for f, _ in flags):
        argv += ["--solver", "naive"]
    for flag, value in flags:
        argv.append(f"{flag}={value}")
    outcome = arena.run(argv, case)
    names = [*culprit_names(problem), "problem", "solver", *(f for f, _ in flags)]
    names += [f.strip("-").replace("-", " ") for f, _ in flags]  # "memory limit"
    names += [part for _, v in flags for part in (v, v.split("=")[0])]
    arena.check(outcome, names, case)


# ----------------------------------------------------------------------------- workload specs
def _kv(keys: list[str], value: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(st.sampled_from(keys), value).map(lambda kv: f"{kv[0]}={kv[1]}")
    return st.lists(pair, max_size=3).map(",".join)


#: Generators with small valid sizes (jobs always given: the default is thousands).
spec_source = st.one_of(
    st.tuples(
        small_or_hostile(1, 30),
        _kv(["nodes", "seed", "umed", "model", "zz"], small_or_hostile(1, 64)),
    ).map(lambda t: f"lublin:jobs={t[0]}" + (f",{t[1]}" if t[1] else "")),
    st.sampled_from(
        ["lublin:", "lublin", "", " ", "+", "lublin:jobs=5,jobs=6", "kth-sp2/x", "../x.swf"]
    ),
)
spec_transform = st.one_of(
    st.tuples(
        st.sampled_from(["S1", "S4", "S9", "", "s2"]), _kv(["seed", "zz"], small_or_hostile(0, 3))
    ).map(lambda t: f"bbsched:{t[0]}" + (f",{t[1]}" if t[1] else "")),
    small_or_hostile(1, 3).map("arrivals:{}".format),
    small_or_hostile(1, 3).map("bbscale:{}".format),
    small_or_hostile(1, 20).map("head:{}".format),
    _kv(["nodes", "bb", "system", "warmup", "cooldown", "zz"], hostile_number).map(
        "load:{}".format
    ),
    st.sampled_from(["", "teleport:3", "head", "load:", "arrivals:1:2"]),
)
workload_specs = st.tuples(spec_source, st.lists(spec_transform, max_size=2)).map(
    lambda t: "+".join([t[0], *t[1]])
)
SIMULATE_FLAGS = {
    "--window": small_or_hostile(0, 5),
    "--starvation-bound": small_or_hostile(0, 5),
    "--warmup": small_or_hostile(0, 5),
    "--cooldown": small_or_hostile(0, 5),
    "--seed": small_or_hostile(0, 5),
    "--budget": small_or_hostile(1, 2),
    "--system": st.sampled_from(
        ["theta", "moon", "locality", "ar:4", "ar:-1", "locality:0", "/dev/zero", "", "x.toml"]
    ),
    "--option": st.sampled_from(["mode=paper", "=", "x=1", "window=-1", "profile=cqsim", "a"]),
    "--policy": st.sampled_from(["naive", "window", "eft", "ff", "os:system", "../x:Y", ""]),
}


@fuzz(25)
@given(
    spec=workload_specs,
    flags=st.lists(
        st.sampled_from(sorted(SIMULATE_FLAGS)).flatmap(
            lambda f: st.tuples(st.just(f), SIMULATE_FLAGS[f])
        ),
        max_size=2,
    ),
)
@example(spec="lublin:jobs=5+head:-5", flags=[])
@example(spec="lublin:", flags=[("--budget", "1e300")])
@example(spec="lublin:", flags=[("--policy", "")])
def test_workload_specs_and_simulate_flags(arena, spec, flags):
    case = arena.folder()
    argv = ["simulate", f"--workload={spec}", "--out", "out", "--no-progress"]
    if not any(f == "--system" for f, _ in flags):
        argv += ["--system", "theta"]
    argv += [f"{flag}={value}" for flag, value in flags]
    outcome = arena.run(argv, case)
    names = ["workload", spec, "--system", *(f for f, _ in flags)]
    names += [part for _, v in flags for part in (v, v.split("=")[0])]
    names += [part.split(":")[0] for part in spec.split("+")]
    arena.check(outcome, names, case)
    if outcome.code == 0:
        assert (case / "out" / "metrics.json").is_file()


# ----------------------------------------------------------------------------- SWF, SWF.gz
SWF_TOKEN = st.one_of(
    st.integers(-(10**13), 10**13).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    hostile_number,
)


def _swf_line(job: int, submit: int, run: int, procs: int) -> list[str]:
    return f"{job} {submit} -1 {run} {procs} -1 -1 {procs} 3600 -1 1 1 1 -1 -1 -1 -1 -1".split()


@st.composite
def swf_bytes(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, bytes): a small SWF log with one field or header mutated, plain or gzipped
    (or a broken gzip)."""
    header = draw(
        st.lists(
            st.sampled_from(
                [
                    "; MaxNodes: 64",
                    "; MaxProcs: 64",
                    "; MaxNodes: 1e30",
                    "; MaxNodes: -1",
                    "; MaxNodes: x",
                    "; UnixStartTime: 1e300",
                    ";",
                    "",
                ]
            ),
            max_size=2,
        )
    )
    lines = [_swf_line(1, 0, 10, 2), _swf_line(2, 5, 100, 4), _swf_line(3, 9, 50, 1)]
    row = draw(st.integers(0, 2))
    field = draw(st.integers(0, 19))
    token = draw(SWF_TOKEN)
    if field < 18:
        lines[row][field] = token
    elif field == 18:
        lines[row].append(token)
    else:
        del lines[row][draw(st.integers(0, 17))]
    text = "\n".join([*header, *(" ".join(line) for line in lines)]) + "\n"
    raw = text.encode()
    form = draw(st.sampled_from(["plain", "gzip", "broken-gzip", "truncated-gzip", "binary"]))
    if form == "plain":
        return "w.swf", raw
    if form == "gzip":
        return "w.swf.gz", gzip.compress(raw)
    if form == "truncated-gzip":
        return "w.swf.gz", gzip.compress(raw)[: draw(st.integers(1, 30))]
    if form == "broken-gzip":
        return "w.swf.gz", b"\x1f\x8b\x08\x00" + draw(st.binary(max_size=40))
    return "w.swf", draw(st.binary(min_size=1, max_size=60))


@fuzz(25)
@given(swf=swf_bytes(), system=st.sampled_from([None, "theta", "ar", "locality"]))
def test_swf_logs_through_simulate(arena, swf, system):
    name, data = swf
    case = arena.folder()
    (case / name).write_bytes(data)
    argv = ["simulate", "--workload", name, "--out", "out", "--no-progress"]
    if system:
        argv += ["--system", system]
    outcome = arena.run(argv, case)
    arena.check(outcome, [name, "MaxNodes", "MaxProcs", "--system"], case)


# ----------------------------------------------------------------------------- locality files
LOCALITY_LINE = (
    "{ id: 1 subtime: 0 delay: 200 walltime: 300 cores: 4 user: u1 data: 1 "
    "data_size: 1.000000 workload: 0 start_time_from_history: 0 start_node_from_history: 1 }"
)


@st.composite
def locality_text(draw: st.DrawFn) -> str:
    lines = [
        LOCALITY_LINE.split(),
        LOCALITY_LINE.replace("id: 1", "id: 2").replace("subtime: 0", "subtime: 60").split(),
    ]
    row = draw(st.integers(0, 1))
    pos = draw(st.sampled_from([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 1, 0, 23]))
    lines[row][pos] = draw(st.one_of(SWF_TOKEN, st.sampled_from(["{", "}", "id:", "u2"])))
    if draw(st.booleans()):
        del lines[row][draw(st.integers(0, 23))]
    return "\n".join(" ".join(line) for line in lines) + "\n"


@fuzz(20)
@given(text=locality_text(), policy=st.sampled_from(["eft", "lea"]))
@example(text=LOCALITY_LINE + "\n", policy="eft")  # no evaluated job: named at load
@example(text=LOCALITY_LINE.replace("cores: 4", "cores: 18446744073709551616"), policy="eft")
def test_locality_workloads_through_simulate(arena, text, policy):
    case = arena.folder()
    (case / "w.txt").write_text(text)
    outcome = arena.run(
        ["simulate", "--workload", "w.txt", "--policy", policy, "--out", "out", "--no-progress"],
        case,
    )
    arena.check(outcome, ["w.txt"], case)


# ----------------------------------------------------------------------------- jobs.csv
@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny simulation's output folder (jobs.csv, metrics.json, usage.csv)."""
    from schedbench.bench.cli import main

    out = tmp_path_factory.mktemp("run") / "out"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(
            ["simulate", "--workload", "lublin:jobs=8,nodes=16,seed=1", "--system", "theta",
             "--out", str(out), "--no-progress"]
        )  # fmt: skip
    assert code == 0 and (out / "jobs.csv").is_file()
    return out


@st.composite
def csv_mutation(draw: st.DrawFn) -> tuple[str, int, int, str]:
    """(file, row, column, new text) for one cell of jobs.csv / usage.csv (row 0 the header),
    or metrics.json replaced by a JSON tree."""
    target = draw(st.sampled_from(["jobs.csv", "jobs.csv", "usage.csv", "metrics.json"]))
    if target == "metrics.json":
        return target, 0, 0, json.dumps(draw(json_tree), allow_nan=True)
    token = draw(
        st.one_of(SWF_TOKEN, st.sampled_from(['"', "a,b", "\x00", "\n", "", "-", "status"]))
    )
    return target, draw(st.integers(0, 4)), draw(st.integers(0, 12)), token


@fuzz(6)
@given(mutation=csv_mutation(), picture=st.sampled_from(["gantt", "usage"]))
@example(mutation=("usage.csv", 1, 1, "inf"), picture="usage")
@example(mutation=("usage.csv", 1, 1, "41008124786.0"), picture="gantt")  # 38 GiB of node slots
@example(mutation=("jobs.csv", 1, 4, "1e300"), picture="gantt")
@example(mutation=("jobs.csv", 1, 3, "\n"), picture="gantt")
@example(mutation=("jobs.csv", 0, 5, '"'), picture="usage")  # no job row left
@example(mutation=("jobs.csv", 1, 11, "18446744073709551616"), picture="gantt")
def test_run_files_through_plot(arena, run_folder, mutation, picture):
    target, row, column, token = mutation
    case = arena.folder()
    run = case / "run"
    shutil.copytree(run_folder, run)
    if target == "metrics.json":
        (run / target).write_text(token)
    else:
        lines = (run / target).read_text().splitlines()
        if row < len(lines):
            cells = lines[row].split(",")
            cells[min(column, len(cells) - 1)] = token
            lines[row] = ",".join(cells)
        (run / target).write_text("\n".join(lines) + "\n")
    outcome = arena.run(["plot", picture, "run", "--out", "g.png"], case)
    arena.check(outcome, ["run", target], case)
    if outcome.code == 0:
        assert (case / "g.png").stat().st_size > 0


# ----------------------------------------------------------------------------- suite TOML
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return (
            "nan"
            if v != v
            else ("inf" if v == float("inf") else "-inf" if v == -float("inf") else repr(v))
        )
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v if x is not None) + "]"
    if isinstance(v, dict):
        items = (
            f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(x)}"
            for k, x in v.items()
            if x is not None
        )
        return "{" + ", ".join(items) + "}"
    raise TypeError(type(v))


def toml_text(data: dict[str, Any]) -> str:
    """A suite dict as TOML: ``suite`` a table, the others arrays of tables (null values
    dropped: TOML has none)."""
    out = []
    for table, body in data.items():
        rows = [body] if isinstance(body, dict) else body
        for row in rows:
            out.append(f"[{table}]" if isinstance(body, dict) else f"[[{table}]]")
            out += [
                f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(v)}"
                for k, v in row.items()
                if v is not None
            ]
    return "\n".join(out) + "\n"


SUITE_NAMES = ["/abs/x", "a/b", "..", ".", "a\x00b", "", " ", "x" * 300, "ok-name", "résumé", "-x"]


@st.composite
def suite_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """A valid suite (decision cells and a simulation) with one key of one table replaced by a
    hostile value or a random tree, or removed, or a random key added."""
    data: dict[str, Any] = {
        "suite": {"name": "fuzz", "budget_s": 1, "repetitions": 1, "seed": 0},
        "instances": [{"family": "t", "source": "theta-window", "w": 5, "seeds": 1}],
        "solvers": [{"name": "naive"}],
        "simulations": [
            {"name": "s", "workload": "lublin:jobs=10,nodes=64,seed=1", "system": "theta",
             "policies": ["naive"], "window": 5}
        ],
    }  # fmt: skip
    table = draw(st.sampled_from(sorted(data)))
    target = data[table] if table == "suite" else data[table][0]
    key = draw(
        st.sampled_from(
            [
                *sorted(target),
                "source",
                "paths",
                "path",
                "params",
                "reference",
                "families",
                "isolate",
                "zz",
            ]
        )
    )
    how = draw(st.sampled_from(["hostile", "tree", "remove", "name"]))
    if how == "remove":
        target.pop(key, None)
    elif how == "name":
        data["suite"]["name"] = draw(st.sampled_from(SUITE_NAMES))
    elif how == "hostile":
        target[key] = draw(
            st.sampled_from(
                [
                    *HOSTILE_JSON,
                    "/dev/zero",
                    "../../outside/victim.txt",
                    "*",
                    "os:system",
                    "naive[seed=-1]",
                ]
            )
        )
    else:
        target[key] = draw(json_tree)
    if draw(st.booleans()):
        del data[draw(st.sampled_from(["instances", "solvers", "simulations"]))]
    return data


RUN_FLAGS = {
    "--workers": small_or_hostile(1, 2),
    "--max-cells": small_or_hostile(1, 50),
    "--max-window": small_or_hostile(1, 50),
    "--memory-limit": st.sampled_from(["off", "50%", "0", "-1G", "x", "1e300G"]),
    "--executor": st.sampled_from(["local", "dask", "mpi", ""]),
    "--scheduler": st.sampled_from(["tcp://127.0.0.1", "x:y:z", "", "tcp://[::1]:99999"]),
    "--only": st.sampled_from(["decision", "simulation", "both"]),
    "--resume": st.just(None),
    "--force": st.just(None),
}


@fuzz(30)
@given(
    suite=suite_dicts(),
    run=st.sampled_from(["--plan", "--plan", "--plan", "run"] if DEEP else ["--plan"]),
    flags=st.lists(
        st.sampled_from(sorted(RUN_FLAGS)).flatmap(lambda f: st.tuples(st.just(f), RUN_FLAGS[f])),
        max_size=2,
    ),
)
@example(suite={"suite": {"name": "/abs/x"}}, run="--plan", flags=[])
@example(
    suite={"suite": {"name": "f"}, "solvers": [{"name": "naive", "families": [[]]}]},
    run="--plan",
    flags=[],
)
@example(suite={"suite": {"name": "a\x00b"}}, run="--plan", flags=[])
def test_suite_keys_and_run_flags(arena, suite, run, flags):
    case = arena.folder()
    (case / "s.toml").write_text(toml_text(suite), encoding="utf-8")
    argv = ["run", "s.toml", "--no-progress"] + (["--plan"] if run == "--plan" else [])
    argv += [f if v is None else f"{f}={v}" for f, v in flags]
    outcome = arena.run(argv, case)
    names = ["s.toml", *(f for f, _ in flags), *(v for _, v in flags if v)]
    arena.check(outcome, names, case)
    if outcome.code == 0 and run != "--plan":
        assert list((case / "results").glob("*.sqlite"))


# ----------------------------------------------------------------------------- output paths
@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.bench.test_report import build_store, decision_rows

    p = tmp_path_factory.mktemp("store") / "st.sqlite"
    build_store(p, decision_rows())
    return p


TINY_SUITE = (
    '[suite]\nname = "tiny"\nbudget_s = 1\n[[instances]]\nfamily = "t"\nsource = "theta-window"\n'
    'w = 4\nseeds = 1\n[[solvers]]\nname = "naive"\n'
)
#: Commands with an output path, and the flag that names it.
OUTPUT_COMMANDS = {
    "simulate --out": ["simulate", "--workload", "lublin:jobs=6,nodes=16,seed=1", "--system", "theta", "--no-progress", "--out"],
    "simulate --record-decisions": ["simulate", "--workload", "lublin:jobs=6,nodes=16,seed=1", "--system", "theta", "--no-progress", "--solver", "naive", "--out", "out", "--record-decisions"],
    "report --export-csv": ["report", "st.sqlite", "--export-csv"],
    "report --html": ["report", "st.sqlite", "--html"],
    "run --store": ["run", "s.toml", "--no-progress", "--store"],
    "run --html": ["run", "s.toml", "--no-progress", "--html"],
    "plot --out": ["plot", "usage", "run", "--out"],
}  # fmt: skip
#: Those that take seconds to write what they write (drawn only under ``make test-deep``).
SLOW_OUTPUTS = {"report --html", "run --store", "run --html", "plot --out"}


@fuzz(12)
@given(
    command=st.sampled_from(sorted(c for c in OUTPUT_COMMANDS if DEEP or c not in SLOW_OUTPUTS)),
    kind=st.sampled_from(PATH_KINDS),
)
@example(command="report --export-csv", kind="symlink-to-victim")
@example(command="report --html", kind="fifo")
@example(command="run --store", kind="symlink-to-victim")
@example(command="run --html", kind="/dev/zero")
@example(command="plot --out", kind="file-as-folder")
def test_output_paths_of_every_command(arena, store_file, run_folder, command, kind):
    case = arena.folder()
    shutil.copy(store_file, case / "st.sqlite")
    (case / "s.toml").write_text(TINY_SUITE)
    shutil.copytree(run_folder, case / "run")
    target = make_path(case, kind, "o.out", b"old output\n")
    argv = [*OUTPUT_COMMANDS[command], target]
    outcome = arena.run(argv, case)
    flag = command.split()[1]
    arena.check(outcome, [*culprit_names(target), flag], case)
    if kind == "symlink-to-victim":
        assert outcome.code == 2  # never written through a link


# ----------------------------------------------------------------------------- table, compare, data
TABLE_FLAGS = {
    "--budget": small_or_hostile(1, 2),
    "--seed": small_or_hostile(0, 5),
    "--solver": st.sampled_from(["naive", "dp", "nope", "../x:Foo", "os:system", "", "naive[x=1]"]),
}
COMPARE_FLAGS = {
    "--fail": st.one_of(
        st.sampled_from(["quality:5", "latency_p50:", ":5", "nope:1", "quality", "quality:x"]),
        hostile_number.map(lambda v: f"quality:{v}"),
    ),
    "--latency-noise-pct": hostile_number,
    "--latency-noise-ms": hostile_number,
    "--suite": st.sampled_from(["tiny", "", "nope", "../x"]),
}


def _flag_lists(table: dict[str, st.SearchStrategy[str]]) -> st.SearchStrategy[list]:
    return st.lists(
        st.sampled_from(sorted(table)).flatmap(lambda f: st.tuples(st.just(f), table[f])),
        min_size=1,
        max_size=3,
    )


@fuzz(15)
@given(flags=_flag_lists(TABLE_FLAGS), path_kind=st.sampled_from(PATH_KINDS))
def test_table_flags_and_problem_paths(arena, flags, path_kind):
    case = arena.folder()
    problem = make_path(case, path_kind, "p.json", json.dumps(PROBLEMS["selection"][0]).encode())
    argv = ["table", problem, *(f"{flag}={value}" for flag, value in flags)]
    if not any(f == "--solver" for f, _ in flags):
        argv.append("--solver=naive")
    outcome = arena.run(argv, case)
    names = [*culprit_names(problem), "problem", "solver", *(f for f, _ in flags)]
    names += [part for _, v in flags for part in (v, v.split(":")[0])]
    arena.check(outcome, names, case)


@fuzz(15)
@given(
    flags=_flag_lists(COMPARE_FLAGS),
    base_kind=st.sampled_from(PATH_KINDS),
    head_kind=st.sampled_from(["regular", "missing", "folder", "empty"]),
)
def test_compare_flags_and_store_paths(arena, store_file, flags, base_kind, head_kind):
    case = arena.folder()
    base = make_path(case, base_kind, "base.sqlite", store_file.read_bytes())
    head = make_path(case, head_kind, "head.sqlite", store_file.read_bytes())
    outcome = arena.run(["compare", base, head, *(f"{f}={v}" for f, v in flags)], case)
    names = [*culprit_names(base), *culprit_names(head), "store", *(f for f, _ in flags)]
    names += [part for _, v in flags for part in (v, v.split(":")[0])]
    arena.check(outcome, names, case)


@fuzz(10)
@given(
    argv=st.one_of(
        st.tuples(
            st.sampled_from(["show", "path"]),
            st.sampled_from(
                [
                    "kth-sp2",
                    "nope",
                    "",
                    "../etc",
                    "/etc/passwd",
                    "kth-sp2/nope",
                    "kth-sp2/../x",
                    "a\tb",
                ]
            ),
        ).map(list),
        st.sampled_from([["--verify"], ["nope"], ["show"], ["fetch"], ["fetch", "nope"]]),
    )
)
def test_data_actions_and_names(arena, argv):
    case = arena.folder()
    outcome = arena.run(["data", *argv], case)
    arena.check(outcome, [*argv, "dataset", "data"], case)


# ----------------------------------------------------------------------------- reproduce
#: Values no count option may accept (a valid one would start a reproduction: minutes).
BAD_COUNTS = [
    "-1",
    "0",
    "-0",
    "1e300",
    "nan",
    "inf",
    "1000000000000",
    "1" + "0" * 400,
    "x",
    "",
    "0.5",
]
REPRODUCE_FLAGS = {
    "ar": ["--seeds", "--jobs", "--workers"],
    "bbsched": ["--jobs", "--workers"],
}


@fuzz(20)
@given(
    paper_flag=st.sampled_from([(p, f) for p, flags in REPRODUCE_FLAGS.items() for f in flags]),
    value=st.sampled_from(BAD_COUNTS),
)
@example(paper_flag=("ar", "--seeds"), value="1000000000000")
def test_reproduce_refuses_bad_counts_before_running(arena, paper_flag, value):
    paper, flag = paper_flag
    case = arena.folder()
    outcome = arena.run(["reproduce", paper, "--quick", f"{flag}={value}", "--out", "o"], case)
    arena.check(outcome, [flag, value, "workers", "jobs"], case)
    assert outcome.code == 2, outcome.err


@fuzz(10)
@given(
    seeds=st.sampled_from(["0-100000000", "5-1", "-1", "", ",", "0,0", "x-y", "0-999,1000-1999"])
)
def test_reproduce_bbsched_refuses_bad_seed_lists(arena, seeds):
    case = arena.folder()
    outcome = arena.run(["reproduce", "bbsched", "--quick", f"--seeds={seeds}", "--out", "o"], case)
    arena.check(outcome, ["--seeds", seeds], case)
    assert outcome.code == 2, outcome.err
