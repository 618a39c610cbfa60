"""schedbench data: the datasets (shipped in the package, or fetched into the cache folder).

    schedbench data [--verify] [--wide]        list every dataset and check every local file
    schedbench data show NAME                  provenance, terms and files of one dataset
    schedbench data path REF                   the local path of NAME or NAME/MEMBER
    schedbench data fetch NAME [--sha256 HEX | --accept-unpinned] [--no-progress]

The listing checks every shipped and fetched file against its sha256 in the manifest
(``instances/data/manifest.toml``); ``--verify`` also checks the uncompressed originals of
the gzip files and prints one line per file. Exit status: 0 all files check; 1 a file is
missing or does not match (named on stderr), or a download failed; 2 bad input (unknown
dataset, a dataset not fetched yet, an unpinned fetch without ``--sha256`` or
``--accept-unpinned``). docs/guide/data.md says more.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Any

from schedbench.bench.progress import wanted
from schedbench.bench.report.terminal import WIDTH, listing
from schedbench.instances import datasets
from schedbench.instances.fetch import MIRROR_ENV, ChecksumError, FetchError, fetch


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "data",
        help="list the datasets (shipped or fetched) and check them; fetch a public trace",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="also check the uncompressed originals of the gzip files; one line per file",
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help=f"long texts on one line (default: wrapped to {WIDTH} columns)",
    )
    actions = p.add_subparsers(dest="data_action", metavar="[ACTION]")
    show = actions.add_parser("show", help="provenance, terms and files of one dataset")
    show.add_argument("name", metavar="NAME")
    where = actions.add_parser("path", help="print the local path of NAME or NAME/MEMBER")
    where.add_argument("ref", metavar="REF")
    f = actions.add_parser(
        "fetch",
        help="download a public trace into the cache folder (resumable, sha256-checked)",
    )
    f.add_argument("name", metavar="NAME")
    pin = f.add_mutually_exclusive_group()
    pin.add_argument(
        "--sha256",
        default=None,
        metavar="HEX",
        help="the sha256 the file must have (instead of the manifest's pin, or where it has none)",
    )
    pin.add_argument(
        "--accept-unpinned",
        action="store_true",
        help="fetch a dataset that has no pin; the sha256 seen is printed and recorded",
    )
    f.add_argument(
        "--timeout", type=float, default=30.0, metavar="S", help="network timeout (default 30 s)"
    )
    f.add_argument("--no-progress", action="store_true", help="no progress bar")


def _size(n: int | None) -> str:
    """Bytes for people: ``387.7 KB`` (powers of 1000, as ``du --si``); ``?`` when unknown."""
    if n is None:
        return "?"
    value, unit = float(n), "B"
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            break
        value /= 1000
    return f"{n:,} B" if unit == "B" else f"{value:,.1f} {unit}"


def _state(ds: datasets.Dataset, checks: list[datasets.FileCheck]) -> str:
    if any(c.failed for c in checks):
        return "FAILED"
    if ds.shipped:
        return "shipped"
    if all(c.status == "not fetched" for c in checks):
        return "not fetched"
    if any(c.status == "not fetched" for c in checks):
        return "partly fetched"
    if any(c.status == "overridden" for c in checks):
        return "fetched (--sha256, not the pin)"
    return "fetched" if all(c.status == "ok" for c in checks) else "fetched, unpinned"


def run_list(args: argparse.Namespace) -> int:
    checks = datasets.verify(deep=args.verify)
    by_name: dict[str, list[datasets.FileCheck]] = {}
    for c in checks:
        by_name.setdefault(c.dataset, []).append(c)
    rows = []
    for ds in datasets.catalogue().values():
        mine = by_name.get(ds.name, [])
        size = ds.size
        if size is None and all(c.path.is_file() for c in mine):
            size = sum(c.path.stat().st_size for c in mine)
        rows.append([ds.name, _state(ds, mine), _size(size), ds.source, ds.what])
    width = None if args.wide else WIDTH
    print(listing(rows, ["dataset", "state", "size", "source", "what"], wrap=(3, 4), width=width))
    if args.verify:
        print()
        for c in checks:
            digest = f" sha256 {c.sha256}" if c.sha256 and not c.failed else ""
            detail = f" ({c.detail})" if c.detail else ""
            print(f"{c.status:<11} {c.dataset}/{c.file}: {c.path}{digest}{detail}")
    checked = [c for c in checks if c.status not in ("not fetched", "unpinned")]
    unpinned = [c for c in checks if c.status == "unpinned"]
    failed = [c for c in checks if c.failed]
    print(
        f"\n{len(checked)} local files checked against their sha256"
        + (" (and the uncompressed originals)" if args.verify else "")
        + f": {'all match' if not failed else f'{len(failed)} FAILED'}"
        + (f"; {len(unpinned)} with no sha256 to check against" if unpinned else "")
    )
    print(f"fetched datasets go to {datasets.cache_dir()} (set {datasets.CACHE_ENV} to change it)")
    for c in failed:
        print(
            f"schedbench: error: {c.path}: {c.status}: {c.detail or 'not there'}", file=sys.stderr
        )
    return 1 if failed else 0


def run_show(args: argparse.Namespace) -> int:
    ds = datasets.get(args.name)
    width = None if args.wide else WIDTH

    def para(label: str, text: str) -> None:
        if width is None:
            print(f"{label}: {text}")
        else:
            print(textwrap.fill(text, width, initial_indent=f"{label}: ", subsequent_indent="  "))

    para("dataset", f"{ds.name} ({ds.origin})")
    para("what", ds.what)
    para("source", ds.source)
    para("provenance", ds.provenance)
    para("url", ds.url)
    para("terms", ds.terms)
    if ds.default:
        para("default file", ds.default)
    for f in ds.files:
        check = datasets.check_file(ds, f)
        print(f"\nfile: {ds.name}/{f.key}" + (f" = {f.name}" if f.alias else "") + f" ({f.format})")
        print(f"  local: {check.path} [{check.status}]")
        if f.size is not None:
            print(f"  stored: {f.stored}, {f.size:,} bytes, sha256 {f.sha256}")
        elif f.sha256:
            print(f"  sha256 (pin): {f.sha256}")
        if f.original_sha256:
            print(f"  original: {f.original_size:,} bytes, sha256 {f.original_sha256}")
        if f.url:
            print(f"  url: {f.url}")
        if f.sha256_source:
            para("  pin", f.sha256_source)
        if f.note:
            para("  note", f.note)
    return 0


def run_path(args: argparse.Namespace) -> int:
    print(datasets.path(args.ref))
    return 0


class _Bar:
    """A byte-counting tqdm bar on stderr, drawn only when wanted (a terminal, or
    ``SCHEDBENCH_PROGRESS=1``), created at the first report (when the size is known)."""

    def __init__(self, desc: str, show: bool):
        self.desc, self.show, self.bar = desc, show, None

    def __call__(self, done: int, total: int | None) -> None:
        if not self.show:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                initial=done,
                desc=self.desc,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                file=sys.stderr,
                mininterval=0.5,
                dynamic_ncols=True,
            )
        else:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_fetch(args: argparse.Namespace) -> int:
    ds = datasets.get(args.name)
    if ds.shipped:
        print(f"{ds.name}: shipped with schedbench, nothing to fetch: {datasets.path(ds.name)}")
        return 0
    bar = _Bar(ds.name, wanted(args.no_progress))
    try:
        got = fetch(
            ds.name,
            sha256=args.sha256,
            accept_unpinned=args.accept_unpinned,
            progress=bar,
            timeout=args.timeout,
        )
    except (FetchError, ChecksumError) as exc:
        bar.close()
        mirror = f" (through {MIRROR_ENV})" if os.environ.get(MIRROR_ENV, "").strip() else ""
        print(f"schedbench: error: {exc}{mirror}", file=sys.stderr)
        return 1
    bar.close()
    for g in got:
        how = "fetched" if g.downloaded else "already fetched"
        if g.resumed_from:
            how += f" (resumed at {g.resumed_from:,} bytes)"
        check = (
            "matches the manifest's pin"
            if g.pinned and args.sha256 is None
            else "matches --sha256"
            if args.sha256 is not None
            else "NO PIN: compare it with a value you trust; recorded next to the file"
        )
        print(f"{g.dataset}: {g.file} {how}: {g.path}")
        print(f"  sha256 {g.sha256} ({check})")
    return 0


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "data_action", None)
    if action == "fetch":
        return run_fetch(args)
    if action == "show":
        return run_show(args)
    if action == "path":
        return run_path(args)
    return run_list(args)


COMMANDS = {"data": run}
