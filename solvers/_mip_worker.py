"""The child-process side of ``mip-cbc`` and ``mip-highs`` (``solvers.mip``): one MILP at a time,
built and solved through PuLP.

This module runs only inside the worker process that ``solvers.mip`` starts with the ``spawn``
method. It is the only place in schedbench that imports PuLP, and PuLP imports highspy, whose
HiGHS library cannot share a process with OR-Tools (which bundles its own HiGHS; whichever loads
second fails with an undefined symbol). Importing this module is harmless — PuLP is imported
inside the functions — but calling them in the main process would defeat that isolation.

Protocol (over a ``multiprocessing`` pipe, plain Python and numpy values only):

* ``{"op": "probe"}`` → ``{"status": "ok", "cbc": (ok, reason), "highs": (ok, reason),
  "versions": {...}}``
* ``{"op": "solve", "backend": "cbc" | "highs", "c", "ub", "A", "lo", "hi", "time_limit",
  "deadline", "threads", "gap_abs", "start", "cbc_options"}`` — maximise ``c·v`` subject to
  ``lo <= A v <= hi`` and ``0 <= v <= ub``, ``v`` integer; the time limit is the smaller of
  ``time_limit`` and ``deadline`` (``time.monotonic``) — → ``{"status": "optimal" | "feasible" |
  "timeout" | "infeasible" | "error", "x", "objective", "bound", "time", "trace", "message",
  "proof"}``. ``optimal`` means the solver itself proved it (CBC's solution file says
  "Optimal", HiGHS's model status is kOptimal) under a relative gap of 0 and the absolute gap
  ``gap_abs``; ``timeout`` means the time limit stopped it (``x`` is the incumbent, or None);
  ``proof`` False means neither ``optimal`` nor ``infeasible`` is proven (CBC crashed and the
  solve was retried with preprocessing on; see ``solvers.mip``).
* ``{"op": "stop"}`` ends the loop.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np

from schedbench.simcore.fdcapture import captured_output, stdout_to_stderr

_CBC_INSTALL = (
    "PuLP's bundled CBC binary is missing or not executable and no `cbc` is on PATH; "
    "reinstall PuLP (`pip install --force-reinstall pulp`) or install CBC "
    "(`apt-get install coinor-cbc` / `conda install -c conda-forge coin-or-cbc`)"
)
_HIGHS_INSTALL = (
    "highspy is not importable in the MIP worker; install it with `pip install highspy`"
)


def serve(conn: Any, tmpdir: str | None = None) -> None:
    """The worker's main loop: answer requests until "stop" or until the parent goes away.

    ``tmpdir`` (made and removed by the parent) receives every temporary file."""
    if tmpdir:
        os.environ["TMPDIR"] = tmpdir  # PuLP's MPS and solution files
        tempfile.tempdir = tmpdir
    if hasattr(os, "setpgrp"):
        # Own process group: Ctrl-C in the parent's terminal does not hit the worker mid-solve,
        # and the parent can kill the worker together with a CBC child it may be running.
        os.setpgrp()
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(tmpdir)
    # The worker shares the parent's stdout, which carries the parent's document (the JSON of
    # `schedbench solve`): anything printed outside a request goes to stderr instead.
    stdout_to_stderr()
    state: dict[str, Any] = {}
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break
        op = request.get("op") if isinstance(request, dict) else None
        if op == "stop":
            break
        with captured_output(f"MIP worker {op}", log=False) as printed:
            try:
                if op == "probe":
                    reply = probe()
                elif op == "solve":
                    reply = solve_milp(request, state)
                else:
                    reply = {"status": "error", "message": f"unknown request {op!r}"}
            except Exception as exc:  # a request that fails must not take the worker down
                reply = {"status": "error", "message": f"{type(exc).__name__}: {exc}"}
        # What the libraries printed (HiGHS's banner, CBC's log) travels back with the reply;
        # the parent logs it (simcore/fdcapture.py), so it never reaches the parent's stdout.
        reply["output"] = "".join(printed)
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            break
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _watch_parent(tmpdir: str | None) -> None:
    """Exit (with any CBC child, removing ``tmpdir``) when the parent dies: re-parenting changes
    ``getppid()``."""
    parent = os.getppid()
    if not hasattr(os, "killpg"):
        return

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                if tmpdir:
                    shutil.rmtree(tmpdir, ignore_errors=True)
                with contextlib.suppress(OSError):
                    os.killpg(os.getpgrp(), signal.SIGKILL)
                os._exit(1)

    threading.Thread(target=watch, name="mip-worker-parent-watch", daemon=True).start()


def _import_pulp() -> Any:
    if "ortools" in sys.modules:
        # Loading highspy (through PuLP) next to OR-Tools fails with an undefined symbol.
        raise RuntimeError(
            "OR-Tools was imported into the MIP worker; the worker must stay free of OR-Tools"
        )
    import pulp

    return pulp


def probe() -> dict[str, Any]:
    """Which backends work here, and if not, how to install them."""
    try:
        pulp = _import_pulp()
    except ImportError as exc:
        reason = f"PuLP is not importable in the MIP worker ({exc}); install it: `pip install pulp`"
        return {"status": "ok", "cbc": (False, reason), "highs": (False, reason), "versions": {}}
    cbc = _cbc_command(pulp, msg=False)
    highs_ok = bool(pulp.HiGHS(msg=False).available())
    versions = {"pulp": getattr(pulp, "__version__", "?")}
    if highs_ok:
        import highspy

        try:
            versions["highs"] = highspy.Highs().version()  # type: ignore[no-untyped-call]
        except Exception as exc:  # an old highspy without version(): say so, not fail
            versions["highs"] = f"unknown ({type(exc).__name__})"
    return {
        "status": "ok",
        "cbc": (
            cbc is not None,
            "" if cbc is not None else "; ".join([_CBC_INSTALL, *_CBC_FAILURES]),
        ),
        "highs": (highs_ok, "" if highs_ok else _HIGHS_INSTALL),
        "versions": versions,
    }


def _cbc_command(pulp: Any, **options: Any) -> Any:
    """PuLP's bundled CBC, else a ``cbc`` on PATH, else None."""
    for cls in (pulp.PULP_CBC_CMD, pulp.COIN_CMD):
        try:
            solver = cls(**options)
            if solver.available():
                return solver
        except Exception as exc:  # PuLP raises its own errors for a missing binary
            _CBC_FAILURES.append(f"{cls.__name__}: {type(exc).__name__}: {exc}")
    return None


#: Why each CBC command could not be built (reported by the probe).
_CBC_FAILURES: list[str] = []


# -- one MILP ----------------------------------------------------------------------------------
def solve_milp(request: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    pulp = _import_pulp()
    c = np.asarray(request["c"], dtype=np.float64)
    ub = np.asarray(request["ub"], dtype=np.int64)
    a = np.asarray(request["A"], dtype=np.float64).reshape(-1, c.size)
    lo = np.asarray(request["lo"], dtype=np.float64)
    hi = np.asarray(request["hi"], dtype=np.float64)
    time_limit = float(request["time_limit"])
    threads = int(request.get("threads", 1))
    gap_abs = float(request.get("gap_abs", 0.5))
    start = request.get("start")
    n = c.size

    # Model: v[j] = how many of the jobs in group j are selected (0/1 for a single job).
    prob = pulp.LpProblem("schedbench_selection", pulp.LpMaximize)
    v = [
        pulp.LpVariable(
            f"v{j}", lowBound=0, upBound=int(ub[j]), cat="Binary" if ub[j] == 1 else "Integer"
        )
        for j in range(n)
    ]
    prob += pulp.LpAffineExpression([(v[j], float(c[j])) for j in np.flatnonzero(c)])
    for i in range(a.shape[0]):
        nz = np.flatnonzero(a[i])
        if nz.size == 0:
            if lo[i] > 0 or hi[i] < 0:
                return _reply("infeasible", message=f"row {i} has no terms and excludes 0")
            continue
        expr = pulp.LpAffineExpression([(v[j], float(a[i, j])) for j in nz])
        if math.isfinite(lo[i]) and lo[i] == hi[i]:
            prob += expr == float(lo[i]), f"r{i}"
            continue
        if math.isfinite(hi[i]):
            prob += expr <= float(hi[i]), f"r{i}_hi"
        if math.isfinite(lo[i]):
            prob += expr >= float(lo[i]), f"r{i}_lo"
    if start is not None:
        for var, value in zip(v, start, strict=True):
            var.setInitialValue(int(value))

    if "deadline" in request:
        # Absolute (time.monotonic, system-wide): time spent queued or starting up counts too.
        time_limit = min(time_limit, float(request["deadline"]) - time.monotonic())
    if time_limit <= 0:
        return _reply("timeout", message="no time left")
    if request["backend"] == "cbc":
        options = [str(o) for o in request.get("cbc_options", ())]
        return _solve_cbc(pulp, prob, v, time_limit, threads, gap_abs, start is not None, options)
    if request["backend"] == "highs":
        return _solve_highs(pulp, prob, v, time_limit, threads, gap_abs, start, state)
    return _reply("error", message=f"unknown backend {request['backend']!r}")


def _reply(status: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "status": status,
        "x": None,
        "objective": None,
        "bound": None,
        "time": 0.0,
        "trace": [],
        "message": "",
        "proof": True,  # False: neither "optimal" nor "infeasible" is proven
    }
    out.update(fields)
    return out


def _values(v: list[Any]) -> np.ndarray:
    # A variable that appears in no row and has no objective term has no value: it is 0.
    raw = [0.0 if var.varValue is None else var.varValue for var in v]
    return np.rint(np.asarray(raw, dtype=np.float64)).astype(np.int64)


_CBC_SOLUTION = re.compile(
    r"Integer solution of (-?[\d.eE+-]+) found.*?\(([\d.]+) seconds\)", re.IGNORECASE
)
_CBC_RESULT = re.compile(r"^Result - (.*)$", re.MULTILINE)
_CBC_BOUND = re.compile(r"^(?:Lower|Upper) bound:\s+(-?[\d.eE+-]+)", re.MULTILINE)


def _solve_cbc(
    pulp: Any,
    prob: Any,
    v: list[Any],
    time_limit: float,
    threads: int,
    gap_abs: float,
    warm: bool,
    extra: list[str],
) -> dict[str, Any]:
    fd, log_path = tempfile.mkstemp(prefix="schedbench-cbc-", suffix=".log")
    os.close(fd)
    try:
        options: dict[str, Any] = dict(
            msg=False,
            timeLimit=round(time_limit, 3),
            gapRel=0,
            gapAbs=gap_abs,
            logPath=log_path,
            warmStart=warm,
            options=extra,
        )
        if threads > 1:
            options["threads"] = threads
        solver = _cbc_command(pulp, **options)
        if solver is None:
            return _reply("error", message=_CBC_INSTALL)
        began = time.perf_counter()
        proof, note = True, ""
        try:
            prob.solve(solver)
        except pulp.PulpSolverError:
            if "preprocess off" not in extra:
                raise
            # CBC 2.10.3 with preprocessing off segfaults while writing the solution of a problem
            # its bound tightening found infeasible. Preprocessing on does not crash but is known
            # to cut off optima here, so this second answer is no proof either way.
            left = time_limit - (time.perf_counter() - began)
            if left <= 0.01:
                return _reply("timeout", message="CBC crashed; no time left to retry")
            options["options"] = [o for o in extra if o != "preprocess off"]
            options["timeLimit"] = round(left, 3)
            prob.solve(_cbc_command(pulp, **options))
            proof = False
            note = "CBC crashed with preprocessing off; retried with it on (no proof)"
        took = time.perf_counter() - began
        with open(log_path, errors="replace") as f:
            log = f.read()
    finally:
        with contextlib.suppress(OSError):
            os.remove(log_path)

    # CBC minimises -c·v: the log's objective values are negated.
    trace = [(float(t), -float(obj)) for obj, t in _CBC_SOLUTION.findall(log)]
    result = _CBC_RESULT.search(log)
    result_text = result.group(1).strip() if result else ""
    bound_match = _CBC_BOUND.search(log)
    bound = float(bound_match.group(1)) if bound_match else None
    # PuLP's ``status`` says "Optimal" for a time-limited incumbent; ``sol_status`` (read from the
    # first word of CBC's solution file) and CBC's "Result -" line tell the truth.
    x = _values(v)
    if prob.status == pulp.LpStatusInfeasible or result_text.lower().startswith("problem proven"):
        return _reply("infeasible", time=took, message=note or result_text, proof=proof)
    proven = prob.sol_status == pulp.LpSolutionOptimal and (
        not result_text or result_text.lower().startswith("optimal")
    )
    has_solution = x is not None and prob.sol_status in (
        pulp.LpSolutionOptimal,
        pulp.LpSolutionIntegerFeasible,
    )
    objective = float(pulp.value(prob.objective) or 0.0) if has_solution else None
    if proven:
        status = "optimal"
    elif "time" in result_text.lower() or took >= time_limit * 0.95:
        status = "timeout"
    else:
        status = "feasible" if has_solution else "error"
    return _reply(
        status,
        x=x if has_solution else None,
        objective=objective,
        bound=bound,
        time=took,
        trace=trace,
        message=note or result_text or f"PuLP status {pulp.LpStatus.get(prob.status, prob.status)}",
        proof=proof,
    )


def _solve_highs(
    pulp: Any,
    prob: Any,
    v: list[Any],
    time_limit: float,
    threads: int,
    gap_abs: float,
    start: Any,
    state: dict[str, Any],
) -> dict[str, Any]:
    import highspy

    if state.get("highs_threads", threads) != threads:
        # HiGHS keeps one global thread pool; a new thread count needs a fresh one.
        highspy.Highs.resetGlobalScheduler(True)
    state["highs_threads"] = threads
    trace: list[tuple[float, float]] = []

    class _HiGHS(pulp.HiGHS):  # type: ignore[misc]  # PuLP is untyped
        """PuLP's HiGHS interface plus a warm start and an improving-solution callback."""

        def callSolver(self, lp: Any) -> None:
            h = lp.solverModel

            def improving(event: Any) -> None:
                out = event.data_out
                trace.append((float(out.running_time), -float(out.objective_function_value)))

            h.cbMipImprovingSolution.subscribe(improving)
            if start is not None:
                sol = highspy.HighsSolution()
                sol.col_value = [float(x) for x in start]
                sol.value_valid = True
                h.setSolution(sol)
            h.run()

    solver = _HiGHS(
        msg=False,
        timeLimit=time_limit,
        gapRel=0.0,
        gapAbs=gap_abs,
        threads=threads,
    )
    began = time.perf_counter()
    prob.solve(solver)
    took = time.perf_counter() - began
    h = prob.solverModel
    model_status = h.getModelStatus()
    info = h.getInfo()
    statuses = highspy.HighsModelStatus
    primal_ok = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = _values(v) if primal_ok else None
    objective = float(pulp.value(prob.objective) or 0.0) if x is not None else None
    bound = -float(info.mip_dual_bound) if math.isfinite(info.mip_dual_bound) else None
    text = h.modelStatusToString(model_status)
    if model_status == statuses.kInfeasible:
        return _reply("infeasible", time=took, message=text)
    if model_status == statuses.kOptimal and x is not None:
        # kOptimal means the gap closed to mip_rel_gap = 0 or mip_abs_gap < 1 (integer objective).
        status = "optimal"
    elif model_status == statuses.kTimeLimit:
        status = "timeout"
    elif x is not None:
        status = "feasible"
    else:
        status = "error"
    return _reply(
        status,
        x=x,
        objective=objective,
        bound=bound,
        time=took,
        trace=trace,
        message=text,
    )
