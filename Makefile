# schedlab -- two commands for a fresh machine:
#   make reproduce   environment, C core, data checks, every study, the paper
#   make test        the test suite
# Other targets: make data, make bench, make test-asan, make lab, make lock, make clean.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.schedlab-installed
PROFILE ?= quick
RESULTS := results

CORE_SRC := $(wildcard csrc/*.c csrc/*.h) lib/schedlab/_build.py setup.py pyproject.toml
# Every dependency, direct and transitive, at an exact version with hashes:
# uv.lock (make lock) exported for pip; installing needs nothing but python3.
LOCK     := requirements.lock

.PHONY: install test test-asan bench reproduce notebooks paper clean lab data lock

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
	$(PY) -c "import schedlab.sim as s; print('schedlab C core', s.VERSION, 'built')"
	@touch $@

# Refreshes the lock on purpose: every package to its newest release allowed by
# pyproject.toml, for every supported Python (uv, in its own throw-away venv),
# then requirements.lock and environment.yml from it.  Needs the network.
UV_VERSION ?= 0.13.8
UV_VENV    := build/uv
lock:
	$(PYTHON) -m venv $(UV_VENV) && $(UV_VENV)/bin/pip install -q "uv==$(UV_VERSION)"
	$(UV_VENV)/bin/uv lock --upgrade
	$(UV_VENV)/bin/uv export --frozen --all-extras --group build --no-emit-project --format requirements-txt -q -o $(LOCK)
	$(MAKE) install
	$(PY) -m schedlab.lockfile environment

# The suite runs on TEST_WORKERS processes (pytest-xdist; 2 = this machine's cores).
TEST_WORKERS ?= 2
test: install
	$(PY) -m pytest -q -n $(TEST_WORKERS)

# The whole test suite against an ASan/UBSan build of the C core.
ASAN_DIR := build/asan
test-asan: install
	rm -rf $(ASAN_DIR) && mkdir -p build
	$(PY) lib/schedlab/_build.py --sanitize $(ASAN_DIR) > build/asan-build.log 2>&1 || (cat build/asan-build.log; exit 1)
	SCHEDLAB_CORE_DIR=$(abspath $(ASAN_DIR)) LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
	$(PY) -c "import schedlab._core as c; assert '$(ASAN_DIR)' in c.__file__, c.__file__; print('sanitised core:', c.__file__)"
	SCHEDLAB_CORE_DIR=$(abspath $(ASAN_DIR)) \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(PY) -m pytest -q -p no:cacheprovider tests/test_engine.py tests/test_engine_reference.py tests/test_multiqueue.py tests/test_learned.py \
		tests/test_hardening_engine.py tests/fuzz/test_fuzz_engine.py

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

# One target per executed notebook (make -j runs independent studies in
# parallel); each reruns when its notebook, parameters or the library change.
STEMS    := $(notdir $(basename $(wildcard notebooks/*.ipynb)))
OUT      := $(RESULTS)/$(PROFILE)
EXECUTED := $(STEMS:%=$(OUT)/notebooks/%.ipynb)
LIBSRC   := $(shell find lib/schedlab -name '*.py' -not -path '*/__pycache__/*')

$(OUT)/notebooks/%.ipynb: notebooks/%.ipynb params/$(PROFILE)/%.yaml $(LIBSRC) | $(STAMP)
	$(PY) -m schedlab.reproduce notebook $* --profile $(PROFILE)

notebooks: $(EXECUTED)

paper: install
	$(PY) -m schedlab.reproduce paper --profile $(PROFILE)

# Studies run NOTEBOOK_JOBS at a time (each also starts its own 2-worker dask
# cluster): many of their steps are serial, so two at once keep both cores busy.
NOTEBOOK_JOBS ?= 2
reproduce: install
	$(BIN)/schedlab traces verify --bundled
	$(PY) -m schedlab.reproduce baseline
	$(MAKE) --output-sync=line -j$(NOTEBOOK_JOBS) notebooks PROFILE=$(PROFILE)
	$(PY) -m schedlab.reproduce paper --profile $(PROFILE)

# JupyterLab (in the lock) on notebooks/, with the `schedlab` kernel that
# make install registered: "Run All" there runs what make reproduce runs.
lab: install
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf $(VENV) build dist lib/*.egg-info lib/schedlab/_core.* .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
