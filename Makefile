# The course companion's commands. The two a newcomer needs:
#   make book   set everything up (virtual environment, pinned packages,
#               vendored web assets), release the homework, execute the
#               chapters and build the website
#   make test   run the whole test suite (builds what it needs first)
# Instructors: see README.md, "Grading" (make release / grade / feedback / export).

SHELL      := /bin/bash
PYTHON     ?= $(shell command -v python3.11 || command -v python3)
VENV       := .venv
BIN        := $(VENV)/bin
STAMP      := $(VENV)/.installed
VENDOR     := _vendor/widgets/embed-amd.js _vendor/widgets/require.js
SITE       := _build/html
# The chapters listed in the table of contents (a draft not in _toc.yml is not tested).
CHAPTERS   := $(patsubst %,%.md,$(shell grep -o 'chapters/[A-Za-z0-9_]*' _toc.yml))
NBVAL_DIR  := _build/nbval

export PYTHONDONTWRITEBYTECODE := 1
# The environment's own Jupyter kernel, config and data: never the user's.
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: help setup book pdf test bench release grade feedback export serve clean

help:
	@sed -n '1,8p' Makefile

# --- set-up -------------------------------------------------------------
$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

setup: $(STAMP) $(VENDOR)

# The widget manager and RequireJS come from the npm registry as package
# tarballs (no dependency tree), unpacked beside the site's pages.
_vendor/widgets/embed-amd.js:
	mkdir -p _vendor/widgets _build/npm
	cd _build/npm && npm pack --silent @jupyter-widgets/html-manager@1.0.15 >/dev/null
	tar -xzf _build/npm/jupyter-widgets-html-manager-1.0.15.tgz -C _build/npm
	cp -r _build/npm/package/dist/. _vendor/widgets/
	# The manager asks for its fonts relative to the page (the chapters), as
	# if it had been loaded from a CDN path: serve them there too.
	mkdir -p _vendor/chapters/@jupyter-widgets/html-manager/dist
	cp _build/npm/package/dist/*.woff* _build/npm/package/dist/*.ttf _build/npm/package/dist/*.eot \
	   _build/npm/package/dist/*.svg _vendor/chapters/@jupyter-widgets/html-manager/dist/
	rm -rf _build/npm/package

_vendor/widgets/require.js:
	mkdir -p _vendor/widgets _build/npm
	cd _build/npm && npm pack --silent requirejs@2.3.8 >/dev/null
	tar -xzf _build/npm/requirejs-2.3.8.tgz -C _build/npm
	cp _build/npm/package/require.js $@
	rm -rf _build/npm/package

# --- the website --------------------------------------------------------
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
# Chapters are MyST-markdown notebooks; nbval runs their .ipynb form.
$(NBVAL_DIR): $(CHAPTERS) | setup
	rm -rf $@ && mkdir -p $@
	for f in $(CHAPTERS); do $(BIN)/jupytext --quiet --to ipynb -o $@/$$(basename $${f%.md}).ipynb $$f; done

test: book pdf $(NBVAL_DIR)
	$(BIN)/python -m pytest --doctest-modules lib tests $(NBVAL_DIR) --nbval-lax -p no:cacheprovider

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
	rm -rf _build _vendor release autograded feedback gradebook.db grades.csv
	@echo "(submitted/ is kept: it holds the class's hand-ins)"
