# schedlab -- two commands for a fresh machine:
#   make reproduce   environment, C core, data checks, every study, the paper
#   make test        the test suite
# Other targets: make data, make bench, make test-asan, make lab, make clean.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.schedlab-installed
PROFILE ?= quick
RESULTS := results

CORE_SRC := $(wildcard csrc/*.c csrc/*.h) lib/schedlab/_build.py setup.py pyproject.toml

.PHONY: install test test-asan bench reproduce notebooks paper clean lab data

install: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel "cffi>=1.16"

# (Re)builds the C core whenever a C source, the builder or the packaging changes.
$(STAMP): $(CORE_SRC) | $(PY)
	$(BIN)/pip install -q --no-build-isolation -e '.[test]'
	$(PY) -c "import schedlab.sim as s; print('schedlab C core', s.VERSION, 'built')"
	@touch $@

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
	$(PY) -m pytest -q -p no:cacheprovider tests/test_engine.py tests/test_engine_reference.py tests/test_multiqueue.py tests/test_learned.py

# The only target that downloads traces: the Parallel Workloads Archive logs of
# data/fetch.toml that are not bundled, into data/traces/, checked and
# registered in data/traces.local.toml (see data/README.md).  Neither
# `make test` nor `make reproduce` needs it or downloads anything.
data: install
	$(BIN)/schedlab traces fetch --all

bench: install
	$(PY) bench/bench_engine.py
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
	$(MAKE) --output-sync=target -j$(NOTEBOOK_JOBS) notebooks PROFILE=$(PROFILE)
	$(PY) -m schedlab.reproduce paper --profile $(PROFILE)

lab: install
	$(BIN)/pip install -q jupyterlab ipykernel
	$(PY) -m ipykernel install --sys-prefix --name schedlab --display-name "schedlab"
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf $(VENV) build dist lib/*.egg-info lib/schedlab/_core.* .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
