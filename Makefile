# `make demo`, `make test` and `make bench` each build .venv with what they need, from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test kernels lint test-thorough conformance bench clean

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.demo: $(VENV)/.base
	$(PY) -m pip install -q -e '.[demo]'
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.bench: $(VENV)/.base
	$(PY) -m pip install -q -e '.[bench]'
	touch $@

# The kernels shipped compiled for this host's CPU level (python -m dlnumba build): built once,
# again only when the kernel sources or Numba change.
kernels: $(VENV)/.base
	$(PY) -m dlnumba build

demo: $(VENV)/.demo kernels
	$(PY) -m dlnumba demo

test: $(VENV)/.test kernels
	$(PY) -m pytest -q -n auto

# ruff, with the rules and per-file ignores in pyproject.toml
lint: $(VENV)/.test
	$(PY) -m ruff check --no-cache dlnumba tests asv_benchmarks examples tools buildsystem

# The long fuzzers (DLPack capsules, view bounds) under faulthandler, one fresh hypothesis seed
# after another (each printed, to reproduce with --hypothesis-seed), for FUZZ_SECONDS in all.
FUZZ_SECONDS ?= 600
test-thorough: $(VENV)/.test
	end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); seed=$${FUZZ_SEED:-$$(date +%s)}; \
	while [ $$(date +%s) -lt $$end ]; do \
		echo "hypothesis seed $$seed"; \
		HYPOTHESIS_PROFILE=thorough $(PY) -X faulthandler -m pytest -q -p no:xdist \
			-p no:cacheprovider --hypothesis-seed=$$seed \
			tests/test_dlpack_fuzz.py tests/test_bounds.py || exit 1; \
		seed=$$((seed + 1)); \
	done

# The data-apis array-api-tests suite (ARRAY_API_TESTS, a checkout with its runner) against
# dlnumba, every test passing; CONFORMANCE_ARGS go to pytest (CI: bounded and seeded).
ARRAY_API_TESTS ?= ../shared/array-api-tests
CONFORMANCE_ARGS ?= --max-examples=20 --hypothesis-disable-deadline --hypothesis-seed=1
conformance: $(VENV)/.test kernels
	@test -x $(ARRAY_API_TESTS)/run || { echo "no array-api-tests runner at $(ARRAY_API_TESTS)/run;" \
		"set ARRAY_API_TESTS to a checkout that has one"; exit 2; }
	PYTHON=$(abspath $(PY)) $(ARRAY_API_TESTS)/run -n auto -rs $(CONFORMANCE_ARGS)

# The asv suite on the working tree (results under HEAD's hash), then the dlnumba/peer ratios,
# worst first, and the HTML report. QUICK=1 runs each benchmark once; ONLY=regex picks some.
ASV := $(abspath $(VENV))/bin/asv
bench: $(VENV)/.bench
	cd asv_benchmarks && $(ASV) machine --yes >/dev/null && commit=$$(git rev-parse HEAD) && \
	$(ASV) run --python=same --set-commit-hash $$commit --show-stderr \
		$(if $(QUICK),--quick) $(if $(ONLY),--bench '$(ONLY)'); status=$$?; \
	$(abspath $(PY)) ratios.py --commit $$commit && $(ASV) publish >/dev/null && \
	echo "HTML report: $(abspath asv_benchmarks/.asv/html/index.html)" \
		"(served by: cd asv_benchmarks && $(ASV) preview)"; exit $$status

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache dlnumba/_objects
	find . -name __pycache__ -prune -exec rm -rf {} +
