"""Fuzzing the inputs a user hands us (issue 11): "a clear error or a valid result, never a
traceback, a hang or nonsense".

Each input kind has (a) the bad inputs an audit found, as regression cases, and (b) a hypothesis
property over mutated inputs. hypothesis runs derandomised in the default pass
(tests/conftest.py); `make test-deep` draws many more random examples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from instances.problem_files import load_problem
from simcore.errors import SchedbenchError
from simcore.problem import SelectionProblem

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
