# schedlab -- two commands for a fresh machine:
#   make reproduce   environment, C core, data checks, every study, the paper
#   make test        the test suite
# Other targets: make data, make bench, make fuzz, make test-fuzz, make test-asan, make test-cluster, make test-browser, make test-oracles,
# make lab, make site, make lock, make clean.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.schedlab-installed
RESULTS := results

# The values a user may give (their defaults; each target below says what it does with them)
PROFILE         ?= quick
TRACES          ?=
NOTEBOOK_JOBS   ?= 2
TEST_WORKERS    ?= 2
FUZZ_EXAMPLES   ?= 20000
FUZZ_COUNT      ?=
LAB_ARGS        ?=
ORACLE_LOGS     ?= KTH-SP2 CTC-SP2 SDSC-SP2
ORACLE_POLICIES ?= FCFS-FCFS SPF-SPF SAF-SAF LCFS-LCFS LQF-LQF SQF-SQF LAF-LAF FCFS-SPF
OCST_OPTIONAL   ?=
SCHEDGYM_DIR    ?=
SCHEDGYM_PYTHON ?=
SCHEDGYM_LOGS   ?= SDSC-SP2 CTC-SP2
SCHEDGYM_SEQUENCES ?= 100
UV_VERSION      ?= 0.13.8

# Values a user gives (make reproduce TRACES=..., PROFILE=..., LAB_ARGS=...) are
# data: each is taken as the text typed (override ... := $(value ...): make never
# expands a $(...) inside it), exported, and reaches a program as "$$NAME" (one
# argument) or $$NAME (split into words, never parsed as shell code): no value can
# run a command.  PROFILE must be a profile the compendium knows.
USER_VARS := PROFILE TRACES NOTEBOOK_JOBS TEST_WORKERS FUZZ_EXAMPLES FUZZ_COUNT LAB_ARGS ORACLE_LOGS \
             ORACLE_POLICIES OCST_OPTIONAL UV_VERSION SCHEDGYM_DIR SCHEDGYM_PYTHON SCHEDGYM_LOGS SCHEDGYM_SEQUENCES
PROFILES  := quick full
$(foreach v,$(USER_VARS),$(eval override $(v) := $$(value $(v))))
PROFILE_OK := $(and $(filter 1,$(words $(value PROFILE))),$(filter $(PROFILES),$(value PROFILE)))
ifeq ($(PROFILE_OK),)
$(error unknown PROFILE '$(value PROFILE)': known profiles are $(PROFILES))
endif
export $(USER_VARS)

CORE_SRC := $(wildcard csrc/*.c csrc/*.h csrc/*.def) lib/schedlab/engine/_build.py setup.py pyproject.toml
# Every dependency, direct and transitive, at an exact version with hashes:
# uv.lock (make lock) exported for pip; installing needs nothing but python3.
LOCK     := requirements.lock

.PHONY: install test fuzz test-fuzz test-asan test-cluster test-browser site test-oracles oracles oracle-predictsim bench check-schedules reproduce notebooks paper clean lab data lock readme

install: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# Installs exactly the lock (build tools, runtime, test and lab groups), then
# builds the C core into the editable package, checks that the environment
# equals the lock (a missing or extra package stops here, it cannot hide), and
# registers the environment as the Jupyter kernel `schedlab` that the notebooks
# name: JupyterLab (make lab), papermill (make reproduce) and the tests run them
# in this one environment.  Reruns when a C source, the packaging or the lock changes.
$(STAMP): $(CORE_SRC) $(LOCK) | $(PY)
	$(BIN)/pip install -q --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install -q --no-build-isolation --no-deps -e .
	$(BIN)/pip check
	$(PY) -m schedlab.lockfile check
	$(PY) -m ipykernel install --sys-prefix --name schedlab --display-name "schedlab" > /dev/null
	$(PY) -c "import schedlab.engine.sim as s; print('schedlab C core', s.VERSION, 'built')"
	@touch $@

# Refreshes the lock on purpose: every package to its newest release allowed by
# pyproject.toml, for every supported Python (uv, in its own throw-away venv),
# then requirements.lock and environment.yml from it.  Needs the network.
UV_VENV    := build/uv
lock:
	$(PYTHON) -m venv $(UV_VENV) && $(UV_VENV)/bin/pip install -q "uv==$$UV_VERSION"
	$(UV_VENV)/bin/uv lock --upgrade
	$(UV_VENV)/bin/uv export --frozen --all-extras --group build --no-emit-project --format requirements-txt -q -o $(LOCK)
	$(MAKE) install
	$(PY) -m schedlab.lockfile environment

# The suite runs on TEST_WORKERS processes (pytest-xdist; 2 = this machine's cores).
test: install
	$(PY) -m pytest -q -n "$$TEST_WORKERS"

# The fuzz targets of tests/fuzz/ (SWF reader, expression compiler, cleaning,
# campaign specs, engine API) with a large budget: FUZZ_EXAMPLES examples per target, derandomized (the same
# inputs on every run; raise the budget to explore further).  make test runs
# the same files with a small budget (seconds).  FUZZ_COUNT=file.jsonl counts
# the outcomes instead of stopping at the first failure (tests/fuzz/fuzz_inputs.py).
fuzz: install
	SCHEDLAB_FUZZ_EXAMPLES="$$FUZZ_EXAMPLES" SCHEDLAB_FUZZ_COUNT="$$FUZZ_COUNT" \
	$(PY) -m pytest -q -p no:cacheprovider -n "$$TEST_WORKERS" tests/fuzz

# The two fuzz targets of the inputs a user types or hands over -- the
# expression compiler and the SWF reader -- for the fixed budget FUZZ_EXAMPLES
# (hypothesis, derandomized: Atheris is not in the lock).
test-fuzz: install
	SCHEDLAB_FUZZ_EXAMPLES="$$FUZZ_EXAMPLES" SCHEDLAB_FUZZ_COUNT="$$FUZZ_COUNT" \
	$(PY) -m pytest -q -p no:cacheprovider -n "$$TEST_WORKERS" tests/fuzz/test_fuzz_expr.py tests/fuzz/test_fuzz_swf.py

# Every test of the core against an ASan/UBSan build of it: the tests of every
# module that uses the core directly, marked `core` by a collection rule
# (tests/conftest.py), not a hand list of files.  libstdc++ is preloaded with
# libasan: with libasan alone, importing matplotlib aborts.
ASAN_DIR := build/asan
ASAN_PRELOAD = $$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libstdc++.so)
test-asan: install
	rm -rf $(ASAN_DIR) && mkdir -p build
	$(PY) lib/schedlab/engine/_build.py --sanitize $(ASAN_DIR) > build/asan-build.log 2>&1 || (cat build/asan-build.log; exit 1)
	SCHEDLAB_CORE_DIR=$(abspath $(ASAN_DIR)) LD_PRELOAD="$(ASAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 \
	$(PY) -c "import schedlab.engine._core as c; assert '$(ASAN_DIR)' in c.__file__, c.__file__; print('sanitised core:', c.__file__)"
	SCHEDLAB_CORE_DIR=$(abspath $(ASAN_DIR)) \
	LD_PRELOAD="$(ASAN_PRELOAD)" \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(PY) -m pytest -q -p no:cacheprovider -n "$$TEST_WORKERS" -m core tests

# Campaigns on a real Slurm through dask-jobqueue (not part of make test):
# as root, installs slurm-wlm and munge with apt-get when missing, starts a
# private single-node Slurm (own state directory, ports, MUNGE key and
# socket), runs campaigns/lelong2017-kth.yaml on SLURMCluster workers against
# a local cluster's result, cancels a worker's job and kills the client
# mid-campaign, and stops every daemon it started, by pid, whatever happens.
# tests/cluster/with-slurm.sh says how; tests/cluster/check_slurm.py what.
test-cluster: install
	bash tests/cluster/with-slurm.sh $(PY) -m pytest -p no:cacheprovider -q -s tests/cluster/check_slurm.py

# The seeds' own simulator as a second oracle (not part of make test): builds
# freuk/ocst at a pinned commit into build/oracles/ocst (git clone from GitHub, or
# OCST_SRC=<a git copy of it> offline; Debian's OCaml, installed with apt-get as
# root when missing), then compares it with the engine job by job on KTH-SP2,
# CTC-SP2 and SDSC-SP2 (whole logs and the thesis' weeks), writes the figures to
# results/oracles/*.json and runs tests/oracles/check_ocst.py.  Without the source
# it stops with status 3, or, with OCST_OPTIONAL=1 (CI: no GitHub there), says so
# and exits 0.  tools/oracles/build_ocst.sh gives every status.
# Then SchedGym (RLScheduler's HPCSimPickJobs) beside the engine's SchedGym rules,
# when SCHEDGYM_DIR (a copy of DIR-LAB/deep-batch-scheduler) and SCHEDGYM_PYTHON (a
# Python that imports its HPCSimPickJobs) are given: its five heuristics on
# SCHEDGYM_SEQUENCES of its 256-job sequences of each of SCHEDGYM_LOGS, backfil 0
# and 1 (tools/oracles/compare_schedgym.py -> results/oracles/schedgym.json,
# tests/oracles/check_schedgym.py); without them, one "skipped" line.
oracles:
	bash tools/oracles/build_ocst.sh

test-oracles: install
	@bash tools/oracles/build_ocst.sh; rc=$$?; \
	if [ $$rc = 3 ] && [ -n "$$OCST_OPTIONAL" ]; then \
		echo "test-oracles: skipped: the ocst source is unavailable (needs github.com/freuk/ocst or OCST_SRC=<a git copy>)"; \
		touch build/.oracles-skipped; exit 0; fi; \
	rm -f build/.oracles-skipped; exit $$rc
	@if [ ! -f build/.oracles-skipped ]; then \
	$(PY) tools/oracles/compare_ocst.py logs --traces $$ORACLE_LOGS --policies $$ORACLE_POLICIES \
		--untie none submits ends all --json $(RESULTS)/oracles/logs.json && \
	$(PY) tools/oracles/compare_ocst.py weeks --traces $$ORACLE_LOGS --policies $$ORACLE_POLICIES \
		--untie none all --json $(RESULTS)/oracles/weeks.json && \
	$(PY) -m pytest -q -p no:cacheprovider tests/oracles/check_ocst.py; fi
	@if [ -z "$$SCHEDGYM_DIR" ] || [ -z "$$SCHEDGYM_PYTHON" ]; then \
		echo "test-oracles: schedgym skipped: needs SCHEDGYM_DIR=<a copy of DIR-LAB/deep-batch-scheduler> and SCHEDGYM_PYTHON=<a Python that imports its HPCSimPickJobs>"; \
	else \
	$(PY) tools/oracles/compare_schedgym.py --traces $$SCHEDGYM_LOGS --sequences "$$SCHEDGYM_SEQUENCES" \
		--json $(RESULTS)/oracles/schedgym.json && \
	$(PY) -m pytest -q -p no:cacheprovider tests/oracles/check_schedgym.py; fi

# online-bandit's claims run by the seeds' own selection code (ocst's release for the paper,
# 9f6d02f, with obandit 42766b8; git copies from OCST_SRC / OBANDIT_SRC) beside the selection
# study's strategies on the same resamples: rechecks the readings the study ships
# (lib/schedlab/studies/selection/oracle.json) on KTH-SP2 (about 15 CPU-s).  Not in CI.
oracle-selection: install
	bash tools/oracles/build_ocst_selection.sh
	$(PY) -m pytest -q -p no:cacheprovider tests/oracles/check_ocst_selection.py

# Stretch oracle: gaussier2015's pyss (jad-darrous/predictsim, run as it is under
# Python 2.7) beside the engine on KTH-SP2 EASY-FCFS-FCFS (a few CPU-minutes);
# PREDICTSIM_SRC=<a git copy> when offline.  Not in CI.
oracle-predictsim: install
	bash tools/oracles/fetch_predictsim.sh
	$(PY) tools/oracles/compare_predictsim.py KTH-SP2 --json $(RESULTS)/oracles/predictsim.json

# The only target that downloads traces: the Parallel Workloads Archive logs of
# data/fetch.toml that are not bundled, into data/traces/, checked and
# registered in data/traces.local.toml (see data/README.md).  Neither
# `make test` nor `make reproduce` needs it or downloads anything.
data: install
	$(BIN)/schedlab traces fetch --all

bench: install
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_queue.py
	$(PY) bench/bench_campaign.py
	$(PY) bench/bench_check.py
	$(PY) bench/bench_advise.py

# schedlab check passes every schedule the engine writes for the bundled logs
# (whole logs, EASY-FCFS-FCFS and EASY-SPF-SPF; a few minutes: the suite checks
# all but the two largest, tests/test_check_logs.py)
check-schedules: install
	$(PY) bench/bench_check.py

# One target per executed notebook (make -j runs independent studies in
# parallel); each reruns when its notebook, parameters or the library change.
STEMS    := $(notdir $(basename $(wildcard notebooks/*.ipynb)))
OUT      := $(RESULTS)/$(PROFILE)
EXECUTED := $(STEMS:%=$(OUT)/notebooks/%.ipynb)
LIBSRC   := $(shell find lib/schedlab -name '*.py' -not -path '*/__pycache__/*')

$(OUT)/notebooks/%.ipynb: notebooks/%.ipynb params/$(PROFILE)/%.yaml $(LIBSRC) | $(STAMP)
	$(PY) -m schedlab.publish.reproduce notebook $* --profile $(PROFILE)

notebooks: $(EXECUTED)

paper: install
	$(PY) -m schedlab.publish.reproduce paper --profile $(PROFILE)

# Studies run NOTEBOOK_JOBS at a time (each also starts its own 2-worker dask
# cluster): many of their steps are serial, so two at once keep both cores busy.
# make reproduce TRACES="a.swf b.swf?request=runtime": every trace-based study on
# those logs instead, into results/traces/<names>/ with report.html (the logs are
# split in Python, shell-style: quote a path holding a blank, 'my log.swf'; one
# existing file is one log whatever it holds).  Exits non-zero when a study fails.
reproduce: install
ifneq ($(strip $(value TRACES)),)
	$(PY) -m schedlab.publish.trace_report --logs-from-env TRACES --profile "$$PROFILE"
else
	$(BIN)/schedlab traces verify --bundled
	$(PY) -m schedlab.publish.reproduce baseline
	$(MAKE) --output-sync=line -j"$$NOTEBOOK_JOBS" notebooks PROFILE="$$PROFILE"
	$(PY) -m schedlab.publish.reproduce paper --profile "$$PROFILE"
endif

# JupyterLab (in the lock) on notebooks/, with the `schedlab` kernel that
# make install registered: "Run All" there runs what make reproduce runs.
# LAB_ARGS: more options for jupyter lab (make test-browser: port, token).
lab: install
	@if [ "$$(id -u)" = 0 ]; then echo "make lab: running as root (a container?): jupyter lab gets --allow-root"; \
		exec $(BIN)/jupyter lab notebooks/ --allow-root $$LAB_ARGS; fi; \
	exec $(BIN)/jupyter lab notebooks/ $$LAB_ARGS

# A static site in build/site/ (open build/site/index.html; works from file://
# and any static host), built offline: every study notebook executed at full
# size (shipped/full/notebooks/) and the quick run's when present, the
# scorecard of every study as one filterable, sortable table, the paper (PDF,
# built first when missing: from the shipped results alone on a fresh clone),
# the set-up, the conformance cases.
site: install
	@if [ ! -f paper/paper.pdf ]; then mkdir -p $(OUT) && $(PY) -m schedlab.publish.reproduce paper --profile $(PROFILE); fi
	$(PY) -m schedlab.publish.site

# JupyterLab and the site in headless Chromium (not part of make test): as root,
# installs Debian's chromium with apt-get when missing; starts make lab's
# JupyterLab on a free local port with a token, runs 02-thresholds on one log
# from the Run menu, filters the site's scorecard by verdict; screenshots in
# build/browser/; stops every process it started, by pid (Playwright from the
# lock drives the system Chromium: no browser is downloaded).
test-browser: site
	bash tests/browser/with-chromium.sh $(PY) -m pytest -p no:cacheprovider -q -s tests/browser/check_browser.py

clean:
	rm -rf $(VENV) build dist lib/*.egg-info lib/schedlab/engine/_core.* .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The README's study table (the studies shipped at full size), regenerated from
# the registry (lib/schedlab/studies/*/study.toml) between its two markers.
readme: install
	$(PY) -m schedlab.protocol.study readme
