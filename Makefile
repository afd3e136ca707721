# One entry point per job; each target sets up .venv itself on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install browser test main demo notebooks notebooks-run bench peers shared-bench floors screenshots clean

$(BIN)/python:
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed; run make with PY=python3.11 (and make clean if a venv was made)")'
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# the compiled parts' sources (setup.py, treachery_env/compiled.py): an edit compiles them again
COMPILED_SOURCES := treachery_env/_observation.pyx treachery_env/_view.pyx treachery_env/_priority.pyx \
	treachery_env/_slots.pxi treachery_env/compiled.py \
	$(wildcard treachery_env/engine/*.py) $(wildcard treachery_env/engine/*.pxd) $(wildcard treachery_env/*.pxd) \
	treachery_env/identity_abilities.py treachery_env/view.py treachery_env/text.py treachery_env/actions.py \
	treachery_env/env.py treachery_env/rules.py agents/_gru_gates.pyx

$(VENV)/.installed: pyproject.toml setup.py $(COMPILED_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev]"
	@$(BIN)/python -c "import treachery_env.compiled as c, treachery_env.observation as o, treachery_env.view as v; \
	import treachery_env.engine.priority as p, agents.networks as n; m = c.compiled_modules(); k = sum(m.values()); \
	print(f'compiled: the observation encoder ({o.ENCODER}), the view builder ({v.VIEW_BUILDER}), ' \
	f'the priority check ({p.CAN_ACT}), the GRU gates ({n.GRU_GATES}) and {k} of {len(m)} modules' \
	+ ('' if k == len(m) and o.ENCODER == v.VIEW_BUILDER == p.CAN_ACT == n.GRU_GATES == 'compiled' \
	else ' (the rest runs from Python source: no working C compiler?)'))"
	touch $@

install: $(VENV)/.installed

# Debian's Chromium, which tests/test_web_table.py drives through Playwright (nothing is downloaded at run time):
# installed with apt-get when missing and this is root on a Debian-like system
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Chromium (apt-get) for the web table's tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "make browser: the web table's tests need Chromium: sudo apt-get install chromium (or set TREACHERY_CHROMIUM to a Chromium or Chrome binary)"; exit 1; fi; }

# the whole test suite, one pytest-xdist worker a core (a plain `pytest` runs it in one process)
test: install browser
	$(BIN)/python -m pytest -n auto

# the main job: ~10 minutes of training on the built-in defaults (an imitation warm start from the heuristic bot,
# then self-play PPO; runs/train-<date>-<time>/:
# checkpoints, tensorboard logs, metrics.jsonl), then the policy against the random and the heuristic bot
# (substitution tournaments): per-role win-rate and delta tables with 95% intervals, results JSON and plots
main: install
	$(BIN)/treachery train --minutes 10 --workers 2 --evaluate 600

# JupyterLab on notebooks/ (installs the notebooks extra first)
notebooks: install
	$(BIN)/python -m pip install -q -e ".[dev,notebooks]"
	cd notebooks && ../$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root)

# every notebook run headless in a fresh kernel, top to bottom, as tests/test_notebooks.py runs them
# (notebooks/run_notebooks.py); the executed copies go to runs/notebooks/, notebooks/ stays without outputs
notebooks-run: install
	$(BIN)/python notebooks/run_notebooks.py --out runs/notebooks

# one full 5-player game between random bots, printed
demo: install
	$(BIN)/python -m treachery_env.demo --players 5 --seed 0

# throughput: agent-steps/s and games/s through the engine, raw_env and env, clone() µs, memory of 1 and 64
# games; then heuristic and belief decisions/s and µs (mean, p95), their decisions a game and a turn, and a
# 2-turn heuristic playout in ms; every row with table talk and without
bench: install
	$(BIN)/python -m treachery_env.benchmark --players 5 --seconds 10 --windows full main --talk structured none
	$(BIN)/python -m agents.benchmark --players 5 --seconds 10 --talk structured none

# the peer table with our envs in the same run (needs the team's ../shared checkout beside this one;
# installs the bench extra: rlcard, open_spiel, pygame, shimmy)
$(VENV)/.bench: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install -q -e ".[dev,bench]"
	touch $@

# checked before anything is installed
shared-bench:
	@test -f ../shared/bench/peers.py || { echo "make peers needs ../shared/bench/peers.py (the team's shared checkout beside this one)"; exit 1; }

peers: shared-bench $(VENV)/.bench
	$(BIN)/python ../shared/bench/peers.py --extra treachery_env:env --extra treachery_env:raw_env
	@echo "# and without info['view'] (what an agent that reads only the vector and the mask needs):"
	$(BIN)/python ../shared/bench/peers.py --only extra --extra treachery_env:env --extra treachery_env:raw_env \
		--extra-kwargs '{"view_in_info": false}'

# the floors of docs/native_core.md: a native observation write, and a do-nothing env behind the AEC API
floors: install
	g++ -O2 -o $(VENV)/observation_floor bench/observation_floor.cpp
	$(VENV)/observation_floor
	$(BIN)/python bench/aec_floor.py

# the README's screenshots of the web table (docs/images/web-table-*.png), from a fixed game in Chromium
screenshots: install browser
	$(BIN)/python docs/web_table_screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
