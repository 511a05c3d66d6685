# One Line Changed: every command a learner, an instructor or CI needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Colab's ipywidgets 7.7.1 and IPython 7.34, installed once into .aside/ for the tests that put them first on the path.
ASIDE := .aside/.installed
# The browser libraries (npm ci), here at the top: make reads a rule's prerequisites as it meets the rule, so a
# variable defined below `test-slow` would be empty there (CI failed that way: no node_modules for the deck tests).
NODE_ASSETS := node_modules/.package-lock.json
# Python keeps compiled modules in __pycache__/ (ignored by git), and pytest its assert-rewritten tests there, unless
# PYTHONDONTWRITEBYTECODE is set, as some containers set it: then every pytest process and worker rewrites every test
# module again, about 3 of the 7 s a worker takes to collect the tests. Here it is switched back to Python's default.
export PYTHONDONTWRITEBYTECODE :=
# Extra options for `make lab`, e.g. make lab LAB_ARGS="--port 8899 --no-browser"
LAB_ARGS ?=
# Jupyter refuses to run as root (containers, some cloud machines) unless told it is deliberate.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
# `make gpu-check` and `make gpu-wheels` use .venv's Python when it exists, unless PYTHON is given:
# on a GPU machine, `make gpu-check PYTHON=python3` uses that Python and its CUDA torch.
GPU_PYTHON := $(if $(filter command line environment,$(origin PYTHON)),$(PYTHON),$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)))
# Wheels for a GPU machine without internet (made by `make gpu-wheels`), and where they get installed.
WHEELS := .whl
GPU_SITE := $(CURDIR)/.gpu-site
GPU_PY_VERSION ?= 3.12
GPU_PLATFORMS := manylinux_2_28_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64
# Extra options for `make gpu-check`, e.g. make gpu-check GPU_ARGS="--out gpu-report 00_bigram_baseline.ipynb"
GPU_ARGS ?=

# Colab's own versions (`make colab-check`): an environment of their own, built from tools/colab-requirements.txt
# only (about 3.1 GB from the package index: PyPI's torch 2.6.0 for Linux is a CUDA build with its libraries).
COLAB_VENV := .colab-venv
COLAB_INSTALLED := $(COLAB_VENV)/.installed
# Extra options for `make colab-check`: notebook names, e.g. make colab-check COLAB_ARGS=00_bigram_baseline.ipynb
COLAB_ARGS ?=

.PHONY: setup lab test test-slow check headless-check execute stamp data lint bench gpu-check gpu-train gpu-wheels slides html \
  check-slides colab-check cpu-check clean help

help:
	@echo "make lab      set up (first time only) and open JupyterLab on notebooks/"
	@echo "make test     set up (first time only) and run the quick tests, every notebook but 07, 09, 10 and 11 re-executed"
	@echo "make test-slow     the tests that start kernels, servers, browsers or fresh Pythons, and notebooks 07, 09, 10, 11 (minutes)"
	@echo "make check    everything CI runs: make test, then test-slow, headless-check, check-slides, colab-check, cpu-check"
	@echo "make headless-check  run each explorer notebook 5 times with plain jupyter nbconvert; fail on a hang"
	@echo "make execute  re-run every notebook top to bottom and keep the fresh outputs"
	@echo "make stamp    write the badge, the setup cell (tools/setup_cell.py) and slide types into every notebook,"
	@echo "              and the README's notebook table from each notebook's metadata (no re-run needed)"
	@echo "make data     fetch and verify the corpus into data/"
	@echo "make lint     check the code style of helpers/, tests/, tools/ and the notebooks"
	@echo "make bench    time each notebook under nbval, print a table and write it into the README"
	@echo "make gpu-check  run every notebook on a CUDA GPU and print a table (lists them when no GPU)"
	@echo "make gpu-train  train notebook 11's model at its large size on a CUDA GPU; print validation loss and time"
	@echo "make gpu-wheels download into .whl/ the wheels gpu-check needs on a GPU machine without internet"
	@echo "make slides   write one offline reveal.js deck per notebook into build/slides/"
	@echo "make html     write the static course site (pages, index, decks) into build/site/"
	@echo "make check-slides  run every notebook afresh and measure every deck slide at 1280x720 in Chromium"
	@echo "make colab-check   run every notebook on Colab's versions of torch, numpy, matplotlib, ipywidgets, IPython"
	@echo "make cpu-check     run every notebook, and the runs they quote, with PyTorch, MKL and oneDNN limited to AVX2, then SSE4"
	@echo "make clean    remove the virtual environment, build/ and caches (the corpus stays)"

setup: $(INSTALLED) $(ASIDE)

$(INSTALLED): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@# jsonschema (under nbformat) compiles rfc3987-syntax's grammar at import: 1.3 s in every process that reads a
	@# notebook (pytest and each worker, nbconvert, JupyterLab). Only an optional IRI format check uses it, which
	@# nothing here needs; without it, jsonschema skips that check, and `pip check` stays clean.
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax
	touch $(INSTALLED)

$(ASIDE): tests/install_aside.py | $(INSTALLED)
	$(BIN)/python -m tests.install_aside
	touch $(ASIDE)

lab: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

# Two tiers, and CI runs both (`make check`). `make test` is the developer's loop, about a minute on a quiet 2-core
# machine: every quick test, and every notebook but the long training runs (07, 09, 10, 11) re-executed by nbval, on two
# workers. `make test-slow` runs the tests marked slow (kernels, servers, browsers, fresh Pythons; see pytest.ini) and
# re-executes the notebooks that conftest.py marks slow. --durations names the slowest tests.
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadscope --durations=15

test: setup
	$(PYTEST) -m "not slow" --nbval-lax

# The slow browser tests build decks and pages, which need the browser libraries from npm.
test-slow: setup $(NODE_ASSETS)
	$(PYTEST) -m slow --nbval-lax

# Everything CI runs (.ci/run), in order.
check: test test-slow headless-check check-slides colab-check cpu-check

# Plain `jupyter nbconvert --execute` of every explorer notebook, several runs each, each under a timeout (slow:
# minutes, so not part of `make test`; CI runs it after). E.g. make headless-check HEADLESS_ARGS="--runs 50"
HEADLESS_ARGS ?=

headless-check: setup
	$(BIN)/python -m tools.headless $(HEADLESS_ARGS)

# Only some notebooks, by name or number: make execute NOTEBOOKS="03 08" (also for stamp and bench)
NOTEBOOKS ?=
execute: setup
	$(BIN)/python -m tools.notebooks execute $(NOTEBOOKS)

stamp: setup
	$(BIN)/python -m tools.notebooks stamp $(NOTEBOOKS)

data: setup
	$(BIN)/python -c "from helpers.data import ensure_corpus; print('corpus ready:', ensure_corpus().name)"

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python -m tools.notebooks bench $(NOTEBOOKS)

# No `setup` here: on a GPU machine .venv would bring a CPU torch. The machine's own Python and torch
# are used; what they lack comes from .whl/ into .gpu-site/ (kept first on PYTHONPATH, kernels included).
# GPU_NEEDS: what the target imports beyond torch; only when one is missing are the wheels installed.
GPU_PREPARE = export PYTHONPATH="$(GPU_SITE)$${PYTHONPATH:+:$$PYTHONPATH}"; \
	if ! $(GPU_PYTHON) -c "import $(GPU_NEEDS)" 2>/dev/null; then \
	  $(GPU_PYTHON) -m tools.gpu_check --install-wheels $(WHEELS) "$(GPU_SITE)" || exit $$?; \
	fi

gpu-check: GPU_NEEDS = nbclient, ipykernel, ipywidgets, matplotlib
gpu-check:
	@$(GPU_PREPARE); $(GPU_PYTHON) -m tools.gpu_check $(GPU_ARGS)

# Notebook 11's Transformer at the large size (10.8 M weights, block 256): minutes on a GPU, hours on a CPU, so
# never part of `make test` or CI. The machine's own Python and CUDA torch, as for gpu-check (importing helpers/
# needs matplotlib and IPython too). GPU_TRAIN_ARGS: --steps N (5000), --allow-cpu (run without a GPU, very slowly).
gpu-train: GPU_NEEDS = matplotlib, IPython, numpy
gpu-train:
	@$(GPU_PREPARE); $(GPU_PYTHON) -m helpers.scaled $(GPU_TRAIN_ARGS)

gpu-wheels:
	$(GPU_PYTHON) -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
	  --python-version $(GPU_PY_VERSION) --implementation cp $(addprefix --platform ,$(GPU_PLATFORMS)) \
	  -d $(WHEELS) -r tools/gpu-requirements.txt
	@du -sh $(WHEELS)

# The browser libraries the decks and pages load (reveal.js, require.js, jQuery, MathJax), pinned in
# package-lock.json and copied into build/lib/ so that build/ reads offline, straight from disk.

$(NODE_ASSETS): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_ASSETS)

slides: setup $(NODE_ASSETS)
	$(BIN)/python -m tools.site slides

html: slides
	$(BIN)/python -m tools.site html

# Every notebook executed afresh, its deck built, every slide measured at 1280×720 (tests/test_browser_slides.py).
# Not part of `make test` (it takes minutes); CI runs it after `make test`. Offenders: build/slide-text-report.txt.
check-slides: setup $(NODE_ASSETS)
	COURSE_SLIDE_CHECK=1 $(BIN)/python -m pytest -rxX tests/test_browser_slides.py
	@cat build/slide-text-report.txt build/slide-live-report.txt

$(COLAB_INSTALLED): tools/colab-requirements.txt
	$(PYTHON) -m venv $(COLAB_VENV)
	$(COLAB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(COLAB_VENV)/bin/python -m pip install --quiet --progress-bar off -r tools/colab-requirements.txt
	touch $(COLAB_INSTALLED)

# Every notebook run on Colab's versions, in .colab-venv/ (none of requirements.txt is installed there).
colab-check: $(COLAB_INSTALLED)
	OMP_NUM_THREADS=1 $(COLAB_VENV)/bin/python -m tools.colab_check $(COLAB_ARGS)

# Every notebook under nbval, then the runs the notebooks quote (tests/test_quoted_runs.py), with PyTorch's own CPU
# code, MKL (its matrix products) and oneDNN limited to the AVX2 instructions, those of a CPU without AVX-512, then to
# the older SSE4 ones (no AVX at all). Other instructions round differently, so a check that holds only on this
# machine's rounding can fail here (minutes; CI runs it). The quoted runs are independent trainings, so they are dealt
# to the workers one test at a time (--dist load), not a file at a time. One limit only: make cpu-check CPU_LIMIT=avx2
CPU_LIMIT ?= avx2 sse4
CPU_LIMITS_avx2 := ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2
CPU_LIMITS_sse4 := ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=SSE4_2 ONEDNN_MAX_CPU_ISA=SSE41

cpu-check: setup
	$(foreach limit,$(CPU_LIMIT),$(if $(CPU_LIMITS_$(limit)),,$(error CPU_LIMIT has '$(limit)': use avx2, sse4 or both)))
	@$(foreach limit,$(CPU_LIMIT),echo "== every notebook, the CPU limited to $(limit): $(CPU_LIMITS_$(limit))" && env $(CPU_LIMITS_$(limit)) $(PYTEST) --nbval-lax notebooks && \
	  echo "== the runs the notebooks quote, the CPU limited to $(limit)" && \
	  env $(CPU_LIMITS_$(limit)) $(PYTEST) --dist load -m slow tests/test_quoted_runs.py &&) true

clean:
	rm -rf $(VENV) $(COLAB_VENV) .aside build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
