"""The agreement table: its rows about waiting (mean stretch, bounded stretch, queue time and
user sessions of LEA, LEO and LEM against the baseline) and about transfers, each agreeing, not,
or not measurable, with the reason (``bench/reproduce/locality.py``: ``agreement_rows``,
``waiting_rows``)."""

from __future__ import annotations

from schedbench.bench.reproduce.locality import agreement_rows, waiting_rows


def _row(stretch, bounded, queue, sessions=None):
    row = {"mean_stretch": stretch, "mean_bounded_stretch": bounded, "queue_time_mean_s": queue}
    if sessions is not None:
        faster, equal, slower, median = sessions
        row.update(
            sessions_faster=faster,
            sessions_equal=equal,
            sessions_slower=slower,
            session_improvement_median=median,
        )
    return row


def test_waiting_rows_judge_each_finding_and_name_the_cause():
    rows = {
        "fcfs": _row(10.0, 8.0, 0.0),
        "eft": _row(12.0, 7.0, 50.0),
        "lea": _row(9.0, 7.5, 40.0, (5, 2, 1, 1.2)),
        "leo": _row(11.0, 7.9, 60.0, (1, 2, 5, 0.9)),
        "lem": _row(9.5, 6.0, 30.0, (3, 3, 3, 1.0)),
    }
    got = {r["finding"]: r for r in waiting_rows(rows)}
    # the family that was not run is there too, not measurable, saying why
    unrun = [r for f, r in got.items() if "with backfilling" in f]
    assert len(unrun) == 4
    assert all(r["agree"] == "not measurable" and "not run: fcfs-bf" in r["reason"] for r in unrun)
    stretch = got["LEA, LEO and LEM cut the mean stretch (without backfilling)"]
    assert stretch["agree"] == "no"
    assert "leo -10.0%" in stretch["ours"] and "eft -20.0%" in stretch["ours"]
    # LEO is worse than FCFS but not than EFT: the planning, not the file weight
    assert "EFT, which ignores files, is worse too" in stretch["reason"]
    assert "load weight" not in stretch["reason"]
    bounded = got["LEA, LEO and LEM cut the mean bounded stretch (without backfilling)"]
    assert bounded["agree"] == "yes" and bounded["reason"] == ""
    queue = got["LEA, LEO and LEM cut the mean queue time (without backfilling)"]
    assert queue["agree"] == "not measurable"
    sessions = got["user sessions gain under LEA, LEO and LEM (without backfilling)"]
    assert sessions["agree"] == "no" and "leo" in sessions["reason"]
    assert "lea 5 faster / 2 equal / 1 slower" in sessions["ours"]


def test_a_locality_scheduler_worse_than_eft_is_blamed_on_the_file_weight():
    rows = {
        "fcfs-bf": _row(10.0, 8.0, 100.0),
        "eft-bf": _row(10.5, 8.0, 100.0),
        "lea-bf": _row(15.0, 8.0, 100.0),
        "leo-bf": _row(10.0, 8.0, 100.0),
        "lem-bf": _row(10.0, 8.0, 100.0),
    }
    got = {r["finding"]: r for r in waiting_rows(rows)}
    stretch = got["LEA, LEO and LEM cut the mean stretch (with backfilling)"]
    assert stretch["agree"] == "no"
    assert "EFT, which ignores files, is worse too" in stretch["reason"]
    assert "lea-bf waits longer than EFT as well" in stretch["reason"]
    # no session counts (no baseline comparison): not measurable, not a silent omission
    sessions = got["user sessions gain under LEA, LEO and LEM (with backfilling)"]
    assert sessions["agree"] == "not measurable"


def test_the_agreement_table_carries_the_waiting_rows():
    rows = {
        n: {**_row(10.0, 8.0, 100.0, (1, 1, 1, 1.0)), "transfer_wait_reduction": 0.0}
        for n in ("fcfs", "eft", "lea", "leo", "lem")
    }
    findings = [r["finding"] for r in agreement_rows(rows, reuse_share=1.0)]
    assert "LEA, LEO and LEM cut the mean stretch (without backfilling)" in findings
    assert "user sessions gain under LEA, LEO and LEM (without backfilling)" in findings


def _tw(reduction):
    row = _row(10.0, 8.0, 100.0, (1, 1, 1, 1.0))
    return {**row, "transfer_wait_reduction": reduction, "core_time_reduction": 0.01}


def test_transfer_rows_name_the_schedulers_of_their_family():
    rows = {"fcfs-bf": _tw(0.0), "eft-bf": _tw(0.01), "lea-bf": _tw(0.12)}
    rows |= {"leo-bf": _tw(0.02), "lem-bf": _tw(0.05)}
    got = {r["finding"]: r for r in agreement_rows(rows, reuse_share=1.0)}
    barely = got["EFT and LEO barely move transfer + wait (with backfilling)"]
    assert barely["agree"] == "yes"
    assert barely["ours"].startswith("eft-bf +1.0%, leo-bf +2.0% (lea-bf +12.0%")
    between = got["LEM lies between EFT/LEO and LEA (with backfilling)"]
    assert "lem-bf +5.0% between eft-bf" in between["ours"] and between["agree"] == "yes"
    # the plain family was not run: its findings are not measurable, with the reason
    plain = got["LEA cuts transfer + wait the most (without backfilling)"]
    assert plain["agree"] == "not measurable" and "not run: fcfs, eft, lea" in plain["reason"]


def test_a_finding_whose_scheduler_did_not_run_is_not_measurable():
    rows = {"fcfs": _tw(0.0), "lea": _tw(0.1)}
    got = {r["finding"]: r for r in agreement_rows(rows, reuse_share=1.0)}
    assert got["LEA cuts transfer + wait the most (without backfilling)"]["reason"] == (
        "not run: eft, leo, lem (--schedulers)"
    )
    assert got["core time almost unchanged"]["agree"] == "yes"
    assert all(r["agree"] in ("yes", "no", "not measurable") for r in got.values())
    assert all(r["reason"] for r in got.values() if r["agree"] != "yes")
