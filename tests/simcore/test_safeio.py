"""simcore/safeio.py: the one reader and the one writer every command goes through."""

from __future__ import annotations

import errno
import gzip
import os
import sys
from pathlib import Path

import pytest

from schedbench.simcore import safeio
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import InputFileError, OutputError


# -- reading -------------------------------------------------------------------------------------
def test_a_regular_file_is_read_and_gzip_is_gunzipped(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_text("hello\n")
    packed = tmp_path / "a.txt.gz"
    packed.write_bytes(gzip.compress(b"hello\n"))
    assert safeio.read_text(plain) == safeio.read_text(packed) == "hello\n"
    assert safeio.read_bytes(packed, gunzip=False)[:2] == b"\x1f\x8b"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_by_name_without_blocking(tmp_path):
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)  # nobody writes it: a plain open would wait forever
    with pytest.raises(InputFileError, match="expected a regular file, got a FIFO"):
        safeio.read_bytes(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_by_name():
    with pytest.raises(InputFileError, match="/dev/zero: expected a regular file, got a device"):
        safeio.read_bytes("/dev/zero")


def test_a_folder_and_a_missing_file_are_one_line(tmp_path):
    with pytest.raises(InputFileError, match="got a folder"):
        safeio.read_bytes(tmp_path)
    with pytest.raises(InputFileError, match="no such file"):
        safeio.read_bytes(tmp_path / "nope")


def test_the_size_cap_is_read_incrementally_and_stated(tmp_path, monkeypatch):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(InputFileError, match=r"larger than the input cap of 4,096 bytes"):
        safeio.read_bytes(big, max_bytes=4096)
    monkeypatch.setenv(safeio.MAX_INPUT_ENV, "1k")  # the environment overrides a format's cap
    with pytest.raises(
        InputFileError, match=rf"1,024 bytes \(raise it with {safeio.MAX_INPUT_ENV}"
    ):
        safeio.read_bytes(big, max_bytes=10**9)
    monkeypatch.setenv(safeio.MAX_INPUT_ENV, "10k")
    assert len(safeio.read_bytes(big)) == 5000
    monkeypatch.setenv(safeio.MAX_INPUT_ENV, "lots")
    with pytest.raises(InputFileError, match="expected a positive number of bytes"):
        safeio.read_bytes(big)


def test_a_gzip_bomb_is_refused_by_its_decompressed_size(tmp_path):
    bomb = tmp_path / "bomb.swf.gz"
    bomb.write_bytes(gzip.compress(b"0" * (8 << 20)))  # 8 MiB of zeros, a few kB on disk
    assert bomb.stat().st_size < 64 << 10
    with pytest.raises(InputFileError, match="decompressed data larger than the input cap"):
        safeio.read_bytes(bomb, max_bytes=1 << 20)


def test_garbage_gzip_and_bytes_that_are_not_utf8_are_one_line(tmp_path):
    bad = tmp_path / "bad.swf.gz"
    bad.write_bytes(gzip.compress(b"some text")[:12])
    with pytest.raises(InputFileError, match="expected complete gzip data"):
        safeio.read_bytes(bad)
    binary = tmp_path / "jobs.csv"
    binary.write_bytes(b"ok\xff\xfe")
    with pytest.raises(InputFileError, match="expected UTF-8 text, got byte 0xff at offset 2"):
        safeio.read_text(binary)


def test_json_with_a_key_given_twice_is_refused():
    assert safeio.loads_json('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}
    with pytest.raises(safeio.DuplicateKeyError, match="key 'a' given twice"):
        safeio.loads_json('{"a": 1, "a": 2}')


# -- writing -------------------------------------------------------------------------------------
def test_atomic_write_replaces_a_regular_file_and_creates_folders(tmp_path):
    target = tmp_path / "new" / "deeper" / "out.csv"
    safeio.atomic_write_text(target, "one")
    safeio.atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["out.csv"]  # no temporary left


def test_a_symlink_target_is_refused_and_left_alone(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "report.html"
    link.symlink_to(victim)
    with pytest.raises(OutputError, match=r"refusing to overwrite a symbolic link.*'-'"):
        safeio.atomic_write_text(link, "page")
    with pytest.raises(OutputError, match="symbolic link"), safeio.open_output(link) as fh:
        fh.write("x")
    assert link.is_symlink() and victim.read_text() == "keep me"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_a_folder_and_a_device_target_are_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="a FIFO"):
        safeio.atomic_write_text(fifo, "x")
    with pytest.raises(OutputError, match="a folder"):
        safeio.atomic_write_text(tmp_path, "x")
    if Path("/dev/null").exists():
        with pytest.raises(OutputError, match="a device"):
            safeio.check_output_target("/dev/null")


def test_dash_writes_to_stdout(capsys):
    assert safeio.atomic_write_text("-", "to stdout\n") == Path("-")
    assert capsys.readouterr().out == "to stdout\n"


def test_a_full_disk_is_one_line_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")

    def fill(fh):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OutputError, match=r"out.csv: cannot write: no space left on the device"):
        safeio.atomic_write(target, fill, text=True)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_permission_and_read_only_errors_are_one_line(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(safeio.tempfile, "mkstemp", refuse)
    with pytest.raises(OutputError, match="cannot write: permission denied"):
        safeio.atomic_write_text(tmp_path / "x.csv", "x")
    err = safeio.wrap_os_error(tmp_path / "y", OSError(errno.EROFS, "Read-only file system"))
    assert str(err).endswith("cannot write: read-only file system")


def test_output_folders_that_cannot_be_made_are_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(OutputError, match="afile: cannot create the output folder: a file"):
        safeio.ensure_dir(afile)
    with pytest.raises(OutputError, match="cannot create the output folder"):
        safeio.ensure_dir(afile / "sub")
    if sys.platform.startswith("linux"):
        with pytest.raises(OutputError, match="/proc/schedbench-out: cannot create"):
            safeio.ensure_dir("/proc/schedbench-out")
    assert safeio.ensure_dir(tmp_path / "a" / "b").is_dir()


def test_every_error_is_a_schedbench_error():
    assert issubclass(InputFileError, SchedbenchError) and issubclass(OutputError, SchedbenchError)
