# Every target sets up what it needs: a virtual environment in .venv with the project installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# cli/ is installed as gostop_cli, so an editable install goes through setuptools' import
# finder, which says so in an informational notice; set-up prints nothing but errors.
PIP := PYTHONWARNINGS="ignore:Editable installation:UserWarning" $(BIN)/pip

.PHONY: demo test lint bench bench-quick stress schemas clean native

$(STAMP): pyproject.toml
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) install --quiet --upgrade pip
	@$(PIP) install --quiet -e '.[dev]'
	@touch $(STAMP)

# The kernel compiled with mypyc, beside its sources (build_native.py; the list is KERNEL in
# gostop_records/_native.py); the sources stay the reference and the fallback. Without a
# compiler the package runs as pure Python.
NATIVE := $(VENV)/.native
NATIVE_SRC := $(shell $(PYTHON) build_native.py --sources 2>/dev/null)

$(NATIVE): $(STAMP) build_native.py gostop_records/_native.py $(NATIVE_SRC)
	@$(BIN)/python build_native.py >$(VENV)/native.log 2>&1 \
		|| echo "native build skipped (see $(VENV)/native.log): replay runs as pure Python"
	@touch $(NATIVE)

native: $(NATIVE)

demo: $(STAMP)
	$(BIN)/gostop demo

test: $(STAMP) $(NATIVE)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n auto --dist loadfile
	# the few tests that read the kernel's internals, on its source (skipped above when the
	# suite ran compiled; run there already when it did not)
	@if $(BIN)/python -c "import gostop_records as g, sys; sys.exit(not g.compiled())"; then \
		GOSTOP_PURE_PYTHON=1 $(BIN)/python -m pytest -m pure_python; fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

schemas: $(STAMP)
	$(BIN)/gostop schema --out schemas

bench: $(STAMP) $(NATIVE)
	$(PIP) install --quiet -e '.[dev,bench]'
	$(BIN)/python -m bench --archive
	$(BIN)/python -m bench --bots

bench-quick: $(STAMP) $(NATIVE)
	$(PIP) install --quiet -e '.[dev,bench]'
	$(BIN)/python -m bench --quick

stress: $(STAMP)
	$(BIN)/python -m stress

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache
	find gostop_records -name '*.so' -delete
