"""The distribution: one namespace, no tests or benchmark scripts in the wheel."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("simcore", "solvers", "instances", "bench")


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_listed_under_the_schedbench_namespace():
    listed = set(_config()["packages"])
    found = {
        "schedbench." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
        if "benchmarks" not in init.parts
    }
    assert found == listed, (
        f"pyproject lists {sorted(listed - found)}, misses {sorted(found - listed)}"
    )
    assert _config()["package-dir"] == {f"schedbench.{f}": f for f in FOLDERS}


def test_benchmark_scripts_are_not_a_package():
    assert not (ROOT / "bench" / "benchmarks" / "__init__.py").exists()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[zipfile.ZipFile, str]:
    """The wheel built from a copy of the checkout's files (tracked and new, not ignored), so
    the build leaves nothing behind in the working tree; and what the build printed."""
    src = tmp_path_factory.mktemp("src")
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        target = src / name
        if (ROOT / name).is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(src),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (path,) = out.glob("schedbench-*.whl")
    return zipfile.ZipFile(path), done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(built) -> zipfile.ZipFile:
    return built[0]


def test_the_build_prints_no_setuptools_warning(built):
    """A fresh `make` install printed ~100 lines of BuildBackendWarning: the package-data
    folders looked like undeclared packages (pyproject: include-package-data = false)."""
    printed = built[1]
    assert "BuildBackendWarning" not in printed and "SetuptoolsWarning" not in printed, printed


def test_the_wheel_installs_one_namespace_and_no_tests_or_benchmarks(wheel):
    names = wheel.namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"schedbench"}
    assert not [n for n in names if "/tests/" in n or n.startswith("tests/")]
    assert not [n for n in names if "benchmarks" in n or Path(n).name.startswith("test_")]
    # what the package needs at run time travels with it
    assert "schedbench/bench/suites/quick.toml" in names
    assert "schedbench/instances/examples/bbsched_table1.json" in names
    assert "schedbench/instances/decisions/theta-s2-wfp-w50.jsonl" in names
    assert "schedbench/simcore/py.typed" in names
    # every shipped dataset file, its manifest and notes (instances/data/)
    from schedbench.instances import datasets

    data = "schedbench/instances/data/"
    assert {data + "manifest.toml", data + "README.md", data + "__init__.py"} <= set(names)
    stored = {
        data + f.stored for ds in datasets.catalogue().values() if ds.shipped for f in ds.files
    }
    assert stored <= set(names), sorted(stored - set(names))
    assert not [n for n in names if n.startswith(data) and n.endswith(".part")]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = wheel.read(entry_points).decode()
    assert "schedbench = schedbench.bench.cli:entry" in text
    assert "= solvers." not in text  # every plug-in path inside the namespace
