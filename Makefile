# `make demo` and `make test` each build .venv with what they need, from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test clean

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

demo: $(VENV)/.demo
	$(PY) -m dlnumba demo

test: $(VENV)/.test
	$(PY) -m pytest -q -n auto

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
