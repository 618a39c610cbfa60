"""Cerberus workloads (instances/cerberus.py): the strict CSV reader, the writer, the seeded
generator and the specs; the published inputs (shipped: dataset ``cerberus``)."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances import datasets
from schedbench.instances.cerberus import (
    COLUMNS,
    CerberusFileError,
    absolute_spec,
    check_cerberus_spec,
    generate_cerberus_workload,
    load_cerberus_workload,
    published_workloads,
    read_cerberus_workload,
    write_cerberus_workload,
)
from schedbench.instances.swf import write_swf
from schedbench.instances.systems import CERBERUS
from schedbench.simcore.cerberus.workload import CerberusWorkloadError
from schedbench.simcore.workload import Workload

PUBLISHED = datasets.path("cerberus")

HEADER = ",".join(COLUMNS)
GOOD = [
    "1,0.0,2048,7560.0,10800.0,5,5,31,",
    "2,1.0,100,7568.0,10800.0,21,35,40,",
    "3,1.0,2048,7561.0,10800.0,,,,45",
]


def write(tmp_path, lines, header=HEADER):
    p = tmp_path / "w.workload.csv"
    p.write_text("\n".join([header, *lines]) + "\n")
    return p


def test_reads_the_columns_and_leaves_empty_cells_nan(tmp_path):
    w = read_cerberus_workload(write(tmp_path, GOOD))
    assert list(w.job_id) == [1, 2, 3] and list(w.cores) == [2048, 100, 2048]
    assert np.isnan(w.in_gb[2]) and w.max_tb[2] == 45 and np.isnan(w.max_tb[0])
    assert list(w.one_size_tb()) == [31, 40, 45]  # d = max(run, out) where not given
    assert w.source.endswith("w.workload.csv")


@pytest.mark.parametrize(
    ("line", "where"),
    [
        (
            "2,1.0,2048,7568.0,10800.0,-21,35,40,",
            ":3: column 6 (data_in_gb): expected empty or a number >= 0",
        ),
        (
            "2,1.0,-2048,7568.0,10800.0,21,35,40,",
            ":3: column 3 (cores_requested): expected an integer >= 1",
        ),
        (
            "1,1.0,2048,7568.0,10800.0,21,35,40,",
            ":3: column 1 (job_id): expected job ids increasing",
        ),
        (
            "2,1.0,2048,-5,10800.0,21,35,40,",
            ":3: column 4 (runtime_s): expected a finite number >= 0",
        ),
        (
            "2,1.0,2048,7568.0,0,21,35,40,",
            ":3: column 5 (requested_s): expected a number of seconds > 0",
        ),
        ("2,x,2048,7568.0,10800.0,21,35,40,", ":3: column 2 (submit_s)"),
        ("2,1.0,2048,7568.0,10800.0,21,35,40", ":3: expected 9 comma-separated fields"),
        (
            "2,1.0,400000,7568.0,10800.0,21,35,40,",
            ":3: column 3 (cores_requested): expected at most the machine's 300000 cores",
        ),
        (  # the most a job holds cannot be less than what it holds while it runs
            "2,1.0,2048,7568.0,10800.0,21,35,40,30",
            ":3: column 9 (data_max_tb): expected at least data_run_tb (35 TB)",
        ),
        ("2,1e300,2048,7568.0,10800.0,21,35,40,", ":3: column 2 (submit_s): expected a number"),
    ],
)
def test_bad_rows_name_file_line_and_column(tmp_path, line, where):
    p = write(tmp_path, [GOOD[0], line])
    with pytest.raises(CerberusFileError) as err:
        read_cerberus_workload(p, max_cores=CERBERUS.nodes)
    assert str(err.value).startswith(str(p) + ":") and where in str(err.value)


def test_a_missing_or_unknown_column_is_named(tmp_path):
    header = HEADER.replace(",data_out_tb", "")
    with pytest.raises(CerberusFileError, match="column 'data_out_tb' is missing"):
        read_cerberus_workload(write(tmp_path, [], header=header))
    with pytest.raises(CerberusFileError, match=r"1: column 10 \('extra'\): unknown"):
        read_cerberus_workload(write(tmp_path, [], header=HEADER + ",extra"))
    with pytest.raises(CerberusFileError, match="cannot read"):
        read_cerberus_workload(tmp_path / "nope.csv")


def test_writer_round_trips(tmp_path):
    w = read_cerberus_workload(write(tmp_path, GOOD))
    back = read_cerberus_workload(write_cerberus_workload(w, tmp_path / "x.csv"))
    for name in (
        "job_id",
        "submit",
        "cores",
        "runtime",
        "requested",
        "in_gb",
        "run_tb",
        "out_tb",
        "max_tb",
    ):
        np.testing.assert_array_equal(getattr(w, name), getattr(back, name))


def _base(n=50):
    rng = np.random.default_rng(0)
    return Workload.from_columns(
        job_id=np.arange(1, n + 1),
        submit=np.sort(rng.integers(0, 10_000, n)).astype(float),
        runtime=rng.integers(1, 5000, n).astype(float),
        requested_time=rng.integers(5000, 9000, n).astype(float),
        nodes=rng.integers(1, 64, n),
    )


def test_generator_draws_the_model_notes_distributions_and_is_seeded():
    a = generate_cerberus_workload(_base(2000), seed=3)
    b = generate_cerberus_workload(_base(2000), seed=3)
    c = generate_cerberus_workload(_base(2000), seed=4)
    np.testing.assert_array_equal(a.submit, b.submit)
    assert not np.array_equal(a.submit, c.submit)
    gaps = np.diff(np.concatenate([[0.0], a.submit]))
    assert a.submit[0] >= 0 and np.all(gaps >= 0) and gaps.mean() == pytest.approx(1.0, abs=0.1)
    assert set(np.unique(a.in_gb)) == set(range(1, 30))  # 1..29 GB, upper bound excluded
    assert set(np.unique(a.run_tb)) == set(range(1, 60))
    assert set(np.unique(a.out_tb)) == set(range(1, 60))
    np.testing.assert_array_equal(a.max_tb, np.maximum(a.run_tb, a.out_tb))


def test_generator_takes_a_window_of_job_numbers_from_an_swf_trace(tmp_path):
    base = _base(40)
    path = tmp_path / "t.swf"
    write_swf(base, path)
    w = load_cerberus_workload(f"cerberus:swf={path},first=5,jobs=10,seed=1")
    assert list(w.job_id) == list(range(5, 15))
    np.testing.assert_array_equal(w.cores, base.nodes[4:14])
    with pytest.raises(CerberusWorkloadError, match="holds 36 of the 40 jobs"):
        load_cerberus_workload(f"cerberus:swf={path},first=5,jobs=40,seed=1")


def test_specs_are_checked_for_their_form(tmp_path):
    with pytest.raises(CerberusWorkloadError, match="missing key 'seed'"):
        check_cerberus_spec("cerberus:jobs=10")
    with pytest.raises(CerberusWorkloadError, match="'nodez=3'"):
        check_cerberus_spec("cerberus:jobs=10,seed=1,nodez=3")
    with pytest.raises(CerberusWorkloadError, match="jobs: expected an integer"):
        check_cerberus_spec("cerberus:jobs=ten,seed=1")
    with pytest.raises(CerberusWorkloadError, match="no such file"):
        check_cerberus_spec("missing.csv")
    assert (
        absolute_spec("cerberus:csv=a.csv,seed=1", tmp_path)
        == f"cerberus:csv={tmp_path / 'a.csv'},seed=1"
    )
    w = load_cerberus_workload("cerberus:jobs=30,seed=2")
    assert len(w) == 30 and w.cores.min() >= 256 and w.cores.max() <= 300_000


def test_the_six_published_inputs_read_cleanly():
    files = published_workloads(PUBLISHED)
    assert len(files) == 6
    for name, path in files.items():
        w = read_cerberus_workload(path, max_cores=CERBERUS.nodes)
        assert len(w) == 1185 and w.job_id[0] == 1 and w.job_id[-1] == 1185
        one_size = name in ("cerberus_1d", "onephase_bb", "onephase_io")
        assert w.has_triple != one_size
