"""The shipped datasets and their manifest (instances/data/), the resolver
(instances/datasets.py), dataset names where workloads and files are taken, and
``schedbench data`` (list, check, show, path)."""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.instances import datasets
from schedbench.instances.datasets import (
    DatasetError,
    DatasetNotFetchedError,
    UnknownDatasetError,
    load_manifest,
)
from schedbench.instances.workloads import WorkloadSpecError, check_workload_spec, load_workload

DATA = datasets.DATA_DIR
SHIPPED = [ds for ds in datasets.catalogue().values() if ds.shipped]
FETCHED = [ds for ds in datasets.catalogue().values() if not ds.shipped]


@pytest.fixture(autouse=True)
def empty_cache(tmp_path, monkeypatch):
    """Fetched datasets go to a fresh folder: the user's cache is never read or written."""
    cache = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(cache))
    return cache


# -- the data and its manifest ------------------------------------------------------------------


@pytest.mark.parametrize(
    "f", [(ds, f) for ds in SHIPPED for f in ds.files], ids=lambda p: f"{p[0].name}/{p[1].key}"
)
def test_every_shipped_file_has_the_size_and_sha256_of_its_manifest_entry(f):
    _ds, file = f
    raw = (DATA / file.stored).read_bytes()
    assert len(raw) == file.size
    assert hashlib.sha256(raw).hexdigest() == file.sha256
    if file.compressed:
        original = gzip.decompress(raw)
        assert len(original) == file.original_size
        assert hashlib.sha256(original).hexdigest() == file.original_sha256
    else:
        assert raw[:2] != b"\x1f\x8b"  # a plain file is not gzip in disguise


def test_the_issue_asks_for_these_datasets_and_they_are_all_shipped():
    names = {ds.name for ds in SHIPPED}
    assert {"kth-sp2", "cerberus", "locality-day", "bbsched-w1", "or-mknap1"} <= names
    assert len(datasets.get("cerberus").files) == 6
    day = datasets.get("locality-day")
    assert sum(f.name.endswith(".jobs.csv") for f in day.files) == 10
    assert {"workload", "machine", "summary"} <= {f.alias for f in day.files}
    assert len([f for f in datasets.get("bbsched-w1").files if f.name.endswith(".rst")]) == 4


def test_the_published_checksums_of_the_originals_are_the_ones_recorded():
    """Values stated where the files came from (the shared data READMEs)."""
    kth = datasets.get("kth-sp2").member("KTH-SP2-1996-2.1-cln.swf")
    assert kth.original_sha256 == "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
    machine = datasets.get("locality-day").member("machine")
    assert machine.sha256 == "760fb7b930be8013b01cbb9172901cf4ddc295ca871c05aa6787026e2f1c27d3"
    mknap = datasets.get("or-mknap1").member("mknap1.txt")
    assert mknap.sha256 == "1e469c3ce6131f47bef6bd0af19e48d0f25bbe71c4eec76aa8cab43a24e01278"


def test_every_file_in_the_data_folder_is_in_the_manifest_and_none_is_large():
    listed = {f.stored for ds in SHIPPED for f in ds.files}
    extra = {"manifest.toml", "README.md", "__init__.py"}
    on_disk = {
        p.relative_to(DATA).as_posix()
        for p in DATA.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert on_disk - extra == listed
    assert max(p.stat().st_size for p in DATA.rglob("*") if p.is_file()) < 5_000_000


def test_dataset_folders_are_not_importable_names():
    """setuptools would take a folder named like a Python package for one (and warn)."""
    for ds in SHIPPED:
        folder = {Path(f.stored).parts[0] for f in ds.files}
        assert len(folder) == 1
        assert not folder.pop().isidentifier(), ds.name


def test_every_dataset_says_where_it_comes_from_and_under_which_terms():
    for ds in datasets.catalogue().values():
        assert ds.what and ds.source and ds.provenance and ds.terms and ds.url.startswith("http")
    for ds in FETCHED:
        (f,) = ds.files
        assert f.url is not None
        assert f.url.startswith("https://www.cs.huji.ac.il/labs/parallel/workload/l_")
        assert f.url.endswith(".swf.gz")
        assert "Parallel Workloads Archive" in ds.terms and "cite" in ds.terms
        if f.sha256 is not None:  # where a pin came from, and that it was not checked here
            assert "not verified here" in f.sha256_source and "commit" in f.sha256_source
        else:
            assert "--accept-unpinned" in f.sha256_source
    pinned = {ds.name for ds in FETCHED if ds.files[0].sha256}
    assert pinned == {"sdsc-sp2", "ctc-sp2", "hpc2n"}
    assert "llnl-atlas" in {ds.name for ds in FETCHED}


# -- the manifest reader ------------------------------------------------------------------------

GOOD = """
[[dataset]]
name = "tiny-set"
what = "w"
origin = "shipped"
source = "s"
provenance = "p"
url = "https://example.org"
terms = "t"
  [[dataset.files]]
  name = "a.swf"
  format = "swf"
  stored = "tiny-set/a.swf"
  size = 3
  sha256 = "%s"
""" % ("0" * 64)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda t: t.replace('"tiny-set"', '"Tiny Set"', 1),
            "dataset[0].name: expected a new name",
        ),
        (lambda t: t.replace("size = 3", "size = -3"), "files[0].size: expected a size in bytes"),
        (lambda t: t.replace("0" * 64, "abc"), "files[0].sha256: expected 64 lower-case hex"),
        (
            lambda t: t.replace('origin = "shipped"', 'origin = "web"'),
            ".origin: expected 'shipped'",
        ),
        (lambda t: t.replace('terms = "t"', 'terms = "t"\nlicence = "x"'), ".licence: unknown key"),
        (lambda t: t.replace("size = 3", ""), "a shipped file needs size and sha256"),
        (lambda t: t + t, "dataset[1].name: expected a new name"),
        (lambda t: t.replace("[[dataset]]", "[[dataset"), "not valid TOML"),
        (
            lambda t: t.replace('origin = "shipped"', 'origin = "fetch"'),
            "files[0].url: expected an http(s) URL",
        ),
        (
            lambda t: t.replace('terms = "t"', 'terms = "t"\ndefault = "b.swf"'),
            ".default: dataset 'tiny-set': no file 'b.swf'",
        ),
    ],
)
def test_a_bad_manifest_is_one_line_naming_the_file_and_key(tmp_path, change, message):
    path = tmp_path / "manifest.toml"
    path.write_text(change(GOOD))
    with pytest.raises(DatasetError) as info:
        load_manifest(path)
    assert str(path) in str(info.value) and message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_good_manifest_reads(tmp_path):
    path = tmp_path / "manifest.toml"
    path.write_text(GOOD)
    (ds,) = load_manifest(path).values()
    assert ds.name == "tiny-set" and ds.files[0].size == 3 and ds.default is None


# -- references ---------------------------------------------------------------------------------


def test_references_resolve_to_the_shipped_files():
    kth = datasets.path("kth-sp2")
    assert kth.is_file() and kth.name == "KTH-SP2-1996-2.1-cln.swf.gz"
    assert datasets.path("kth-sp2/KTH-SP2-1996-2.1-cln.swf") == kth
    folder = datasets.path("cerberus")  # no default: the folder of the six workloads
    assert folder.is_dir() and len(list(folder.glob("*.workload.csv"))) == 6
    assert datasets.path("cerberus/maxt_cerberus").name == "maxt_cerberus.workload.csv"
    assert datasets.path("locality-day/machine").name.startswith("rackham_450")
    assert datasets.path("locality-day/lea").name == "lea.jobs.csv.gz"
    assert datasets.path("zt-100-2/front").name == "knapsack.100.2.pareto"


def test_bad_references_say_what_exists():
    with pytest.raises(UnknownDatasetError, match="unknown dataset 'kth'; known datasets: kth-sp2"):
        datasets.path("kth")
    with pytest.raises(DatasetError, match="no file 'nope'; its files: workload, machine"):
        datasets.path("locality-day/nope")
    assert not datasets.is_ref("./kth-sp2") and not datasets.is_ref("lublin:jobs=3")
    assert datasets.lookup("results/x.swf") is None


def test_a_fetched_dataset_not_yet_fetched_names_the_command(empty_cache):
    with pytest.raises(DatasetNotFetchedError) as info:
        datasets.path("sdsc-sp2")
    assert "run `schedbench data fetch sdsc-sp2`" in str(info.value)
    assert str(empty_cache) in str(info.value)
    # once in the cache folder, the name finds it
    f = datasets.get("sdsc-sp2").files[0]
    (empty_cache / "sdsc-sp2").mkdir(parents=True)
    (empty_cache / "sdsc-sp2" / f.stored).write_bytes(b"x")
    assert datasets.path("sdsc-sp2") == empty_cache / "sdsc-sp2" / f.stored


def test_the_cache_folder_follows_the_override_then_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "mine"))
    assert datasets.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(datasets.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert datasets.cache_dir() == tmp_path / "xdg" / "schedbench" / "data"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert datasets.cache_dir() == tmp_path / "home" / ".cache" / "schedbench" / "data"


def test_open_text_reads_gzip_and_plain_alike(tmp_path):
    text = "a,b\n1,2\n"
    (tmp_path / "plain.csv").write_text(text)
    (tmp_path / "packed.csv").write_bytes(gzip.compress(text.encode()))  # no .gz suffix
    for name in ("plain.csv", "packed.csv"):
        with datasets.open_text(tmp_path / name) as fh:
            assert fh.read() == text
    with datasets.open_text(datasets.path("locality-day/summary")) as fh:
        assert fh.readline().startswith("scheduler,evaluated_jobs,")


# -- dataset names where workloads and files are taken -----------------------------------------


def test_a_workload_spec_takes_a_dataset_name_with_transforms():
    w = load_workload("kth-sp2+head:100")
    assert len(w) == 100 and w.source == "kth-sp2+head:100"
    assert w.max_procs == 100
    assert load_workload("lublin-256").source == "lublin-256"
    check_workload_spec("bbsched-w1+head:5")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("locality-day", "dataset 'locality-day' is a locality file, not an SWF workload"),
        ("cerberus", "holds several files; name one: cerberus/fcfs_cerberus"),
        ("sdsc-sp2", "run `schedbench data fetch sdsc-sp2`"),
        ("kth", "no such file, not a dataset (see 'schedbench data')"),
    ],
)
def test_a_workload_spec_naming_an_unusable_dataset_says_why(spec, message):
    for fn in (check_workload_spec, load_workload):
        with pytest.raises((WorkloadSpecError, DatasetError), match=re.escape(message)):
            fn(spec)


def test_simulate_runs_a_shipped_trace_by_name_and_names_a_missing_one(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["simulate", "--workload", "kth-sp2+head:200", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("kth-sp2+head:200: 200 jobs")
    assert (out / "jobs.csv").read_text().count("\n") == 201
    assert main(["simulate", "--workload", "hpc2n", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run `schedbench data fetch hpc2n`" in err


def test_simulate_runs_a_shipped_cerberus_workload_by_name(tmp_path, capsys):
    argv = [
        "simulate",
        "--workload",
        "cerberus/onephase_io",
        "--policy",
        "one-phase-io",
        "--out",
        str(tmp_path / "cb"),
        "--no-progress",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("cerberus/onephase_io: 1185 jobs")


def test_the_knapsack_suite_reads_the_shipped_classics(capsys):
    """bench/suites/knapsack-classics.toml names datasets, not ../shared."""
    from schedbench.bench.suite.schema import load_suite, resolve_suite

    path = resolve_suite("knapsack-classics")
    assert "shared/" not in path.read_text()
    suite = load_suite(path)
    families = {spec["family"] for spec in suite.instance_specs}
    assert families == {"mknap1", "zt-100-2"}
    from schedbench.instances.sources import get_source

    mknap = next(s for s in suite.instance_specs if s["family"] == "mknap1")
    found = list(get_source("mknap").build(mknap, suite.base_dir))
    assert [round(i.reference.objectives[0], 1) for i in found] == [
        3800,
        8706.1,
        4015,
        6120,
        12400,
        10618,
        16537,
    ]
    zt = next(s for s in suite.instance_specs if s["family"] == "zt-100-2")
    (inst,) = get_source("zitzler-thiele").build(zt, suite.base_dir)
    assert inst.label == "knapsack.100.2" and len(inst.reference.pareto) == 121


def test_reproduce_locality_reads_the_calibration_day_by_default_and_any_dataset():
    import argparse

    from schedbench.bench.reproduce import locality

    args = argparse.Namespace(
        workload=locality.DEFAULT_WORKLOAD,
        system=None,
        arrival_factor=None,
        evaluated_days=None,
        evaluated_start=None,
    )
    assert locality.DEFAULT_WORKLOAD == "locality-day"
    got = locality.load_workload(args)
    w = got.workload
    assert (len(w), int(w.evaluated.size), got.platform.nodes) == (21_819, 1_511, 486)
    assert got.notes == () and got.form == "locality file"
    args.workload = "kth-sp2"  # an SWF dataset: converted
    got = locality.load_workload(args)
    assert got.notes[0].startswith("converted from SWF") and len(got.workload) > 0


def test_no_shipped_suite_reaches_outside_the_package():
    from schedbench.bench.suite.schema import shipped_suites

    for name, path in shipped_suites().items():
        assert "shared/" not in path.read_text(), name


# -- schedbench data ----------------------------------------------------------------------------


def test_data_lists_every_dataset_and_checks_every_shipped_file(capsys):
    assert main(["data", "--wide"]) == 0
    out = capsys.readouterr().out
    for ds in datasets.catalogue().values():
        assert ds.name in out
    local = sum(len(ds.files) for ds in SHIPPED)
    assert f"{local} local files checked against their sha256: all match" in out
    assert "not fetched" in out and "shipped" in out


def test_data_verify_lists_each_file_with_its_verdict(capsys):
    assert main(["data", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "(and the uncompressed originals): all match" in out
    assert "ok          kth-sp2/KTH-SP2-1996-2.1-cln.swf:" in out
    assert "not fetched sdsc-sp2/SDSC-SP2-1998-4.2-cln.swf.gz:" in out


def test_data_fails_naming_a_file_that_does_not_match(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    target = copy / "zt-100-2" / "knapsack.100.2.pareto"
    target.write_bytes(target.read_bytes().replace(b"1", b"7", 1))
    (copy / "or-mknap1" / "mknap1.txt").unlink()
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    assert main(["data"]) == 1
    captured = capsys.readouterr()
    assert "2 FAILED" in captured.out
    err = captured.err.splitlines()
    assert any(str(target) in line and "sha256" in line for line in err)
    assert any("mknap1.txt: missing" in line for line in err)


def test_data_verify_catches_a_recompressed_file_that_changed_inside(tmp_path, monkeypatch, capsys):
    """--verify checks what the gzip holds, not only the stored bytes."""
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    gz = copy / "lublin-256" / "lublin_256.swf.gz"
    changed = gzip.decompress(gz.read_bytes()).replace(b"256", b"257", 1)
    gz.write_bytes(gzip.compress(changed))
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    file = datasets.get("lublin-256").files[0]
    # a manifest entry that accepts the new stored bytes, but not the original inside them
    patched = datasets.DataFile(
        **{
            **{k: getattr(file, k) for k in file.__dataclass_fields__},
            "size": gz.stat().st_size,
            "sha256": hashlib.sha256(gz.read_bytes()).hexdigest(),
        }
    )
    ds = datasets.get("lublin-256")
    assert datasets.check_file(ds, patched).status == "ok"
    deep = datasets.check_file(ds, patched, deep=True)
    assert deep.status == "mismatch" and "uncompressed sha256" in deep.detail


def test_data_show_and_path(capsys):
    assert main(["data", "show", "hpc2n"]) == 0
    out = capsys.readouterr().out
    assert "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64" in out
    assert "ErenAri/HCP-workload-optimizer" in out and "not fetched" in out
    assert main(["data", "path", "locality-day/machine"]) == 0
    assert Path(capsys.readouterr().out.strip()) == datasets.path("locality-day/machine")
    assert main(["data", "path", "sdsc-sp2"]) == 2
    assert "schedbench data fetch sdsc-sp2" in capsys.readouterr().err
    assert main(["data", "show", "nope"]) == 2
    assert "known datasets:" in capsys.readouterr().err


def test_the_user_guide_names_every_dataset():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "data.md").read_text()
    for ds in datasets.catalogue().values():
        assert f"`{ds.name}`" in guide, ds.name


def test_package_code_reads_no_data_from_outside_the_repository():
    """The data a command needs ships in the package; nothing reads ../shared (the benchmark
    scripts of bench/benchmarks/ may, for files that do not ship)."""
    root = Path(__file__).resolve().parents[2]
    outside = re.compile(
        r"""["']shared["']|\.\./shared/(traces|cerberus|knapsack|locality|bbsched)"""
    )
    for folder in ("simcore", "solvers", "instances", "bench"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in (".py", ".toml", ".md") or "benchmarks" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            assert not outside.search(text), f"{path.relative_to(root)} reads outside the package"
