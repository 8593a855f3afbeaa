# ragdesk: `make run` starts the dashboard, `make test` runs the whole suite.
# Both create .venv at the repo root on first use and install what they need.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Re-install when pyproject.toml changes.
RUNTIME_STAMP := $(VENV)/.runtime-installed
TEST_STAMP := $(VENV)/.test-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test install install-test benchmarks clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# torch first and pinned: a bare torch requirement would pull a multi-GB CUDA build.
$(RUNTIME_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml $(RUNTIME_STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(RUNTIME_STAMP)

install-test: $(TEST_STAMP)

run: install
	$(VENV)/bin/streamlit run dashboard/app.py --server.address 127.0.0.1 --server.port 8501

test: install-test
	$(PY) -m pytest

benchmarks: install
	@echo "Benchmarks are scripts run on purpose; see docs/ for each one's command and figures:"
	@ls benchmarks/*.py

clean-venv:
	rm -rf $(VENV)
