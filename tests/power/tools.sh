#!/usr/bin/env bash
# Installs sushy-tools, the Redfish simulator tests/integration/test_power_redfish.sh runs
# (sushy-static serves a mockup directory; sushy-emulator, with HTTP basic auth, is the BMC
# that refuses wrong credentials), from PyPI at a pinned version into a venv at
# .local/sushy/venv, the way deploy/kubernetes/tools.sh installs kubernetes-validate.
# Idempotent: with the pinned version present it only checks (well under a second) and
# prints nothing. Called by scripts/setup; by hand: tests/power/tools.sh
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="$ROOT/.local/sushy/venv"
LOG="$ROOT/.local/sushy/install.log"
SUSHY_TOOLS_VERSION="2.2.0"

die() { echo "tests/power/tools.sh: $*" >&2; exit 1; }
mkdir -p "$(dirname "$VENV")"

if [ "$(cat "$VENV/sushy-tools.version" 2>/dev/null || true)" != "$SUSHY_TOOLS_VERSION" ] ||
    [ ! -x "$VENV/bin/sushy-static" ] || [ ! -x "$VENV/bin/sushy-emulator" ]; then
    command -v python3 >/dev/null 2>&1 || die "python3 is missing"
    echo "tests/power/tools.sh: installing sushy-tools $SUSHY_TOOLS_VERSION from PyPI into $VENV (log: $LOG)"
    if [ ! -x "$VENV/bin/pip" ]; then
        python3 -m venv "$VENV" >>"$LOG" 2>&1 ||
            die "python3 -m venv failed (on Debian: apt-get install python3-venv); see $LOG"
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check \
        "sushy-tools==$SUSHY_TOOLS_VERSION" >>"$LOG" 2>&1 ||
        die "pip install sushy-tools==$SUSHY_TOOLS_VERSION failed; see $LOG"
    echo "$SUSHY_TOOLS_VERSION" >"$VENV/sushy-tools.version"
fi
