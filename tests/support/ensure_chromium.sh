#!/usr/bin/env bash
# Make sure Debian's Chromium is installed (for the headless-browser check of the HTML report).
# Idempotent: does nothing when /usr/bin/chromium exists.  Needs root and apt (Debian's package registry).
set -euo pipefail
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure_chromium: $CHROMIUM is missing and this is not root; install it with: sudo apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
test -x "$CHROMIUM"
echo "ensure_chromium: installed $("$CHROMIUM" --version 2>/dev/null)"
