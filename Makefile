PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test test-latest bench docs docs-check ecosystem

# the lower bound of every dependency range (requirements/lower-bounds.txt)
$(VENV)/.installed: pyproject.toml requirements/lower-bounds.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,docs,examples]" -c requirements/lower-bounds.txt
	touch $@

# xjax's bytecode, written here: an editable install writes none, and where
# PYTHONDONTWRITEBYTECODE is set every process would compile xjax's ~280 modules again on
# import (0.7 s of a 1.0 s import on a 2-core machine; pip writes a wheel's, JAX's included)
setup: $(VENV)/.installed
	$(PY) -m compileall -q xjax

demo: setup
	$(PY) examples/demo.py

test: setup
	$(PY) -m pytest -q -n 2 tests

# the suite on the newest releases the ranges admit (jaxlib, NumPy, SciPy, ml_dtypes), in
# a second venv, upgraded on every run
test-latest:
	test -x .venv-latest/bin/python || $(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install -q --upgrade pip
	.venv-latest/bin/python -m pip install -q --upgrade --upgrade-strategy eager -e ".[test]"
	.venv-latest/bin/python -c "import jaxlib, numpy, scipy; print('jaxlib', jaxlib.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)"
	.venv-latest/bin/python -m pytest -q -n 2 tests

# the documentation site (guide, API reference from docstrings) in build/docs; warnings are errors
docs: setup
	$(PY) -m mkdocs build --strict

# the API pages in headless Chromium (tools/check_api_pages.py): built, served locally, each
# checked for its headings, console errors and failed requests; screenshots in build/api-check
# (not in `make test`: CI has no browser)
docs-check: setup
	$(PY) tools/check_api_pages.py

bench: setup
	for f in benchmarks/*.py; do $(PY) $$f; done

# the own test suites of optax, chex, einops, jax-dataclasses, jraph, dm-pix, rlax and flashbax
# on xjax, in .ecosystem/venv (no `jax` there; tools/ecosystem.py); the sweep of
# one README-style program per library on xjax and on JAX 0.10.2 (its table: docs/ecosystem.md);
# then the libraries' quickstarts, remat, an orbax checkpoint round trip of a flax/optax
# training state (one device and sharded over four) and the sweep's passing programs
# (tests/compat/test_ecosystem_*.py, skipped by `make test`'s venv)
ecosystem:
	$(PYTHON) tools/ecosystem.py
	$(PYTHON) tools/ecosystem_sweep.py
	.ecosystem/venv/bin/python -m xjax -m pytest -q -p no:cacheprovider \
	  tests/compat/test_ecosystem_quickstarts.py tests/compat/test_ecosystem_remat.py \
	  tests/compat/test_ecosystem_checkpoint.py tests/compat/test_ecosystem_sweep.py
