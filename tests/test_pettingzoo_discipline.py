"""PettingZoo conventions beyond its API tests, and the environment page that cannot go stale.

* The registry: ``pettingzoo.make`` with :data:`treachery_env.REGISTRY_ID` gives ``env()``
  and ``parallel_env()``, whose ``metadata["name"]`` follows from the id by the rule
  PettingZoo's own environments follow (``classic/leduc_holdem_v4`` holds the environment
  named ``leduc_holdem_v4``): the id is the family, a slash and ``metadata["name"]``.
* Truncation at ``GameConfig.max_turns`` (what applies here instead of PettingZoo's
  ``max_cycles_test``, which cannot; ``docs/environment.md`` says why and the last test here
  checks the reasons it gives).
* ``docs/environment.md``: every number of its tables (spaces by table size, the
  observation sections, the action blocks, the arguments and their defaults) is the code's.
"""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
import re
from collections import Counter

import numpy as np
import pettingzoo
import pytest

import treachery_env
from treachery_env import GameConfig
from treachery_env.actions import ActionLayout
from treachery_env.env import raw_env
from treachery_env.observation import obs_layout

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "environment.md"
SIZES = range(4, 13)


# ------------------------------------------------------------------------------------------ registry
def _spec_name(metadata_name: str) -> tuple[str, int]:
    """``("leduc_holdem", 4)`` of ``"leduc_holdem_v4"``."""
    m = re.fullmatch(r"(.+)_v(\d+)", metadata_name)
    assert m, f"metadata name {metadata_name!r} does not end in _vN"
    return m.group(1), int(m.group(2))


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_the_registry_id_is_the_family_and_the_metadata_name(kind):
    """``pettingzoo.make(kind, REGISTRY_ID)`` builds our environment of that kind, with the
    keyword arguments given; its ``metadata["name"]`` is the id's name and version, and
    every spelling PettingZoo takes (``_vN``, ``-vN``, none) finds it."""
    spec = pettingzoo.spec(kind, treachery_env.REGISTRY_ID)
    e = pettingzoo.make(kind, treachery_env.REGISTRY_ID, num_players=6, max_turns=7)
    name = e.metadata["name"]
    assert treachery_env.REGISTRY_ID == "treachery/" + name
    assert (spec.namespace, spec.name, spec.version) == ("treachery", *_spec_name(name))
    # the parallel form shows every decision (treachery_env.parallel_env)
    forced = "auto" if kind == "aec" else "shown"
    assert e.unwrapped.config == GameConfig(num_players=6, max_turns=7, forced_decisions=forced)
    if kind == "aec":
        assert isinstance(e, pettingzoo.AECEnv) and type(e) is type(treachery_env.env())
    else:
        assert isinstance(e, pettingzoo.ParallelEnv) and type(e) is type(treachery_env.parallel_env())
    version = spec.version
    for spelling in (f"treachery/treachery_v{version}", f"treachery/treachery-v{version}", "treachery/treachery"):
        assert pettingzoo.spec(kind, spelling) is spec
    e.reset(seed=1)
    assert e.possible_agents == [f"player_{i}" for i in range(6)]


def test_the_naming_rule_is_pettingzoos_own():
    """Every built-in PettingZoo environment whose module names it literally is registered
    as ``family/<metadata name>``: the rule above is PettingZoo's (read from the modules'
    source, not imported, so their optional dependencies are not needed)."""
    root = pathlib.Path(pettingzoo.__file__).parent
    checked = 0
    for registry in (pettingzoo.aec_registry, pettingzoo.parallel_registry):
        for spec in registry.values():
            if not (isinstance(spec.entry_point, str) and spec.entry_point.startswith("pettingzoo.")):
                continue
            module = spec.entry_point.split(":")[0]
            source = root.joinpath(*module.split(".")[1:]).with_suffix(".py").read_text(encoding="utf-8")
            names = re.findall(r'"name":\s*"([^"]+)"', source)
            if names:             # the Atari modules build their names; the others write them
                assert f"{spec.name}_v{spec.version}" in names, (spec.id, names)
                assert module.split(".")[1] == spec.namespace
                checked += 1
    assert checked >= 10


def test_the_docs_name_the_registry_id_one_way():
    """Every ``pettingzoo.make(...)`` in the README, docs/ and the notebooks names
    :data:`treachery_env.REGISTRY_ID` (``treachery/treachery_v0``, the id registered, as in
    docs/environment.md's table); the README's first section wrote ``treachery/treachery-v0``,
    the spelling PettingZoo's registry also takes."""
    root = DOC.parent.parent
    found = 0
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "notebooks").glob("*.ipynb"))]
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for call in re.findall(r"pettingzoo\.make\(([^)]*)\)", text):
            for named in re.findall(r'\\?"([^"\\]*/[^"\\]*)\\?"', call):
                assert named == treachery_env.REGISTRY_ID, (path.name, call)
                found += 1
    assert found >= 3


def test_max_cycles_through_the_registry_names_max_turns():
    """``pettingzoo.make(..., max_cycles=...)`` passes ``max_cycles`` on; it is refused with a
    pointer to the game's own limit, for both kinds."""
    for kind in ("aec", "parallel"):
        with pytest.raises(ValueError, match="max_turns"):
            pettingzoo.make(kind, treachery_env.REGISTRY_ID, max_cycles=4)


# ------------------------------------------------------------------------------------------ truncation
def _random_aec(e, seed: int) -> dict:
    """Random legal play of a reset AEC env to its end; per agent, what ``last()`` gave at its
    final (``None``) step and how many such steps it had."""
    rng = np.random.default_rng(seed)
    final: dict = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert agent not in final, f"{agent} was given its final step twice"
            final[agent] = (reward, term, trunc, info)
            e.step(None)
        else:
            assert e.unwrapped.game.turn <= e.unwrapped.config.max_turns
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("n,max_turns,seed", [(4, 1, 0), (5, 3, 1), (7, 9, 2), (12, 13, 3)])
def test_aec_truncates_at_max_turns(n, max_turns, seed):
    """Turn ``max_turns`` is played to its end, turn ``max_turns + 1`` never begins: every
    seat is truncated (not terminated) with reward 0 and nobody won, each seat takes its
    one final step, then no agent is left."""
    e = treachery_env.env(num_players=n, max_turns=max_turns)
    e.reset(seed=seed)
    final = _random_aec(e, seed)
    g = e.unwrapped.game
    assert g.truncated and g.is_over and g.turn == max_turns and not g.winners
    assert sum(entry["event"] == "turn" for entry in g.log) == max_turns
    assert set(final) == set(e.possible_agents) and e.agents == []
    for reward, term, trunc, info in final.values():
        assert (reward, term, trunc) == (0.0, False, True)
        assert info == {"winners": [], "truncated": True}


@pytest.mark.parametrize("n,max_turns,seed", [(4, 2, 4), (6, 6, 5), (9, 10, 6)])
def test_parallel_env_truncates_at_max_turns(n, max_turns, seed):
    """The same in ``parallel_env()``: the step that ends turn ``max_turns`` returns every
    seat truncated, not terminated, with reward 0, and leaves no agent; every step before
    it returned no flag and reward 0."""
    e = treachery_env.parallel_env(num_players=n, max_turns=max_turns)
    observations, _ = e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while e.agents:
        (acting,) = [a for a in e.agents if observations[a]["action_mask"].any()]
        actions = {a: 0 for a in e.agents}
        actions[acting] = int(rng.choice(np.flatnonzero(observations[acting]["action_mask"])))
        observations, rewards, terms, truncs, infos = e.step(actions)
        steps += 1
        if e.agents:
            assert not any(terms.values()) and not any(truncs.values()) and not any(rewards.values())
    g = e.unwrapped.game
    assert steps > n and g.truncated and g.turn == max_turns and not g.winners
    assert set(truncs) == set(e.possible_agents) and all(truncs.values()) and not any(terms.values())
    assert rewards == {a: 0.0 for a in e.possible_agents}
    assert all(infos[a] == {"winners": [], "truncated": True} for a in e.possible_agents)


def test_why_max_cycles_test_cannot_apply():
    """The reasons ``docs/environment.md`` gives: ``max_cycles`` is refused, naming
    ``max_turns``; one seat decides several times in a row, and the seats are selected
    unequally often (no cycle of one decision per seat): at 5 players and ``max_turns=4``
    the busiest seat at least three times as often as the least busy one; and an unmasked
    ``action_space.sample()`` is illegal, a ``ValueError``."""
    for make in (treachery_env.env, treachery_env.parallel_env):
        with pytest.raises(ValueError, match="max_turns"):
            make(max_cycles=4)
    spreads, longest = [], 0
    for seed in range(3):
        e = treachery_env.env(num_players=5, max_turns=4)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        counts: Counter = Counter()
        prev, run = None, 0
        for agent in e.agent_iter():
            counts[agent] += 1
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            run = run + 1 if agent == prev else 1
            prev, longest = agent, max(longest, run)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        spreads.append((min(counts.values()), max(counts.values())))
    assert longest >= 3
    assert all(hi >= 3 * lo for lo, hi in spreads), spreads
    e = treachery_env.env(num_players=5)
    e.reset(seed=0)
    space = e.action_space(e.agent_selection)
    space.seed(0)
    mask = e.last()[0]["action_mask"]
    action = next(a for a in (int(space.sample()) for _ in range(100)) if not mask[a])
    with pytest.raises(ValueError, match="illegal action"):
        e.step(action)


# ------------------------------------------------------------------------------------------ the page
def _section(title: str) -> str:
    """The text of ``docs/environment.md`` under the heading ``title`` (to the next heading)."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert m, f"docs/environment.md has no section {title!r}"
    return m.group(1)


def _rows(title: str) -> list[list[str]]:
    """The body rows of the tables under ``title`` (each table's header and rule left out),
    as lists of stripped cells."""
    rows: list[list[str]] = []
    in_table = 0                       # lines of the current table seen so far
    for line in _section(title).splitlines():
        in_table = in_table + 1 if line.startswith("|") else 0
        if in_table > 2:
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    assert rows, f"no table under {title!r}"
    return rows


def _formula(cell: str, n: int) -> int:
    """A size cell such as ``` `20 * n * (28 + n)` ``` evaluated for ``n`` players."""
    m = re.fullmatch(r"`([0-9n+*() ]+)`", cell)
    assert m, f"not a size formula: {cell!r}"
    return eval(m.group(1), {"__builtins__": {}}, {"n": n})   # digits, n, + * ( ) only


def test_the_page_sizes_by_table_size_are_the_code_s():
    rows = _rows("Sizes by table size")
    assert [int(r[0]) for r in rows] == list(SIZES)
    for row in rows:
        n = int(row[0])
        e = raw_env(num_players=n)
        a = e.action_space("player_0").n
        obs = e.observation_space("player_0")
        assert row[1] == f"`player_0` … `player_{n - 1}`" and e.possible_agents[-1] == f"player_{n - 1}"
        assert row[2:] == [f"Discrete({a})", f"({obs['observation'].shape[0]},)", f"({obs['action_mask'].shape[0]},)",
                           f"({e.state_space.shape[0]},)"], f"{n} players"


def test_the_page_key_table_formulas_are_the_code_s():
    """The key table's A = 33n + 122, size = 31n² + 761n + 2852 and state 76n + size, at every table size."""
    key = {r[0]: r[1] for r in _rows("Treachery")}
    a, b = map(int, re.fullmatch(r"Discrete\(A\), A = (\d+)n \+ (\d+)", key["Action Shape"]).groups())
    c2, c1, c0 = map(int, re.search(r"size = (\d+)n² \+ (\d+)n \+ (\d+)", key["Observation Shape"]).groups())
    s1 = int(re.fullmatch(r"\((\d+)n \+ size,\).*", key["State Shape"]).group(1))
    assert key["Import"] == "`from treachery_env import env`" and "treachery_v0" in key["Registry id"]
    for n in SIZES:
        e = raw_env(num_players=n)
        size = obs_layout(n).size
        assert (e.action_space("player_0").n, size, e.state_space.shape[0]) == (a * n + b, c2 * n * n + c1 * n + c0,
                                                                                 s1 * n + size), f"{n} players"
    assert f"`{treachery_env.REGISTRY_ID}`" in key["Registry id"]


OBS_SECTIONS = {"global": "glob", "players": "players", "history": "history", "creatures": "creatures",
                "walkers": "walkers", "hand": "hand", "stack": "stack", "dream": "dream", "other": "other",
                "context": "context", "talk": "talk", "talk pairs": "talk_pairs", "talk last": "talk_last"}
"""The page's observation sections and the :class:`ObsLayout` offsets they start at."""


def test_the_page_observation_layout_is_the_code_s():
    """Every section in the layout's order, its size formula right at every table size (so
    the sections add up to the vector), its offset at 5 players."""
    rows = _rows("Observation space")
    assert [r[0] for r in rows] == list(OBS_SECTIONS)
    for n in SIZES:
        layout = obs_layout(n)
        starts = [getattr(layout, OBS_SECTIONS[r[0]]) for r in rows] + [layout.size]
        assert starts[0] == 0
        for row, start, end in zip(rows, starts, starts[1:]):
            assert _formula(row[1], n) == end - start, f"{row[0]} at {n} players"
            if n == 5:
                assert int(row[2]) == start, row[0]


def test_the_page_action_layout_is_the_code_s():
    """Every block of :class:`ActionLayout` in order, its size formula right at every table
    size (so the blocks add up to the space), its first index at 5 players."""
    rows = _rows("Action space")
    for n in SIZES:
        layout = ActionLayout(n)
        starts = [getattr(layout, r[0]) for r in rows] + [layout.size]
        assert starts[0] == 0 and starts == sorted(starts)
        for row, start, end in zip(rows, starts, starts[1:]):
            assert _formula(row[1], n) == end - start, f"{row[0]} at {n} players"
            if n == 5:
                assert int(row[2]) == start, row[0]
    assert rows[-1][0] == "CONCEDE" and ActionLayout(5).CONCEDE == ActionLayout(5).size - 1


def test_the_page_arguments_are_the_code_s():
    """The two argument tables: ``raw_env``'s keyword arguments and ``GameConfig``'s fields,
    every one in order, with its default."""
    rows = _rows("Arguments")
    params = [p for p in inspect.signature(raw_env.__init__).parameters.values()
              if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    fields = dataclasses.fields(GameConfig)
    assert len(rows) == len(params) + len(fields)
    for row, p in zip(rows, params):
        assert row[:2] == [f"`{p.name}`", f"`{p.default!r}`"]
    for row, f in zip(rows[len(params):], fields):
        assert row[:2] == [f"`{f.name}`", f"`{f.default!r}`"]
    signature = _section("Arguments").split("```")[1]
    assert all(f"{p.name}={p.default!r}" in signature for p in params)
