# trainopt: every target sets itself up; `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The CPU build that lies on disk here; other torch specs may pull a multi-GB CUDA build.
TORCH  ?= torch==2.13.0

.DEFAULT_GOAL := help
.PHONY: help install demo test lint check bench clean eval-probes check-installs

help:  ## list the targets
	@echo "trainopt make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort | sed 's/^/  /'

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e '.[all,dev]'
	@touch $(STAMP)

install: $(STAMP)  ## create .venv and install trainopt (editable) with every extra (torch first) and dev tools

demo: $(STAMP)  ## run the bundled broken training run: probe it, diagnose it, print plan and trail
	$(VENV)/bin/trainopt demo

test: $(STAMP)  ## run the whole test suite
	$(PY) -m pytest

lint: $(STAMP)  ## ruff
	$(VENV)/bin/ruff check trainopt expert knowledge probes tests bench

check: lint test  ## lint + tests

bench: $(STAMP)  ## timings: CLI start-up, engine build, diagnosis latency, probe overhead
	$(PY) -m bench

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: fuzz
# FUZZ_SCALE sizes the fuzz run: 1 is CI's (a few seconds per property), 100 the nightly size (1,500-3,000
# examples per property, 2,000+ per surface), 200 twice that. TRAINOPT_FUZZ_REPORT=FILE writes the counts to FILE.
FUZZ_SCALE ?= 100
fuzz: $(STAMP)  ## nightly-size fuzzing of every surface (logs, folders, diagnose JSON, consult keystrokes, Ctrl-C)
	TRAINOPT_FUZZ=$(FUZZ_SCALE) $(PY) -m pytest -q -p no:warnings -p no:cacheprovider --hypothesis-show-statistics \
		tests/test_hostile_logs.py tests/test_hostile_inputs.py tests/test_fuzz.py

.PHONY: eval eval-probes
# EVAL_ARGS passes options through, e.g. make eval EVAL_ARGS="--cases DIR --families".
eval: $(STAMP)  ## route accuracy on the real-case corpus, then text understanding on the phrasing suite (held back first)
	$(PY) -m bench.eval --floor bench/corpus/floor.json $(EVAL_ARGS)
	$(PY) -m bench.gen_priors --check  # the priors table is generated from the dev cases: stale fails
	$(PY) -m bench.eval_text --floor bench/phrasings/floor.json

eval-probes: $(STAMP)  ## score watch and examine on generated faulty and healthy runs (QUICK=1: CI subset)
	$(PY) -m bench.eval_probes $(if $(QUICK),--quick,)

# A fresh venv each time, outside the tree; it downloads the newest Lightning and transformers stack (several
# hundred MB), so CI does not run it. torch is installed first, as the extras' `torch>=2.1` would otherwise pull
# the newest CUDA build.
INSTALL_VENV ?= /tmp/trainopt-install-check
check-installs:  ## fresh venv: trainopt[lightning] and [hf] beside the newest Lightning, transformers, accelerate, datasets
	rm -rf $(INSTALL_VENV)
	$(PYTHON) -m venv $(INSTALL_VENV)
	$(INSTALL_VENV)/bin/python -m pip install -q --upgrade pip
	$(INSTALL_VENV)/bin/python -m pip install -q "$(TORCH)"
	$(INSTALL_VENV)/bin/python -m pip install -q ".[lightning,hf]" --upgrade lightning transformers accelerate datasets
	$(INSTALL_VENV)/bin/python -m pip check
	$(INSTALL_VENV)/bin/python -m pip list 2>/dev/null | grep -iE '^(torch|lightning|transformers|accelerate|datasets|experta|frozendict|schema) '
	cd $(INSTALL_VENV) && bin/python -c "import trainopt, trainopt.lightning, trainopt.hf; \
	c = trainopt.Consultation(); c.observe(loss_behavior='nan_or_inf'); print('trainopt imports and diagnoses:', c.run().status)"
	rm -rf $(INSTALL_VENV)
