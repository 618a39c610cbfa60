"""``schedbench data fetch`` (instances/fetch.py) against a local HTTP server that serves a
fixture, with ``Range`` support: a full download, a resumed one, a server that ignores
``Range``, a transfer cut off midway, a checksum mismatch, no server at all, unpinned logs,
and the progress bar only on a terminal."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import random
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.instances import datasets
from schedbench.instances.fetch import MIRROR_ENV, ChecksumError, FetchError, fetch

#: A small gzipped SWF (a few chunks long) standing in for an archive log.
_rng = random.Random(7)
FIXTURE = gzip.compress(
    "".join(
        f"{i} {i * 10} 0 {_rng.randint(1, 9999)} 4 -1 -1 4 10000 -1 1 1 1 -1 1 -1 -1 -1\n"
        for i in range(1, 20_000)
    ).encode(),
    mtime=0,
)
FIXTURE_SHA = hashlib.sha256(FIXTURE).hexdigest()
NAME = "sdsc-sp2"  # pinned in the manifest (the fixture does not match the pin)
FILE = datasets.get(NAME).files[0]


@dataclass
class Server:
    """What the handler serves and saw; ``ignore_range`` / ``cut_after`` misbehave on purpose."""

    url: str = ""
    body: bytes = FIXTURE
    only: str | None = None  # the one file name served (None: the fixture under any name)
    ignore_range: bool = False
    cut_after: int | None = None
    ranges: list[str | None] = field(default_factory=list)


def _handler(state: Server) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.ranges.append(self.headers.get("Range"))
            if state.only is not None and self.path.rsplit("/", 1)[-1] != state.only:
                self.send_error(404)
                return
            body, start = state.body, 0
            m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
            if m and not state.ignore_range:
                start = int(m.group(1))
                if start >= len(body):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            end = len(body) if state.cut_after is None else min(len(body), state.cut_after)
            self.wfile.write(body[start:end])

        def log_message(self, *args: object) -> None:  # keep the test output clean
            pass

    return Handler


@pytest.fixture
def server(monkeypatch) -> Iterator[Server]:
    state = Server()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/pwa"
    monkeypatch.setenv(MIRROR_ENV, state.url)
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(folder))
    monkeypatch.delenv("SCHEDBENCH_PROGRESS", raising=False)
    return folder


def _dest(cache: Path, name: str = NAME) -> Path:
    return cache / name / datasets.get(name).files[0].stored


def test_a_full_download_is_checked_then_renamed_into_place(server, cache, capsys):
    (got,) = fetch(NAME, sha256=FIXTURE_SHA)
    dest = _dest(cache)
    assert got.path == dest and got.downloaded and got.resumed_from == 0
    assert dest.read_bytes() == FIXTURE and got.sha256 == FIXTURE_SHA
    assert not dest.with_name(dest.name + ".part").exists()
    assert server.ranges == [None]
    # the name now resolves to it, and the workload reader takes it (gzip SWF)
    assert datasets.path(NAME) == dest
    from schedbench.instances.workloads import load_workload

    assert len(load_workload(NAME)) == 19_999
    # fetched again: already there and checked, nothing downloaded
    (again,) = fetch(NAME, sha256=FIXTURE_SHA)
    assert not again.downloaded and server.ranges == [None]
    # the listing: not the manifest's pin, but the value given at fetch (not a failure)
    assert main(["data", "--verify"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"{NAME}\s+fetched \(--sha256, not the pin\)", out)
    assert f"overridden  {NAME}/{FILE.name}" in out


def test_a_partial_download_resumes_with_a_range_request(server, cache):
    part = _dest(cache).with_name(_dest(cache).name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(FIXTURE[:50_000])
    seen: list[tuple[int, int | None]] = []
    (got,) = fetch(NAME, sha256=FIXTURE_SHA, progress=lambda d, t: seen.append((d, t)))
    assert server.ranges == ["bytes=50000-"]
    assert got.resumed_from == 50_000
    assert _dest(cache).read_bytes() == FIXTURE and not part.exists()
    assert seen[0] == (50_000, len(FIXTURE)) and seen[-1] == (len(FIXTURE), len(FIXTURE))


def test_a_server_that_ignores_range_is_read_from_the_start(server, cache):
    server.ignore_range = True
    part = _dest(cache).with_name(_dest(cache).name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"garbage that must not stay in front")
    (got,) = fetch(NAME, sha256=FIXTURE_SHA)
    assert got.resumed_from == 0 and _dest(cache).read_bytes() == FIXTURE


def test_a_complete_part_file_is_only_checked(server, cache):
    part = _dest(cache).with_name(_dest(cache).name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(FIXTURE)
    (got,) = fetch(NAME, sha256=FIXTURE_SHA)  # the server answers 416: nothing left to send
    assert server.ranges == [f"bytes={len(FIXTURE)}-"]
    assert got.downloaded and _dest(cache).read_bytes() == FIXTURE


def test_a_cut_transfer_keeps_the_part_file_and_the_next_run_resumes(server, cache):
    server.cut_after = 70_000
    with pytest.raises(FetchError) as info:
        fetch(NAME, sha256=FIXTURE_SHA)
    message = str(info.value)
    assert "stopped after 70,000 of" in message and "again to resume" in message
    part = _dest(cache).with_name(_dest(cache).name + ".part")
    assert part.read_bytes() == FIXTURE[:70_000] and not _dest(cache).exists()
    server.cut_after = None
    (got,) = fetch(NAME, sha256=FIXTURE_SHA)
    assert got.resumed_from == 70_000 and _dest(cache).read_bytes() == FIXTURE


def test_a_checksum_mismatch_keeps_nothing(server, cache, capsys):
    # the manifest's pin is the archive's file, not the fixture
    with pytest.raises(ChecksumError) as info:
        fetch(NAME)
    message = str(info.value)
    assert server.url in message and FIXTURE_SHA in message and FILE.sha256 in message
    assert "the manifest's pin" in message and "deleted" in message
    assert not any(p.is_file() for p in cache.rglob("*"))  # no file, no .part
    # the command: exit 1, one line naming the URL
    assert main(["data", "fetch", NAME, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("schedbench: error: http://127.0.0.1:")
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_no_server_is_one_line_naming_the_url_and_what_to_do(monkeypatch, cache, capsys):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(MIRROR_ENV, f"http://127.0.0.1:{port}")
    assert main(["data", "fetch", NAME, "--sha256", FIXTURE_SHA, "--timeout", "5"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cannot reach http://127.0.0.1:{port}/{Path(FILE.stored).name}" in err
    assert "check the network connection" in err and str(_dest(cache)) in err
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_an_http_error_is_one_line(server, cache):
    server.only = Path(FILE.stored).name
    with pytest.raises(FetchError, match=r"/HPC2N-2002-2.2-cln.swf.gz: HTTP 404"):
        fetch("hpc2n", sha256=FIXTURE_SHA)


def test_an_unpinned_log_needs_a_hash_or_consent(server, cache, capsys):
    assert datasets.get("llnl-atlas").files[0].sha256 is None
    assert main(["data", "fetch", "llnl-atlas"]) == 2
    err = capsys.readouterr().err
    assert "no published sha256" in err and "--sha256 HEX" in err and "--accept-unpinned" in err
    assert server.ranges == [] and not cache.exists()


def test_accept_unpinned_records_the_hash_and_later_checks_use_it(server, cache, capsys):
    name = "llnl-atlas"
    assert main(["data", "fetch", name, "--accept-unpinned", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"sha256 {FIXTURE_SHA} (NO PIN" in out
    dest = _dest(cache, name)
    side = dest.with_name(dest.name + ".sha256")
    assert dest.read_bytes() == FIXTURE and side.read_text().split()[0] == FIXTURE_SHA
    # the listing checks it against the recorded value, and notices a change
    assert main(["data"]) == 0
    assert re.search(rf"{name}\s+fetched", capsys.readouterr().out)
    dest.write_bytes(FIXTURE[:100] + bytes([FIXTURE[100] ^ 1]) + FIXTURE[101:])
    assert main(["data"]) == 1
    assert str(dest) in capsys.readouterr().err
    # fetching again replaces the changed file (it no longer matches what was recorded)
    assert main(["data", "fetch", name, "--accept-unpinned", "--no-progress"]) == 0
    assert dest.read_bytes() == FIXTURE


def test_the_progress_bar_shows_only_on_a_terminal_or_when_forced(
    server, cache, capsys, monkeypatch
):
    assert main(["data", "fetch", NAME, "--sha256", FIXTURE_SHA]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # stderr is not a terminal here: no bar
    assert f"{NAME}: {FILE.name} fetched: {_dest(cache)}" in captured.out
    assert "matches --sha256" in captured.out
    _dest(cache).unlink()
    monkeypatch.setenv("SCHEDBENCH_PROGRESS", "1")  # as for logs of long CI runs
    assert main(["data", "fetch", NAME, "--sha256", FIXTURE_SHA]) == 0
    err = capsys.readouterr().err
    assert NAME in err and "100%" in err


def test_fetching_a_shipped_dataset_is_a_no_op(cache, capsys):
    assert main(["data", "fetch", "kth-sp2"]) == 0
    assert "shipped with schedbench, nothing to fetch" in capsys.readouterr().out
    assert not cache.exists()


def test_a_bad_sha256_argument_is_refused_before_any_download(server, cache, capsys):
    assert main(["data", "fetch", NAME, "--sha256", "xyz"]) == 2
    assert "--sha256: expected 64 hex digits" in capsys.readouterr().err
    assert server.ranges == []
