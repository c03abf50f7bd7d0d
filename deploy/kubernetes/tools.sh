#!/usr/bin/env bash
# Installs the two tools that render and check deploy/kubernetes offline, for
# tests/integration/test_k8s_manifests.sh and for operators without kubectl:
#   - kustomize, built from source with `go install` (the upstream install method; Go module
#     sigs.k8s.io/kustomize/kustomize/v5 at a pinned version) into .local/k8s-tools/bin
#   - kubernetes-validate from PyPI (it ships the Kubernetes OpenAPI schemas, so validation
#     needs no cluster), plus PyYAML it depends on, in a venv at .local/k8s-tools/venv
# Idempotent: when both are present at their pinned versions it only checks and takes well
# under a second. Prints nothing on success unless it installed something.
# Called by scripts/setup; by hand: deploy/kubernetes/tools.sh
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TOOLS="$ROOT/.local/k8s-tools"
BIN="$TOOLS/bin"
VENV="$TOOLS/venv"
LOG="$TOOLS/install.log"

# v5.8.2 is the newest release whose go.mod asks for no newer Go than 1.26 (v5.8.3 wants 1.27).
KUSTOMIZE_MODULE="sigs.k8s.io/kustomize/kustomize/v5"
KUSTOMIZE_VERSION="v5.8.2"
KUBERNETES_VALIDATE_VERSION="1.37.0"

die() { echo "tools.sh: $*" >&2; exit 1; }
mkdir -p "$BIN"

# ---- kustomize ------------------------------------------------------------------------------
if [ "$(cat "$BIN/kustomize.version" 2>/dev/null || true)" != "$KUSTOMIZE_VERSION" ] || [ ! -x "$BIN/kustomize" ]; then
    GO="$(command -v go 2>/dev/null || true)"
    [ -n "$GO" ] || { [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go; } || true
    [ -n "$GO" ] || die "Go is missing (kustomize is built with go install); install Go >= 1.24"
    echo "tools.sh: building kustomize $KUSTOMIZE_VERSION with go install (a minute or two; log: $LOG)"
    GOBIN="$BIN" GOTOOLCHAIN=local "$GO" install "$KUSTOMIZE_MODULE@$KUSTOMIZE_VERSION" >>"$LOG" 2>&1 ||
        die "go install $KUSTOMIZE_MODULE@$KUSTOMIZE_VERSION failed; see $LOG"
    echo "$KUSTOMIZE_VERSION" >"$BIN/kustomize.version"
fi

# ---- kubernetes-validate --------------------------------------------------------------------
if [ "$(cat "$VENV/kubernetes-validate.version" 2>/dev/null || true)" != "$KUBERNETES_VALIDATE_VERSION" ] ||
    [ ! -x "$VENV/bin/kubernetes-validate" ]; then
    command -v python3 >/dev/null 2>&1 || die "python3 is missing"
    echo "tools.sh: installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION from PyPI into $VENV (log: $LOG)"
    if [ ! -x "$VENV/bin/pip" ]; then
        python3 -m venv "$VENV" >>"$LOG" 2>&1 ||
            die "python3 -m venv failed (on Debian: apt-get install python3-venv); see $LOG"
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check \
        "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" >>"$LOG" 2>&1 ||
        die "pip install kubernetes-validate==$KUBERNETES_VALIDATE_VERSION failed; see $LOG"
    echo "$KUBERNETES_VALIDATE_VERSION" >"$VENV/kubernetes-validate.version"
fi
