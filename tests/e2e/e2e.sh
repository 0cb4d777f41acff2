#!/usr/bin/env bash
# `make e2e`: deploy the landing zone into a local AWS emulator (localstack-core from PyPI, host mode, no Docker,
# loopback only), into the accounts the deploy plan names (each 12-digit access key ID is an account of its own), by
# running the commands `python -m landing_zone deploy-plan` prints; assert what was really deployed, deploy again (no
# changes), run `verify` with each account's profile, inject one fault per family and assert `verify` reports each,
# remove it as `deploy-plan --remove` prints, check that each account holds exactly what the templates retain, and
# deploy again into the same accounts.  See docs/E2E.md.
#
#   make e2e                      VARIANT="full member-baseline single", each in a fresh emulator
#   make e2e VARIANT=single       one variant: full | member-baseline | single | organization | new-vpc
#
#   full             organization + new VPC: guardrails in the management account, keys, network, access, cost in
#                    the workload account
#   member-baseline  organization + member baseline: guardrails and the StackSet in the management account, its
#                    instance (keys, network, access, cost) in a member account
#   single           one account, no organization; imported VPC (created in the emulator first)
#   organization     as full, with an imported VPC
#   new-vpc          one account, new VPC
#
# Environment: LS_PYTHON (a Python >= 3.13 for the emulator's own virtualenv), LS_VENV (default .venv-localstack),
# E2E_NETNS=0 (host network instead of a private network namespace), E2E_PORT (default 4566), STARTUP_TIMEOUT (s,
# default 60), STEP_TIMEOUT (s, default 300, for each CDK CLI command), E2E_OUT (run folders, default reports/e2e),
# E2E_KEEP=1 (keep the emulator's files of a passing run), E2E_RECORD_COUNTS=1 (after a change to verify: print
# verify's counts without asserting them, to update EXPECTED_VERIFY_COUNTS).
# The emulator this script starts is always stopped: on success, failure and interrupt (trap), and, should the
# script be killed, by its parent-death signal.
set -Eeuo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VARIANTS=${VARIANT:-full member-baseline single}
LS_VENV=${LS_VENV:-$REPO/.venv-localstack}
PROJECT_VENV=${PROJECT_VENV:-$REPO/.venv}
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-60}
export STEP_TIMEOUT=${STEP_TIMEOUT:-300}
PORT=${E2E_PORT:-4566}
REGION=us-east-1
export E2E_T0=${E2E_T0:-$EPOCHREALTIME}

for v in $VARIANTS; do
  case $v in
    full | member-baseline | single | organization | new-vpc) ;;
    *) echo "error: VARIANT must be full, member-baseline, single, organization or new-vpc (or several, space-separated), not '$v'" >&2; exit 2 ;;
  esac
done
for tool in curl setsid setpriv; do
  command -v "$tool" > /dev/null || { echo "error: $tool is required (util-linux / curl)" >&2; exit 2; }
done
[[ -x $PROJECT_VENV/bin/python ]] || { echo "error: no $PROJECT_VENV: run through 'make e2e' (it sets it up)" >&2; exit 2; }

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- the emulator's virtualenv (needs PyPI) ---------
# Exact versions, no resolver (--no-deps): a plain resolve of localstack-core 2026.3.0 today pulls cbor2 6.x and
# pyOpenSSL 26.x, and the runtime then fails to start.  Rebuilt when the lock or the stand-ins change.
# localstack-core 2026.3.0 needs Python >= 3.13 (it imports warnings.deprecated, new in 3.13; on 3.12 the runtime
# fails with "No component plugins found").  The newest pyenv version first, then PATH.
MIN_PY="(3, 13)"
py_ok() { "$1" -c "import sys; sys.exit(sys.version_info < $MIN_PY)" 2> /dev/null; }
find_python() {
  if [[ -n ${LS_PYTHON:-} ]]; then echo "$LS_PYTHON"; return 0; fi
  local c
  for c in $(ls -d /root/.pyenv/versions/3.1[2-9]* 2> /dev/null | sort -rV | sed 's|$|/bin/python|') \
    python3.14 python3.13 python3; do
    if command -v "$c" > /dev/null 2>&1 && py_ok "$c"; then echo "$c"; return 0; fi
  done
  return 1
}

setup_ls_venv() { # the pinned set (rebuilt when the lock changes), then the stand-ins (reinstalled when they change)
  local t0=$EPOCHREALTIME py log=$LS_VENV/.e2e-setup.log src lock stand
  lock=$(sha256sum < "$HERE/requirements-localstack.txt" | cut -c1-16)
  stand=$(cd "$HERE/standins" && cat pyproject.toml lz_e2e_standins/*.py | sha256sum | cut -c1-16)
  if [[ -f $LS_VENV/.e2e-lock && $(cat "$LS_VENV/.e2e-lock") == "$lock" ]] && py_ok "$LS_VENV/bin/python"; then
    [[ -f $LS_VENV/.e2e-standins && $(cat "$LS_VENV/.e2e-standins") == "$stand" ]] && return 0
  else
    py=$(find_python) || { echo "error: the emulator needs Python >= 3.13: none in /root/.pyenv/versions/ or on PATH; set LS_PYTHON" >&2; exit 2; }
    py_ok "$py" || { echo "error: LS_PYTHON=$py is not Python >= 3.13 (localstack-core 2026.3.0 needs warnings.deprecated)" >&2; exit 2; }
    echo "creating $LS_VENV with $py ($("$py" --version 2>&1)): tests/e2e/requirements-localstack.txt" >&2
    rm -rf "$LS_VENV"
    "$py" -m venv "$LS_VENV"
    "$LS_VENV/bin/python" -m pip install --no-compile --no-deps -r "$HERE/requirements-localstack.txt" > "$log" 2>&1 \
      || { grep -v 'is ignored: it is neither' "$log" | tail -30 >&2; echo "error: installing into $LS_VENV failed (log: $log)" >&2; exit 2; }
    # compiled on every core (pip compiles on one: 33 s for install and compile, against 15 s + 11 s on 2 cores), so
    # that the three emulators do not each compile what they import; a file that does not compile is skipped, as pip
    # skips it
    "$LS_VENV/bin/python" -m compileall -q -j0 "$("$LS_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
      >> "$log" 2>&1 || true
    echo "$lock" > "$LS_VENV/.e2e-lock"
  fi
  # the stand-ins, built from a copy so that no build/ or *.egg-info is written into the checkout
  src=$(mktemp -d)
  cp -r "$HERE/standins/." "$src/"
  if ! { "$LS_VENV/bin/python" -m pip install --no-deps --no-build-isolation --force-reinstall "$src" \
    && "$LS_VENV/bin/python" -m pip check; } >> "$log" 2>&1; then
    rm -rf "$src"
    grep -v 'is ignored: it is neither' "$log" | tail -30 >&2
    echo "error: installing the stand-ins into $LS_VENV failed (log: $log)" >&2
    exit 2
  fi
  rm -rf "$src"
  echo "$stand" > "$LS_VENV/.e2e-standins"
  echo "emulator virtualenv $LS_VENV ready ($(elapsed "$t0") s)" >&2
}

if [[ -z ${E2E_IN_NETNS:-} ]]; then
  setup_ls_venv
  export E2E_SETUP_S; E2E_SETUP_S=$(elapsed "$E2E_T0")
  # Everything else runs in a private network namespace with only loopback up: nothing can leave the machine, and
  # the port cannot collide with another emulator.  Not permitted (not root, no user namespaces): the host network.
  if [[ ${E2E_NETNS:-1} != 0 ]] && command -v unshare > /dev/null && command -v ip > /dev/null \
    && unshare -n true 2> /dev/null; then
    exec unshare -n env E2E_IN_NETNS=1 bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
  fi
  echo "note: running on the host network (no private network namespace: E2E_NETNS=0 or unshare -n not permitted)" >&2
  export E2E_IN_NETNS=host
fi

# ---------------------------------------------------------------- environment -----------------------------------
OUT=$(realpath -m "${E2E_OUT:-$REPO/reports/e2e}")
STAMP=$(date +%Y%m%dT%H%M%S)
TOP=$OUT/$STAMP
mkdir -p "$TOP"
TIMINGS=$TOP/timings.tsv
printf 'variant\tstep\tseconds\tresult\n' > "$TIMINGS"
printf 'all\tsetup-emulator-venv\t%s\tok\n' "${E2E_SETUP_S:-0}" >> "$TIMINGS"

# the emulator: host mode, loopback only, no DNS server, no analytics, no persistence, no remote catalog
use_port() { PORT=$1; export GATEWAY_LISTEN=127.0.0.1:$PORT AWS_ENDPOINT_URL=http://127.0.0.1:$PORT; }
export OVERRIDE_IN_DOCKER=0 GATEWAY_SERVER=hypercorn DNS_ADDRESS=0
export DISABLE_EVENTS=1 SKIP_SSL_CERT_DOWNLOAD=1 PERSISTENCE=0 CFN_IGNORE_UNSUPPORTED_RESOURCE_TYPES=1
export API_ENDPOINT=http://127.0.0.1:9/v1 ANALYTICS_API=http://127.0.0.1:9/v1 LOCALSTACK_CLI=0
# the CDK CLI and boto3 (the project's virtualenv and node_modules)
export PATH=$PROJECT_VENV/bin:$REPO/node_modules/.bin:$PATH
export CDK_DISABLE_CLI_TELEMETRY=true CDK_DISABLE_VERSION_CHECK=1
# No credentials in the environment: each command runs with the profile of its account (run folder aws/credentials,
# written from the deploy plan; no default profile).
use_port "$PORT"
export AWS_DEFAULT_REGION=$REGION AWS_REGION=$REGION AWS_EC2_METADATA_DISABLED=true
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_DEFAULT_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
CHECK=(python -m tests.e2e.e2e_check)

LS_PID=
VARIANT_NOW=
RUN=
PRESYNTH_PID=
VARIANT_PIDS=()
SOFT_FAILURES=$TOP/soft-failures.txt

alive() { local s; s=$(ps -o stat= -p "$1" 2> /dev/null) || return 1; [[ $s != Z* ]]; }

stop_ls() {
  [[ -z $PRESYNTH_PID ]] || kill -TERM "$PRESYNTH_PID" 2> /dev/null || true
  PRESYNTH_PID=
  [[ -n $LS_PID ]] || return 0
  local t0=$EPOCHREALTIME
  if alive "$LS_PID"; then
    kill -TERM -- "-$LS_PID" 2> /dev/null || true
    for _ in $(seq 1 60); do alive "$LS_PID" || break; sleep 0.25; done
    if alive "$LS_PID"; then echo "the emulator did not stop within 15 s: SIGKILL" >&2; fi
    kill -KILL -- "-$LS_PID" 2> /dev/null || true # the whole process group, stragglers included
  fi
  wait "$LS_PID" 2> /dev/null || true
  echo "emulator (pid $LS_PID) stopped in $(elapsed "$t0") s" >&2
  LS_PID=
}

summary() { # every step by variant, each variant's total (its steps add up: variants may run at the same time),
  # the script's total (wall clock, seconds)
  echo "---- timings (s) ---- $TIMINGS"
  awk -F'\t' -v total="$(elapsed "$E2E_T0")" '
    NR == 1 { next }
    { if (!($1 in sum)) order[n++] = $1; sum[$1] += $3; lines[$1] = lines[$1] sprintf("%-16s %-46s %7s  %s\n", $1, $2, $3, $4) }
    END {
      for (i = 0; i < n; i++) printf "%s", lines[order[i]]
      for (i = 0; i < n; i++) if (order[i] != "all") printf "%-16s %-46s %7.1f\n", order[i], "(variant total)", sum[order[i]]
      printf "%-16s %-46s %7s\n", "all", "(script total, wall clock)", total
    }' "$TIMINGS"
}

finish() {
  local rc=$?
  trap - EXIT INT TERM
  ((${#VARIANT_PIDS[@]} == 0)) || kill -TERM "${VARIANT_PIDS[@]}" 2> /dev/null || true # each stops its emulator
  wait 2> /dev/null || true
  stop_ls
  summary
  if ((rc == 0)); then
    echo "E2E PASSED ($VARIANTS) -- $TOP"
  else
    [[ ! -s $SOFT_FAILURES ]] || sed 's/^/failed (the rest of the run went on): /' "$SOFT_FAILURES" >&2
    echo "E2E FAILED (${VARIANT_NOW:-$VARIANTS}, exit $rc) -- logs in ${RUN:-$TOP}" >&2
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { # step NAME CMD...: run and time CMD; a non-zero exit fails the run
  local name=$1 t0=$EPOCHREALTIME rc=0
  shift
  echo "== $VARIANT_NOW: $name" >&2
  "$@" || rc=$?
  printf '%s\t%s\t%s\t%s\n' "$VARIANT_NOW" "$name" "$(elapsed "$t0")" "$( ((rc == 0)) && echo ok || echo "FAILED (exit $rc)")" >> "$TIMINGS"
  return "$rc"
}

start_ls() {
  if curl -s -m 1 -o /dev/null "http://127.0.0.1:$PORT/_localstack/health"; then
    echo "error: something already answers on 127.0.0.1:$PORT (another emulator? set E2E_PORT)" >&2; return 1
  fi
  # its own process group (stopped as a group); SIGTERM should this script die without running its trap
  FILESYSTEM_ROOT=$RUN/ls-fs setsid setpriv --pdeathsig TERM "$LS_VENV/bin/python" -m lz_e2e_standins.run \
    > "$RUN/localstack.log" 2>&1 < /dev/null &
  LS_PID=$!
  local deadline=$((SECONDS + STARTUP_TIMEOUT))
  while ((SECONDS < deadline)); do
    if curl -sf -m 2 "http://127.0.0.1:$PORT/_localstack/health" > "$RUN/health.json" 2> /dev/null \
      && grep -q '"cloudformation": "\(available\|running\)"' "$RUN/health.json"; then
      return 0
    fi
    alive "$LS_PID" || { echo "the emulator exited during startup:" >&2; tail -20 "$RUN/localstack.log" >&2; return 1; }
    sleep 0.25
  done
  echo "the emulator was not healthy after ${STARTUP_TIMEOUT} s:" >&2; tail -20 "$RUN/localstack.log" >&2; return 1
}

in_repo() { (cd "$REPO" && "$@"); }

synth() {
  in_repo python -m landing_zone validate --quiet --config "$RUN/config.yaml" \
    && in_repo cdk synth --quiet --no-notices -c config="$RUN/config.yaml" -o "$RUN/cdk.out" > /dev/null 2> "$RUN/synth.log"
}

# The plan the operator reads: `deploy-plan` and `deploy-plan --remove` for this configuration, printed into the log
# and kept as JSON; every deploy, destroy and bootstrap below is one of their commands, run as printed.
make_plan() { in_repo "${CHECK[@]}" plans "$RUN"; }

# the commands of PLAN (plan|removal) whose verb is in KINDS (comma-separated, or all): index, verb, label
plan_commands() { awk -F'\t' -v kinds=",$2," 'kinds == ",all," || index(kinds, "," $2 ",")' "$RUN/$1.tsv"; }

# plan_steps PLAN KINDS NAME [deploy flags...]: every command of plan.json|removal.json whose verb is in KINDS (or
# all), in the printed order, each a step of its own (its account's profile is in the command), output in NAME.log.
# After the removal's deploy (the detach) the SCPs must have no target left.
plan_steps() {
  local which=$1 kinds=$2 name=$3 i verb label
  shift 3
  while IFS=$'\t' read -r i verb label; do
    step "$name $((i + 1)): $verb ($label)" in_repo "${CHECK[@]}" step "$RUN" "$which" "$i" "$RUN/$name.log" "$@" \
      || return 1
    if [[ $which == removal && $verb == deploy ]]; then
      step detached in_repo "${CHECK[@]}" detached "$RUN" || return 1
    fi
  done < <(plan_commands "$which" "$kinds")
}

presynthesized() { # the background synthesis of the removal's assemblies is done, and succeeded
  local rc=0
  [[ -n $PRESYNTH_PID ]] || return 0
  wait "$PRESYNTH_PID" || rc=$?
  PRESYNTH_PID=
  ((rc == 0)) || { tail -30 "$RUN/presynth.log" >&2; return "$rc"; }
}

# redeploy: every deploy command of the plan again, into the accounts that hold what the first deployment retained;
# a failure (a name collision, printed as REDEPLOY COLLISION) is reported and the next command still runs.
redeploy() {
  local i verb label failed=0
  while IFS=$'\t' read -r i verb label; do
    step "redeploy $((i + 1)): $verb ($label)" in_repo "${CHECK[@]}" step "$RUN" plan "$i" "$RUN/redeploy.log" \
      || failed=1
  done < <(plan_commands plan deploy)
  return "$failed"
}

# verify_all NAME: verify as an operator runs it (each account's profile); with a member baseline also in the
# member account (--stackset-member, NAME-member.json)
verify_all() {
  local name=$1
  step "$name" in_repo "${CHECK[@]}" verify "$RUN" "$name" || return 1
  [[ $VARIANT_NOW == member-baseline ]] || return 0
  step "$name-member" in_repo "${CHECK[@]}" verify "$RUN" "$name-member" member
}

counts() { # counts NAME: verify's counts of NAME.json (and NAME-member.json) are the expected ones
  local name=$1
  step "$name-counts" in_repo "${CHECK[@]}" verify-counts "$RUN/$name.json" "$VARIANT_NOW" || return 1
  [[ $VARIANT_NOW == member-baseline ]] || return 0
  step "$name-member-counts" in_repo "${CHECK[@]}" verify-counts "$RUN/$name-member.json" "$VARIANT_NOW/member"
}

run_variant() {
  VARIANT_NOW=$1
  RUN=$TOP/$VARIANT_NOW
  mkdir -p "$RUN"
  export AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_CONFIG_FILE=/dev/null
  local member=
  [[ $VARIANT_NOW != member-baseline ]] || member=-member
  step start-emulator start_ls
  step config in_repo "${CHECK[@]}" config "$RUN" "$VARIANT_NOW"
  step plan make_plan
  step profiles in_repo "${CHECK[@]}" profiles "$RUN"
  export AWS_SHARED_CREDENTIALS_FILE=$RUN/aws/credentials AWS_CONFIG_FILE=$RUN/aws/config
  step synth synth
  # the assemblies of the removal's own -c flags (the detach), synthesized meanwhile: the CLI mostly waits
  in_repo "${CHECK[@]}" assemblies "$RUN" removal > "$RUN/presynth.log" 2>&1 &
  PRESYNTH_PID=$!
  plan_steps plan bootstrap bootstrap
  step inventory in_repo "${CHECK[@]}" inventory "$RUN" "$RUN/inventory-before.json"
  plan_steps plan deploy deploy-1
  step stack-status in_repo "${CHECK[@]}" stacks "$RUN"
  step pretended in_repo "${CHECK[@]}" pretended "$RUN" "$HERE/expected-pretended-$VARIANT_NOW.tsv"
  step readback in_repo "${CHECK[@]}" readback "$RUN"
  # deploy-2: the CLI compares each template with the deployed one; deploy-3 (--force): the emulator computes a
  # change set for every stack.  Both must change nothing.
  plan_steps plan deploy deploy-2
  step no-changes in_repo "${CHECK[@]}" no-changes "$RUN" "$RUN/deploy-2.log"
  plan_steps plan deploy deploy-3 --force
  step no-changes-forced in_repo "${CHECK[@]}" no-changes "$RUN" "$RUN/deploy-3.log"
  verify_all verify
  counts verify
  # detection: one fault per family through the emulator's APIs, then verify must report each, and nothing else
  step inject-faults in_repo "${CHECK[@]}" inject "$RUN"
  verify_all verify-faults
  step detected in_repo "${CHECK[@]}" detected "$RUN/verify$member.json" "$RUN/verify-faults$member.json" "$RUN/faults.json"
  # issue 37: the detection rules (on in organization mode) deliver two events to the alerts topic, each alert naming
  # its statement, the principal and the resource (docs/DETECTION.md); shown in the deployment account's stacks (the
  # member baseline's rules are the same constructs, read back by verify in the member account)
  case $VARIANT_NOW in
    full | organization) step events in_repo "${CHECK[@]}" events "$RUN" ;;
  esac
  # removal, as deploy-plan --remove prints it (docs/DEPLOY.md); then each account holds exactly what it held plus
  # what the templates retain
  step snapshot in_repo "${CHECK[@]}" snapshot "$RUN"
  step presynthesized presynthesized
  plan_steps removal all remove
  step retained in_repo "${CHECK[@]}" retained "$RUN" "$RUN/inventory-before.json"
  # deploy again into the same accounts, next to what the first deployment retained: no name may collide
  if redeploy; then
    step redeploy-status in_repo "${CHECK[@]}" stacks "$RUN"
    verify_all verify-redeploy
    counts verify-redeploy
  else
    echo "REDEPLOY FAILED ($VARIANT_NOW): see the collisions above; the run goes on and fails at the end" >&2
    echo "$VARIANT_NOW: deploy again after the removal ($RUN/redeploy.log)" >> "$SOFT_FAILURES"
  fi
  step stop-emulator stop_ls
  [[ ${E2E_KEEP:-0} == 1 ]] || rm -rf "$RUN/ls-fs"
}

echo "network: $([[ $E2E_IN_NETNS == host ]] && echo "host (loopback listener)" || echo "private namespace (unshare -n)")" >&2
# The variants run at the same time, each with its own emulator on its own port (E2E_PARALLEL=0: one after the
# other): most of a deployment is the CDK CLI waiting for CloudFormation.  Each variant's output goes to
# <run>/<variant>.log and is printed when it ends.
if [[ ${E2E_PARALLEL:-1} == 0 || $(wc -w <<< "$VARIANTS") == 1 ]]; then
  for v in $VARIANTS; do
    run_variant "$v"
  done
else
  declare -A LOG_OF=()
  port=$PORT
  for v in $VARIANTS; do
    (
      trap stop_ls EXIT
      trap 'exit 143' TERM
      use_port "$port"
      run_variant "$v"
    ) > "$TOP/$v.log" 2>&1 &
    VARIANT_PIDS+=($!)
    LOG_OF[$!]=$TOP/$v.log
    port=$((port + 1))
  done
  failed=0
  while ((${#VARIANT_PIDS[@]})); do
    done_pid=
    wait -n -p done_pid "${VARIANT_PIDS[@]}" || failed=1
    cat "${LOG_OF[$done_pid]}" >&2
    left=()
    for pid in "${VARIANT_PIDS[@]}"; do [[ $pid == "$done_pid" ]] || left+=("$pid"); done
    VARIANT_PIDS=("${left[@]}")
  done
  ((failed == 0)) || exit 1
fi
VARIANT_NOW=
[[ ! -s $SOFT_FAILURES ]] || exit 1
