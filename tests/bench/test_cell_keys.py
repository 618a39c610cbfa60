"""Stored simulation cells keep their keys now that scenarios are checked by their simulation
core: the ids below were computed by the code before cores were plug-ins, so stores written then
still ``--resume`` and ``compare`` against new runs."""

from __future__ import annotations

from schedbench.bench.suite import load_suite
from schedbench.bench.suite.plan import simulation_cells

SUITE = """
[suite]
name = "keys"
budget_s = 5

[[simulations]]
name = "engine"
workload = "lublin:jobs=50,nodes=64,seed=1+bbsched:S2,seed=1"
system = "theta"
priority = "wfp"
backfill = "conservative"
window = 10
warmup_s = 100
policy_options = { starvation = "legacy" }
policies = ["naive", "window:dp"]

[[simulations]]
name = "cb"
workload = "cerberus:jobs=30,seed=1"
system = "cerberus"
lifecycle = "cerberus"
window = 5
policy_options = { mode = "faithful" }
policies = ["cerberus-fcfs", "cerberus-maxt:dp"]
"""

#: (scenario, policy) -> (scenario hash, cell id, schema-version-1 id), as stored before.
STORED = {
    ("engine", "naive"): ("ba134773c907c7f5", "dd66369aca149403", "13e5e39558906bee"),
    ("engine", "window:dp"): ("ba134773c907c7f5", "ff86c3c21eb2c411", "7fc57daa4ab501f4"),
    ("cb", "cerberus-fcfs"): ("e61f73d456d162e4", "f151fee7d262ce1f", "33b072a6b1030414"),
    ("cb", "cerberus-maxt:dp"): ("e61f73d456d162e4", "5462d58ee30cc6c8", "6229b4f21c6328ce"),
}


def test_simulation_cells_keep_the_keys_stores_hold(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SUITE)
    cells = simulation_cells(load_suite(path))
    got = {(c.scenario.name, c.policy): (c.scenario_hash, c.cell_id, c.legacy_id) for c in cells}
    assert got == STORED


def test_the_cerberus_scenario_without_its_old_lifecycle_key_is_the_same_scenario(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SUITE.replace('lifecycle = "cerberus"\n', ""))
    cells = {c.policy: c for c in simulation_cells(load_suite(path))}
    assert cells["cerberus-fcfs"].cell_id == STORED[("cb", "cerberus-fcfs")][1]


def test_the_profile_keys_are_in_a_scenarios_key_only_when_set(tmp_path):
    """``profile = "paper"`` (the default) keeps the stored key; ``profile = "cqsim"`` and
    ``cqsim_rules`` make other scenarios."""
    keys = {}
    for extra in (
        'profile = "paper"\n',
        'profile = "cqsim"\n',
        'profile = "cqsim"\ncqsim_rules = { bb_abandon = false }\n',
    ):
        path = tmp_path / "s.toml"
        text = SUITE.replace('priority = "wfp"\n', "").replace(
            "window = 10\n", "window = 10\n" + extra, 1
        )
        path.write_text(text.replace('policy_options = { starvation = "legacy" }\n', "", 1))
        cells = {(c.scenario.name, c.policy): c for c in simulation_cells(load_suite(path))}
        keys[extra] = cells[("engine", "naive")].scenario_hash
    assert len(set(keys.values())) == 3
    path.write_text(SUITE.replace("window = 10\n", 'window = 10\nprofile = "paper"\n', 1))
    cells = {(c.scenario.name, c.policy): c for c in simulation_cells(load_suite(path))}
    assert cells[("engine", "naive")].scenario_hash == STORED[("engine", "naive")][0]
