"""Fuzzing the inputs a user hands us: "a clear error or a valid result, never a
traceback, a hang or nonsense".

Each input kind has (a) the bad inputs an audit found, as regression cases, and (b) a hypothesis
property over mutated inputs. hypothesis runs derandomised in the default pass
(tests/conftest.py); `make test-deep` draws many more random examples.
"""

from __future__ import annotations

import faulthandler
import gzip
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.instances.problem_files import load_problem
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.kinds.selection.problem import SelectionProblem

# ----------------------------------------------------------------------------- PROBLEM.json
GOOD_PROBLEM = {"capacities": [10, 20], "demands": [[1, 2], [3, 4], [5, 6]]}

BAD_PROBLEMS = {
    "resources is a number": {**GOOD_PROBLEM, "resources": 5},
    "resources is a string": {**GOOD_PROBLEM, "resources": "ab"},
    "objective_names is a number": {**GOOD_PROBLEM, "objective_names": 7},
    "objective_names holds numbers": {**GOOD_PROBLEM, "objective_names": [1, 2]},
    "capacity beyond float64": {**GOOD_PROBLEM, "capacities": [10, 10**400]},
    "negative demand": {**GOOD_PROBLEM, "demands": [[1, -2], [3, 4], [5, 6]]},
    "ragged demands": {**GOOD_PROBLEM, "demands": [[1, 2], [3], [5, 6]]},
    "boolean capacity": {**GOOD_PROBLEM, "capacities": [True, 20]},
    "must_include out of range": {**GOOD_PROBLEM, "must_include": [7]},
    "top level is a list": [1, 2, 3],
    "unknown kind": {**GOOD_PROBLEM, "kind": "placement-of-doom"},
}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("case", sorted(BAD_PROBLEMS))
def test_bad_problem_json_gets_a_clear_error(tmp_path, case):
    p = _write(tmp_path, "p.json", json.dumps(BAD_PROBLEMS[case]))
    with pytest.raises(SchedbenchError) as info:
        load_problem(p)
    assert str(p) in str(info.value)
    assert len(str(info.value)) < 400  # quotes the offending key, not the whole input


@pytest.mark.parametrize(
    "text",
    [
        '{"capacities": [1, 1' + "0" * 5000 + '], "demands": [[1, 1]]}',  # 5,000-digit integer
        '{"capacities": ' + "[" * 100_000 + "]" * 100_000 + ', "demands": [[1]]}',  # deep nesting
        "\x00\x01 not json",
    ],
    ids=["huge-integer", "deep-nesting", "binary"],
)
def test_hostile_problem_text_gets_a_clear_error(tmp_path, text):
    p = _write(tmp_path, "p.json", text)
    with pytest.raises(SchedbenchError) as info:
        load_problem(p)
    assert str(p) in str(info.value) and len(str(info.value)) < 400


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)
json_value = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def mutated_problems(draw: st.DrawFn) -> Any:
    """A valid problem with one key replaced, added or removed."""
    data: dict[str, Any] = {
        "capacities": [10, 20],
        "demands": [[1, 2], [3, 4], [5, 6]],
        "objectives": [[1, 1, 1]],
        "must_include": [0],
        "resources": ["nodes", "bb"],
    }
    key = draw(
        st.sampled_from(
            [*data, "objective_names", "objective_scales", "kind", "meta", "name", "extra"]
        )
    )
    if draw(st.booleans()) and key in data:
        del data[key]
    else:
        data[key] = draw(json_value)
    return data


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated_problems())
def test_mutated_problem_json_is_an_error_or_a_valid_problem(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("fuzz") / "p.json"
    p.write_text(json.dumps(data))
    try:
        problem = load_problem(p)
    except SchedbenchError as exc:
        assert str(p) in str(exc)
        return
    assert isinstance(problem, SelectionProblem)
    # A problem that loads round-trips and is internally consistent.
    again = SelectionProblem.from_dict(json.loads(json.dumps(problem.to_dict())))
    assert again.fingerprint() == problem.fingerprint()
    assert len(problem.resources) == problem.K and problem.demands.shape == (problem.w, problem.K)


# ----------------------------------------------------------------------------- suite TOML
from schedbench.bench.run.runner import plan  # noqa: E402
from schedbench.bench.suite import Limits, SuiteError, load_suite, suite_from_dict  # noqa: E402

SUITE_HEAD = '[suite]\nname = "fuzz"\nbudget_s = 1\n'
WINDOWS = SUITE_HEAD + (
    '[[instances]]\nfamily = "t"\nsource = "theta-window"\nw = 5\nseeds = 1\n{extra}\n'
    '[[solvers]]\nname = "naive"\n'
)
SIMS = SUITE_HEAD + (
    '[[simulations]]\nname = "s"\nworkload = "lublin:jobs=20,nodes=64,seed=1"\n'
    'system = "theta"\npolicies = ["naive"]\n{extra}\n'
)

BAD_SUITES = {
    # keys that used to reach the generators unchecked (tracebacks)
    "free_range not a range": WINDOWS.format(extra='free_range = "x"'),
    "free_range reversed": WINDOWS.format(extra="free_range = [0.9, 0.1]"),
    "max_bb_gb a string": WINDOWS.format(extra='max_bb_gb = "big"'),
    "max_bb_gb 2^64": WINDOWS.format(extra="max_bb_gb = 18446744073709551616"),
    "max_bb_gb below 1 GB": WINDOWS.format(extra="max_bb_gb = 0.5"),
    "min_nodes a float": WINDOWS.format(extra="min_nodes = 2.5"),
    "paths holds a number": SUITE_HEAD
    + '[[instances]]\nfamily = "p"\nsource = "problem-files"\npaths = [1]\n'
    '[[solvers]]\nname = "naive"\n',
    "objective unknown": SUITE_HEAD
    + '[[instances]]\nfamily = "c"\nsource = "cerberus-stage"\nw = 5\nobjective = "fun"\n'
    '[[solvers]]\nname = "naive"\n',
    # silent nonsense values
    "bb_share above 1": WINDOWS.format(extra="bb_share = 5"),
    "bb_share nan": WINDOWS.format(extra="bb_share = nan"),
    "bb_share negative": WINDOWS.format(extra="bb_share = -1"),
    "min_nodes negative": WINDOWS.format(extra="min_nodes = -3"),
    "min_nodes above the generator's range": WINDOWS.format(extra="min_nodes = 4097"),
    "seeds of booleans": WINDOWS.replace("seeds = 1", "seeds = [true]").format(extra=""),
    "a negative seed": WINDOWS.replace("seeds = 1", "seeds = [-1]").format(extra=""),
    "cooldown infinite": SIMS.format(extra="cooldown_s = inf"),
    "warmup nan": SIMS.format(extra="warmup_s = nan"),
    "empty policies": SIMS.replace('policies = ["naive"]', "policies = []").format(extra=""),
    "duplicate simulation names": SIMS.format(extra="")
    + '[[simulations]]\nname = "s"\nworkload = "lublin:jobs=20,nodes=64,seed=1"\n'
    'system = "theta"\npolicies = ["naive"]\n',
    # unbounded work
    "window of a billion": WINDOWS.replace("w = 5", "w = 1000000000").format(extra=""),
    "a billion seeds": WINDOWS.replace("seeds = 1", "seeds = 1000000000").format(extra=""),
    "a million-cell grid": WINDOWS.replace("w = 5", "w = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]")
    .replace("seeds = 1", "seeds = 9000")
    .format(extra="bb_share = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]"),
}


@pytest.mark.parametrize("case", sorted(BAD_SUITES))
def test_bad_suite_values_get_a_clear_error_at_load(tmp_path, case):
    p = _write(tmp_path, "s.toml", BAD_SUITES[case])
    with pytest.raises(SuiteError) as info:
        load_suite(p)
    assert str(p) in str(info.value) and len(str(info.value)) < 600


def test_limits_can_be_raised_explicitly(tmp_path):
    p = _write(tmp_path, "s.toml", WINDOWS.replace("w = 5", "w = 300").format(extra=""))
    with pytest.raises(SuiteError, match="--max-window"):
        load_suite(p, limits=Limits(max_window=200))
    assert load_suite(p, limits=Limits(max_window=300)).name == "fuzz"


@pytest.mark.parametrize(
    "content, words",
    [
        (b"\xff\xfe[suite]\n", "UTF-8"),
        (b"[suite\n", "valid TOML"),
        (b"[suite]\nname = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested"),
    ],
    ids=["not-utf8", "bad-toml", "deep-nesting"],
)
def test_unreadable_suite_files_get_a_clear_error(tmp_path, content, words):
    p = tmp_path / "s.toml"
    p.write_bytes(content)
    with pytest.raises(SuiteError, match=words):
        load_suite(p)


def test_a_directory_is_not_a_suite(tmp_path):
    with pytest.raises(SuiteError, match="not a directory"):
        load_suite(tmp_path)


def test_errors_never_quote_files_outside_the_suite_folder(tmp_path):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-LINE\n")
    suite_dir = tmp_path / "suite"
    suite_dir.mkdir()
    for source in ("mknap", "zitzler-thiele", "recorded"):
        text = (
            SUITE_HEAD + f'[[instances]]\nfamily = "x"\nsource = "{source}"\n'
            'path = "../outside/secret.txt"\n[[solvers]]\nname = "naive"\n'
        )
        p = _write(suite_dir, "s.toml", text)
        try:
            plan(load_suite(p))
        except SuiteError as exc:
            assert "TOP-SECRET" not in str(exc)
        else:  # pragma: no cover - the file is not a valid instance file
            raise AssertionError(f"{source}: a non-instance file was accepted")


@st.composite
def mutated_suites(draw: st.DrawFn) -> dict[str, Any]:
    """A valid suite (windows + one simulation) with one key replaced or removed."""
    data: dict[str, Any] = {
        "suite": {"name": "fuzz", "budget_s": 1, "repetitions": 1, "seed": 0},
        "instances": [
            {"family": "t", "source": "theta-window", "w": 5, "seeds": 1, "bb_share": 0.5},
        ],
        "solvers": [{"name": "naive"}],
        "simulations": [
            {
                "name": "s",
                "workload": "lublin:jobs=20,nodes=64,seed=1",
                "system": "theta",
                "policies": ["naive"],
                "window": 5,
            }
        ],
    }
    table = draw(st.sampled_from(["suite", "instances", "solvers", "simulations"]))
    target = data[table] if table == "suite" else data[table][0]
    key = draw(
        st.sampled_from(
            [
                *sorted(target),
                "free_range",
                "max_bb_gb",
                "min_nodes",
                "cooldown_s",
                "warmup_s",
                "params",
            ]
        )
    )
    if draw(st.booleans()) and key in target:
        del target[key]
    else:
        target[key] = draw(json_value.filter(lambda v: v is not None))
    return data


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=mutated_suites())
def test_mutated_suites_are_an_error_or_a_plannable_suite(data):
    try:
        suite = suite_from_dict(data, limits=Limits(max_window=200, max_cells=500))
    except SuiteError:
        return
    _instances, dcells, scells = plan(suite)
    assert len(dcells) + len(scells) <= 500


@pytest.mark.parametrize(
    "workload, system, words",
    [
        ("lublin:jobz=20,nodes=64", "theta", "workload"),
        ("lublin:jobs=20,nodes=64,colour=3", "theta", "unknown key 'colour'"),
        ("lublin:jobs=20+bbsched:S9", "theta", "S1"),
        ("lublin:jobs=20+arrivals:fast", "theta", "expected a number"),
        ("lublin:jobs=20+teleport:3", "theta", "unknown"),
        ("no/such/trace.swf", "theta", "no such file"),
        ("lublin:jobs=20", "moon", "unknown system"),
        ("lublin:jobs=20", "no-such-machine.toml", "no such machine file"),
    ],
)
def test_bad_simulation_specs_fail_at_plan(tmp_path, workload, system, words):
    text = SIMS.replace('"lublin:jobs=20,nodes=64,seed=1"', f'"{workload}"').replace(
        'system = "theta"', f'system = "{system}"'
    )
    p = _write(tmp_path, "s.toml", text.format(extra=""))
    with pytest.raises(SuiteError, match=words):
        load_suite(p)


# ----------------------------------------------------------------------------- SWF
from schedbench.instances.swf import read_swf  # noqa: E402


def _swf_line(job: int, submit: object, run: object, procs: object, req: object = 3600) -> str:
    return f"{job} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 -1 -1 -1 -1 -1"


BAD_SWF = {
    "MaxNodes 1e30": "; MaxNodes: 1e30\n" + _swf_line(1, 0, 10, 2) + "\n",
    "submit 1e300": _swf_line(1, 0, 10, 2) + "\n" + _swf_line(2, "1e300", 10, 2) + "\n",
    "runtime 1e300": _swf_line(1, 0, "1e300", 2) + "\n",
    "a trillion processors": _swf_line(1, 0, 10, 10**12) + "\n",
    "a 4 MB line": _swf_line(1, 0, 10, 2) + " 1" * 2_000_000 + "\n" + _swf_line(2, 1, 10, 2),
    "NaN runtime": _swf_line(1, 0, "nan", 2) + "\n",
    "text in a field": _swf_line(1, 0, "ten", 2) + "\n",
}


@pytest.mark.parametrize("case", sorted(BAD_SWF))
def test_bad_swf_gets_an_error_naming_the_line(tmp_path, case):
    p = _write(tmp_path, "t.swf", BAD_SWF[case])
    with pytest.raises(SchedbenchError) as info:
        read_swf(p)
    message = str(info.value)
    assert f"{p}:" in message and len(message) < 400


swf_token = st.one_of(
    st.integers(-(10**15), 10**15).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["-1", "0", "1e300", "x", "1_000", "", ";", "0x10"]),
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    field=st.integers(0, 19),
    token=swf_token,
    extra_lines=st.lists(st.sampled_from(["; MaxProcs: 64", "", "   ", "; note"]), max_size=3),
)
def test_mutated_swf_is_an_error_or_a_valid_workload(tmp_path_factory, field, token, extra_lines):
    fields = _swf_line(2, 5, 100, 4).split()
    if field < len(fields):
        fields[field] = token
    else:
        fields.append(token)
    text = "\n".join([*extra_lines, _swf_line(1, 0, 10, 2), " ".join(fields)]) + "\n"
    p = tmp_path_factory.mktemp("swf") / "t.swf"
    p.write_text(text)
    try:
        w = read_swf(p)
    except SchedbenchError as exc:
        assert f"{p}" in str(exc)
        return
    assert (w.nodes >= 1).all() and (w.runtime >= 0).all() and (w.submit <= 2.0**53).all()
    assert (np.diff(w.submit) >= 0).all()


def test_a_simulation_error_never_quotes_a_file_outside_the_suite(tmp_path):
    from schedbench.bench.run.runner import run_suite
    from schedbench.bench.store import ResultStore

    secret = tmp_path / "outside" / "secret.swf"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET not a job line at all\n")
    suite_dir = tmp_path / "suite"
    suite_dir.mkdir()
    p = _write(
        suite_dir,
        "s.toml",
        SUITE_HEAD + '[[simulations]]\nname = "s"\nworkload = "../outside/secret.swf"\n'
        'system = "theta"\npolicies = ["naive"]\n',
    )
    store = tmp_path / "r.sqlite"
    run_suite(load_suite(p), store_path=store, show_progress=False)
    with ResultStore(store, readonly=True) as st:
        (row,) = st.rows("fuzz")
    assert row["status"] == "error" and "secret.swf" in row["error"]
    assert "TOP-SECRET" not in row["error"]


# ----------------------------------------------------------------------------- every command
# The stored corpus (tests/bench/fuzz_corpus.json): hostile and malformed inputs to every
# command, from an audit of the file readers, the output writers and the bounds at load. Each
# case runs in a folder of its own next to an "outside" folder that nothing may change.
CORPUS = json.loads((Path(__file__).parent / "fuzz_corpus.json").read_text(encoding="utf-8"))
ROOT = Path(__file__).resolve().parents[2]
#: Bound on one case, so that a reader that blocks (a FIFO) fails the test instead of hanging
#: it; generous for a loaded machine.
CASE_TIMEOUT_S = 900


def _setup(case_dir: Path, steps: list[list[Any]]) -> None:
    from tests.bench.test_report import build_store, decision_rows

    for kind, name, *rest in steps:
        p = case_dir / name
        if kind == "file":
            p.write_text(rest[0], encoding="utf-8")
        elif kind == "hex":
            p.write_bytes(bytes.fromhex(rest[0]))
        elif kind == "dir":
            p.mkdir(parents=True)
        elif kind == "fifo":
            os.mkfifo(p)
        elif kind == "symlink":
            p.symlink_to(rest[0])
        elif kind == "gzip-zeros":  # rest[0] MiB of zeros, a few kB on disk
            p.write_bytes(gzip.compress(b"0" * (rest[0] << 20)))
        elif kind == "store":
            build_store(p, decision_rows())
        elif kind == "corrupt":  # every page after the header page
            data = bytearray(p.read_bytes())
            for i in range(4096, len(data)):
                data[i] = 0xAB
            p.write_bytes(bytes(data))
        elif kind == "copy":
            (case_dir / rest[0]).write_bytes((ROOT / name).read_bytes())
        else:
            raise AssertionError(f"unknown setup step {kind!r}")


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="the corpus uses FIFOs and /dev")
@pytest.mark.parametrize("case", CORPUS["cases"], ids=lambda c: c["id"])
def test_hostile_inputs_to_every_command(case, tmp_path, monkeypatch, capsys):
    from schedbench.bench.cli import main

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("must not change\n")
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    _setup(case_dir, case.get("setup", []))
    before = _snapshot(outside)
    for key, value in case.get("env", {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(case_dir)
    faulthandler.dump_traceback_later(CASE_TIMEOUT_S, exit=True, file=sys.__stderr__)
    try:
        try:
            code = main(case["argv"])
        except SystemExit as exc:  # argparse refusing a flag
            code = exc.code if isinstance(exc.code, int) else 2
    finally:
        faulthandler.cancel_dump_traceback_later()
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if case.get("expect", "error") == "ok":  # a valid result (a declined problem exits 1)
        assert code == case.get("code", 0), err
        assert case.get("stdout_words", "") in out
    else:
        assert code == case.get("code", 2), err
        # argparse's refusals come after its usage lines, which are not part of the message
        lines = [
            line
            for line in err.splitlines()
            if line.strip() and not line.startswith(("usage:", " "))
        ]
        errors = [line for line in lines if "error:" in line]
        assert len(errors) == 1 and len(lines) <= 3, err
        assert case["words"] in errors[0] or case["words"] in err, err
    # nothing outside the case's folder changed, and nothing was made next to it
    assert _snapshot(outside) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case", "outside"]
    assert not Path("/tmp/schedbench-fuzz-escape.sqlite").exists()


class NegativeIndex:
    """A broken plug-in for the corpus: selects job -1 (the fault is the solver's: exit 1)."""

    name = "negative-index"
    id = "negative-index"

    def supports(self, problem: Any) -> tuple[bool, str]:
        return True, ""

    def solve(self, problem: Any, budget: Any) -> Any:
        from schedbench.simcore.kinds.selection.problem import Decision
        from schedbench.simcore.problem import Status

        return Decision(
            status=Status.FEASIBLE, selected=(-1,), objectives=((0.0,) * problem.M,), solver=self.id
        )
