# `make demo`, `make test` and `make bench` each build .venv with what they need, from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench clean

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

demo: $(VENV)/.demo
	$(PY) -m dlnumba demo

test: $(VENV)/.test
	$(PY) -m pytest -q -n auto

# The asv suite on the working tree (results under HEAD's hash), then the dlnumba/peer ratios,
# worst first, and the HTML report. QUICK=1 runs each benchmark once; ONLY=regex picks some.
ASV := $(abspath $(VENV))/bin/asv
bench: $(VENV)/.bench
	cd asv_benchmarks && $(ASV) machine --yes >/dev/null && \
	$(ASV) run --python=same --set-commit-hash "$$(git rev-parse HEAD)" --show-stderr \
		$(if $(QUICK),--quick) $(if $(ONLY),--bench '$(ONLY)'); status=$$?; \
	$(abspath $(PY)) ratios.py && $(ASV) publish >/dev/null && \
	echo "HTML report: $(abspath asv_benchmarks/.asv/html/index.html)" \
		"(served by: cd asv_benchmarks && $(ASV) preview)"; exit $$status

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
