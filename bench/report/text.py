"""The text of ``schedbench report`` (``bench.api.report``): leaderboards, failed cells and the
path of the HTML report."""

from __future__ import annotations

from pathlib import Path


def report_text(
    store: Path,
    suite: str | None,
    *,
    markdown: bool,
    all_latency: bool,
    html: Path | None,
    wide: bool = False,
) -> str:
    """The leaderboards (compact, at most 100 columns with a legend; every column with
    ``wide`` or ``markdown``), the failed cells with their reasons, and the HTML report."""
    from schedbench.bench import report
    from schedbench.bench.report.html import html_report
    from schedbench.bench.report.terminal import (
        decision_table,
        failed_table,
        simulation_table,
    )
    from schedbench.bench.store import ResultStore, StoreError

    with ResultStore(store, readonly=True) as st:
        if suite is not None and suite not in st.suites():
            known = ", ".join(st.suites()) or "none"
            raise StoreError(f"{store}: no suite {suite!r} in this store (suites: {known})")
        rows = st.rows(suite)
        commits = sorted(
            {
                str((run.get("provenance") or {}).get("git", {}).get("commit", ""))[:12]
                + (
                    "+dirty"
                    if ((run.get("provenance") or {}).get("git") or {}).get("dirty")
                    else ""
                )
                for run in st.runs(suite)
                if (run.get("provenance") or {}).get("git")
            }
        )
    lines: list[str] = []
    fmt = "github" if markdown else "simple"
    full = wide or markdown
    dec = report.decision_leaderboard(rows, alone_only=not all_latency)
    if dec:
        lines.append("\nDecision quality and latency (per solver):")
        lines.append(report.format_table(dec, fmt=fmt) if full else decision_table(dec))
    sim = report.simulation_leaderboard(rows)
    if sim:
        lines.append("\nSimulations (per scenario and policy):")
        lines.append(report.format_table(sim, fmt=fmt) if full else simulation_table(sim))
    failures = report.failed_cells(rows, width=None if not full else 100)
    if failures:
        lines.append(f"\nFailed cells ({len(failures)}):")
        lines.append(
            report.format_table(failures[:20], fmt=fmt) if full else failed_table(failures[:20])
        )
        if len(failures) > 20:
            lines.append(f"... and {len(failures) - 20} more (all of them in the HTML report)")
    if html is not None:
        suites = sorted({str(r.get("suite")) for r in rows})
        source = f"suite {', '.join(suites)} | commit {', '.join(commits) or 'unknown'}"
        out = html_report(
            rows,
            html,
            title=f"schedbench: {suite or store.name}",
            runs_root=store.parent,
            source=source,
        )
        lines.append(f"\nHTML report: {out}")
    return "\n".join(lines)
