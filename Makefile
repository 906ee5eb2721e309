# The course companion's commands. The two a newcomer needs:
#   make book   set everything up (virtual environment, pinned packages),
#               release the homework, execute the chapters and build the
#               website
#   make test   run the whole test suite (builds what it needs first)
# Authors: make check (lib tests, doctests of lib and the autograder, changed chapters; under a minute).
# Instructors: see README.md, "Grading" (make release / grade / feedback / export).

SHELL      := /bin/bash
PYTHON     ?= $(shell command -v python3.11 || command -v python3)
VENV       := .venv
BIN        := $(VENV)/bin
STAMP      := $(VENV)/.installed
SITE       := _build/html
# The chapters listed in the table of contents (a draft not in _toc.yml is not tested), and
# the template of a chapter, which is executed with them but not part of the book.
CHAPTERS   := $(patsubst %,%.md,$(shell grep -o 'chapters/[A-Za-z0-9_]*' _toc.yml))
TEMPLATE   := chapters/_template.md
NBVAL_DIR  := _build/nbval-template
PYTEST     := $(BIN)/python -m pytest -p no:cacheprovider
# pytest-xdist, one worker per core; tests/conftest.py puts each file in a group
# of its own, the homework round trips and mutation check in one group per
# assignment, and deals the longest groups out first.
XDIST      := -n auto --dist loadgroup

export PYTHONDONTWRITEBYTECODE := 1
# The environment's own Jupyter kernel, config and data: never the user's.
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: help setup axe book pdf test check bench release grade feedback export serve clean

help:
	@sed -n '1,7p' Makefile

# --- set-up -------------------------------------------------------------
$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

setup: $(STAMP)

# axe-core, the accessibility engine the site tests run in the browser
# (tests/test_accessibility.py): pinned in package.json and package-lock.json,
# installed from the npm registry into node_modules/ (never served to readers).
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

axe: $(AXE)

# --- the website --------------------------------------------------------
# The chapters are executed in parallel into the execution cache before Sphinx
# reads them, and again when lib changes (_ext/chapter_cache.py).
book: setup release
	$(BIN)/jupyter-book build . --warningiserror --keep-going
	@echo
	@echo "The website is built: $(abspath $(SITE))/index.html"
	@echo "Open that file in a browser, or serve it with: make serve  (http://localhost:8000)"

# One PDF of the whole book, printed from the single-page build by Debian's
# Chromium (tools/book_pdf.py); served beside the site as book.pdf.
pdf: book
	$(BIN)/python tools/book_pdf.py

serve:
	cd $(SITE) && ../../$(BIN)/python -m http.server 8000 --bind 127.0.0.1

# --- tests --------------------------------------------------------------
# The chapters run once, in `make book` (a cell that raises stops the build);
# tests/test_chapters_ran.py checks that the book's cache holds each one, clean,
# at its current source and lib. The chapter template, not part of the book, is
# a MyST-markdown notebook that nbval runs in its .ipynb form.
$(NBVAL_DIR): $(TEMPLATE) | setup
	rm -rf $@ && mkdir -p $@
	$(BIN)/jupytext --quiet --to ipynb -o $@/$$(basename $(TEMPLATE:.md=)).ipynb $(TEMPLATE)

# Every mark runs here (grading, slow, network, browser, site); the report ends with the
# thirty slowest tests and the groups that took the most CPU (tests/conftest.py), so each
# run says where its time went.
# One BLAS thread per process: xdist already runs one worker per core.
test: book pdf $(NBVAL_DIR) $(AXE)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PYTEST) $(XDIST) --durations=30 --doctest-modules lib tests autograder $(NBVAL_DIR) --nbval-lax

# The quick tier while writing: lib's tests and doctests (not the grading round
# trips, the site or the scratch-book build), then the chapters git reports as
# changed or new, executed in parallel into the book's cache (a later `make
# book` reuses them).
check: setup
	status=0; \
	$(PYTEST) $(XDIST) -q -m "not grading and not slow and not network and not browser" --ignore=tests/test_site.py --doctest-modules lib tests autograder || status=1; \
	$(BIN)/python _ext/chapter_cache.py --changed $(CHAPTERS) || status=1; \
	exit $$status

bench: setup
	$(BIN)/python -m bench

# --- grading (instructors) ----------------------------------------------
release: setup
	$(BIN)/python -m autograder release

grade: setup
	$(BIN)/python -m autograder grade $(SUBMISSIONS) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) $(if $(JOBS),--jobs $(JOBS))

feedback: setup
	$(BIN)/python -m autograder feedback

export: setup
	$(BIN)/python -m autograder export

clean:
	rm -rf _build release autograded feedback grades.csv
	@echo "(kept: submitted/ and exchange/, the class's hand-ins, and gradebook.db, which holds the scores entered by hand)"
