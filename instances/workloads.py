"""Workload specs: one string names an SWF file or a generator, plus optional transformations.

Grammar (used by ``schedbench simulate --workload`` and, later, by suites)::

    SPEC      := SOURCE ( "+" TRANSFORM )*
    SOURCE    := PATH.swf[.gz]               an SWF file (instances/swf.py)
               | DATASET[/MEMBER]            an SWF dataset by name (instances/datasets.py;
                                             ``schedbench data`` lists them)
               | "lublin:" k=v,...           the Lublin–Feitelson model (instances/lublin.py)
    TRANSFORM := "bbsched:" SCENARIO [,k=v]  BBSched S1–S7 (instances/bbsched.py)
               | "arrivals:" FACTOR          arrival-rate factor (denser when > 1)
               | "load:" k=v,...             offered loads: nodes=L, bb=L, system=PRESET|TOML,
                                             warmup=F, cooldown=F (instances/load.py: arrival
                                             factor and burst-buffer scale found per workload)
               | "bbscale:" FACTOR           burst-buffer requests x FACTOR (whole GB)
               | "head:" N                   the first N jobs

Examples: ``kth-sp2`` (the shipped KTH-SP2 log), ``kth-sp2+head:1000``, ``traces/my-log.swf.gz``,
``lublin:jobs=10000,nodes=256,seed=1``,
``lublin:jobs=20000,nodes=4392,seed=3+bbsched:S4,seed=3+arrivals:1.5``,
``lublin:jobs=8000,nodes=4392,seed=3+bbsched:S4,seed=3+load:nodes=0.85,bb=1.3,system=theta``.

Generator keys are passed to the generator as keyword arguments (numbers converted); an
unknown key is reported with the keys the generator accepts.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import check_regular
from schedbench.simcore.workload import Workload

if TYPE_CHECKING:
    from schedbench.simcore.stream import JobChunk


class WorkloadSpecError(SchedbenchError, ValueError):
    """A workload spec that cannot be understood; the message quotes the part at fault."""


#: Most jobs a generator may make: a typo of a few zeros must not fill the memory.
MAX_GENERATED_JOBS = 10_000_000
#: Largest offered load ``load:`` accepts (1 is a machine busy all the time).
MAX_OFFERED_LOAD = 100.0
#: Largest arrival scaling factor ``arrivals:`` accepts.
MAX_ARRIVAL_FACTOR = 1e6


def _value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _kv(text: str, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not text:
        return out
    for part in text.split(","):
        if "=" not in part:
            raise WorkloadSpecError(f"{where}: expected key=value, got {part!r}")
        k, v = part.split("=", 1)
        if k.strip() in out:
            raise WorkloadSpecError(f"{where}: key {k.strip()!r} given twice")
        out[k.strip()] = _value(v.strip())
    seed = out.get("seed")
    if seed is not None and (not isinstance(seed, int) or not 0 <= seed < 2**32):
        raise WorkloadSpecError(f"{where}: seed: expected an integer in 0..2**32-1, got {seed!r}")
    return out


def _jobs(kw: dict[str, Any], where: str) -> int:
    """The ``jobs`` key of a generator spec, bounded."""
    if "jobs" not in kw:
        raise WorkloadSpecError(f"{where}: missing key 'jobs' (number of jobs to generate)")
    n = kw.pop("jobs")
    if not isinstance(n, int) or not 1 <= n <= MAX_GENERATED_JOBS:
        raise WorkloadSpecError(
            f"{where}: jobs: expected an integer from 1 to {MAX_GENERATED_JOBS:,}, got {n!r}"
        )
    return n


def _factor(args: str, where: str, high: float) -> float:
    """A positive finite factor of at most ``high``."""
    try:
        factor = float(args)
    except ValueError as exc:
        raise WorkloadSpecError(f"{where}: expected a number, got {args!r}") from exc
    if not 0 < factor <= high:
        raise WorkloadSpecError(f"{where}: expected a factor in (0, {high:g}], got {args!r}")
    return factor


def _head_count(args: str, where: str) -> int:
    try:
        n = int(args)
    except ValueError as exc:
        raise WorkloadSpecError(f"{where}: expected an integer, got {args!r}") from exc
    if n < 1:
        raise WorkloadSpecError(f"{where}: expected a number of jobs >= 1, got {n}")
    return n


def _check_keys(fn: Callable[..., Workload], where: str, kw: dict[str, Any]) -> None:
    params = inspect.signature(fn).parameters
    accepted = [p for p in params if params[p].kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = [k for k in kw if k not in accepted]
    if unknown:
        raise WorkloadSpecError(
            f"{where}: unknown key {unknown[0]!r}; accepted: {', '.join(accepted)}"
        )


def _call(fn: Callable[..., Workload], where: str, *args: Any, **kw: Any) -> Workload:
    _check_keys(fn, where, kw)
    try:
        return fn(*args, **kw)
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, SchedbenchError):
            raise
        raise WorkloadSpecError(f"{where}: {exc}") from exc


def _lublin(args: str, where: str) -> Workload:
    from schedbench.instances.lublin import generate_lublin

    kw = _kv(args, where)
    n = _jobs(kw, where)
    return _call(generate_lublin, where, n, **kw)


GENERATORS: dict[str, Callable[[str, str], Workload]] = {"lublin": _lublin}


def _bbsched(w: Workload, args: str, where: str) -> Workload:
    from schedbench.instances.bbsched import bbsched_scenario

    name, _, rest = args.partition(",")
    return _call(bbsched_scenario, where, w, name.strip(), **_kv(rest, where))


def _arrivals(w: Workload, args: str, where: str) -> Workload:
    from schedbench.instances.bbsched import scale_arrivals

    return scale_arrivals(w, _factor(args, where, MAX_ARRIVAL_FACTOR))


_LOAD_KEYS = ("nodes", "bb", "system", "warmup", "cooldown")


def _load_args(args: str, where: str) -> dict[str, Any]:
    kw = _kv(args, where)
    unknown = [k for k in kw if k not in _LOAD_KEYS]
    if unknown:
        raise WorkloadSpecError(
            f"{where}: unknown key {unknown[0]!r}; accepted: {', '.join(_LOAD_KEYS)}"
        )
    for key in ("nodes", "bb"):
        v = kw.get(key)
        if v is not None and (isinstance(v, str) or not 0 < v <= MAX_OFFERED_LOAD):
            raise WorkloadSpecError(
                f"{where}: {key}: expected an offered load in (0, {MAX_OFFERED_LOAD:g}], got {v!r}"
            )
    if "nodes" not in kw and "bb" not in kw:
        raise WorkloadSpecError(f"{where}: expected nodes=LOAD and/or bb=LOAD")
    if "bb" in kw and "system" not in kw:
        raise WorkloadSpecError(
            f"{where}: bb needs the machine: add system=PRESET or system=FILE.toml"
        )
    for key in ("warmup", "cooldown"):
        v = kw.get(key)
        if v is not None and (isinstance(v, str) or not 0 <= v < 1):
            raise WorkloadSpecError(
                f"{where}: {key}: expected a fraction of the submit span in [0, 1), got {v!r}"
            )
    if "system" in kw:
        kw["system"] = str(kw["system"])
    return kw


def _load(w: Workload, args: str, where: str) -> Workload:
    from schedbench.instances.load import LoadError, with_load
    from schedbench.instances.systems import resolve_system

    kw = _load_args(args, where)
    try:
        system = resolve_system(kw.pop("system", None), workload=w)
        return with_load(w, system, **kw)
    except (LoadError, SchedbenchError) as exc:
        raise WorkloadSpecError(f"{where}: {exc}") from exc


def _bbscale(w: Workload, args: str, where: str) -> Workload:
    from schedbench.instances.load import scale_bb

    return scale_bb(w, _factor(args, where, MAX_ARRIVAL_FACTOR))


def _head(w: Workload, args: str, where: str) -> Workload:
    return w.take(slice(0, _head_count(args, where)))


TRANSFORMS: dict[str, Callable[[Workload, str, str], Workload]] = {
    "bbsched": _bbsched,
    "arrivals": _arrivals,
    "load": _load,
    "bbscale": _bbscale,
    "head": _head,
}


def _split(spec: str) -> tuple[str, list[str]]:
    """(source, transforms) of a spec; a path may itself contain '+': the source grows until
    it names an existing file."""
    parts = spec.split("+")
    k = 1
    while (
        k < len(parts) and not Path(parts[0]).exists() and Path("+".join(parts[: k + 1])).exists()
    ):
        k += 1
    return "+".join(parts[:k]), parts[k:]


def _not_found(source: str) -> WorkloadSpecError:
    return WorkloadSpecError(
        f"workload {source!r}: no such file, not a dataset (see 'schedbench data') and not a "
        f"generator ({', '.join(g + ':...' for g in GENERATORS)})"
    )


def _dataset_swf(source: str) -> Path | None:
    """The SWF file of a dataset reference (``kth-sp2``), None when ``source`` is none; a
    dataset that is not SWF, or not fetched yet, is an error naming it."""
    from schedbench.instances import datasets

    if not datasets.is_ref(source):
        return None
    ds, f = datasets.resolve(source)
    if f is None or f.format != "swf":
        swf = [
            d.name
            for d in datasets.catalogue().values()
            if d.default and d.member(d.default).format == "swf"
        ]
        if f is None:
            files = ", ".join(f"{ds.name}/{x.key}" for x in ds.files)
            raise WorkloadSpecError(
                f"workload {source!r}: dataset {ds.name!r} holds several files; name one: {files}"
            )
        raise WorkloadSpecError(
            f"workload {source!r}: dataset {ds.name!r} is a {f.format} file, not an SWF "
            f"workload; SWF datasets: {', '.join(swf)}"
        )
    return datasets.path(source)


def check_workload_spec(spec: str) -> None:
    """Raise ``WorkloadSpecError`` for a spec that ``load_workload`` would refuse for its form —
    unknown generator, transform or key, a value of the wrong kind, a missing file — without
    generating or reading anything (for ``schedbench run --plan``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise WorkloadSpecError(f"workload {spec!r}: expected an SWF path or a generator spec")
    source, transforms = _split(spec)
    kind, sep, args = source.partition(":")
    if sep and kind in GENERATORS:
        from schedbench.instances.lublin import generate_lublin

        where = f"workload {source!r}"
        kw = _kv(args, where)
        _jobs(kw, where)
        _check_keys(generate_lublin, where, kw)
    elif Path(source).exists():
        try:
            check_regular(source, label=f"workload {source!r}")
        except SchedbenchError as exc:
            raise WorkloadSpecError(str(exc)) from exc
    elif _dataset_swf(source) is None:
        raise _not_found(source)
    for t in transforms:
        name, _, targs = t.partition(":")
        where = f"workload transform {t!r}"
        if name.strip() not in TRANSFORMS:
            raise WorkloadSpecError(f"{where}: unknown; known: {', '.join(TRANSFORMS)}")
        if name.strip() == "bbsched":
            from schedbench.instances.bbsched import SCENARIOS, bbsched_scenario

            scen, _, rest = targs.partition(",")
            if scen.strip().upper() not in SCENARIOS:
                raise WorkloadSpecError(f"{where}: expected one of {', '.join(SCENARIOS)}")
            _check_keys(bbsched_scenario, where, _kv(rest, where))
        elif name.strip() in ("arrivals", "bbscale"):
            _factor(targs, where, MAX_ARRIVAL_FACTOR)
        elif name.strip() == "load":
            _load_args(targs, where)
        elif name.strip() == "head":
            _head_count(targs, where)


def load_workload(spec: str, *, on_bad_line: Literal["error", "skip"] = "error") -> Workload:
    """Resolve a workload spec (see the module docstring) into a :class:`Workload`."""
    if not isinstance(spec, str) or not spec.strip():
        raise WorkloadSpecError(f"workload {spec!r}: expected an SWF path or a generator spec")
    source, transforms = _split(spec)
    kind, sep, args = source.partition(":")
    if sep and kind in GENERATORS:
        w = GENERATORS[kind](args, f"workload {source!r}")
    else:
        from schedbench.instances.swf import read_swf

        path = Path(source)
        if path.exists():
            w = read_swf(path, on_bad_line=on_bad_line)
        else:
            found = _dataset_swf(source)
            if found is None:
                raise _not_found(source)
            # named by the dataset in outputs, not by its path inside the package
            w = read_swf(found, on_bad_line=on_bad_line).replace(source=source)
    for t in transforms:
        name, _, args = t.partition(":")
        fn = TRANSFORMS.get(name.strip())
        if fn is None:
            raise WorkloadSpecError(
                f"workload transform {t!r}: unknown; known: {', '.join(TRANSFORMS)}"
            )
        w = fn(w, args, f"workload transform {t!r}")
    if transforms:
        w = w.replace(source=spec)
    return w


@dataclass(frozen=True)
class StreamedWorkload:
    """A workload for a streamed run (``simcore/stream.py``): its chunks, its number of jobs
    and the machine size its generator or header names (None when unknown)."""

    chunks: Iterator[JobChunk]
    jobs: int
    max_nodes: int | None
    source: str


def stream_workload(
    spec: str, *, chunk: int = 1 << 16, on_bad_line: Literal["error", "skip"] = "error"
) -> StreamedWorkload:
    """A workload spec as chunks of ``chunk`` jobs. A ``lublin:`` generator spec without
    transforms is generated lazily, one chunk at a time (``instances/lublin_stream.py``: the
    same model and arguments, but not the same jobs as ``load_workload`` makes of the spec);
    any other spec (a trace, a dataset, transforms) is loaded whole by :func:`load_workload`,
    then handed over in chunks."""
    from schedbench.instances.lublin import generate_lublin
    from schedbench.instances.lublin_stream import iter_lublin
    from schedbench.simcore.stream import chunks_of

    if isinstance(spec, str):
        source, transforms = _split(spec)
        kind, sep, args = source.partition(":")
        if sep and kind == "lublin" and not transforms:
            where = f"workload {source!r}"
            kw = _kv(args, where)
            n = _jobs(kw, where)
            _check_keys(generate_lublin, where, kw)
            try:
                chunks = iter_lublin(n, chunk=chunk, **kw)
            except (TypeError, ValueError) as exc:
                if isinstance(exc, SchedbenchError):
                    raise
                raise WorkloadSpecError(f"{where}: {exc}") from exc
            return StreamedWorkload(chunks, n, int(kw.get("nodes", 256)), f"{source} (streamed)")
    w = load_workload(spec, on_bad_line=on_bad_line)
    return StreamedWorkload(chunks_of(w, chunk), len(w), w.machine_size, w.source)
