"""Reference mode against the authors' C simulator on the calibration day:
for all ten schedulers the evaluated-job count exact, transfer + wait and mean stretch within
1e-3 relative of the simulator's summary line, and at least 99 % of the per-job stretches within
0.1 % of its per-job file (``bench/benchmarks/locality_calibration.py`` compares; the folder's
dataset's manifest says how the authors' outputs were made). The day ships with the project
(dataset ``locality-day``), so this runs in every clone.
"""

from __future__ import annotations

import pytest

from schedbench.simcore.locality import LocalityOptions, simulate_locality
from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES
from tests._benchmarks import load_benchmark_module

#: The calibration day: None is the shipped dataset (the workload, the machine file and the
#: authors' outputs).
CALIBRATION = None

cal = load_benchmark_module("locality_calibration")


def test_the_calibration_day_ships() -> None:
    assert cal.present(CALIBRATION)


@pytest.fixture(scope="module")
def day():
    return cal.read_day(CALIBRATION)


@pytest.mark.parametrize("name", SCHEDULER_NAMES)
def test_reference_mode_equals_the_authors_simulator(day, name):
    workload, platform = day
    result = simulate_locality(workload, name, platform, LocalityOptions.reference())
    got = cal.compare(result, cal.load_reference(CALIBRATION, name))
    assert got.missing == 0
    assert got.evaluated[0] == got.evaluated[1]
    assert got.rel(got.transfer_wait) <= cal.TOTALS_RTOL, got.transfer_wait
    assert got.rel(got.mean_stretch) <= cal.TOTALS_RTOL, got.mean_stretch
    assert got.stretch_share >= cal.STRETCH_SHARE, (got.stretch_share, got.first_stretch_miss)
    assert got.ok
    # the same share of jobs must also have the reference's run time and transfer + wait
    assert got.runtime_share >= cal.STRETCH_SHARE, got.first_order_break
    assert got.transfer_wait_share >= cal.STRETCH_SHARE, got.first_order_break
