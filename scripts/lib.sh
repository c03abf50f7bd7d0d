# shellcheck shell=bash
# Shared helpers for scripts/setup, scripts/stack and scripts/demo. Source it; do not run it.

AOPS_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AOPS_LOCAL="$AOPS_REPO/.local"
AOPS_BIN="$AOPS_LOCAL/bin"
AOPS_LOGS="$AOPS_LOCAL/logs"

# MinIO pinned to what `go install github.com/minio/minio@latest` resolved to on 2026-11-30.
AOPS_MINIO_MODULE="github.com/minio/minio"
AOPS_MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
# warp: one explicit release; the proxy refuses @latest for this module.
AOPS_WARP_MODULE="github.com/minio/warp"
AOPS_WARP_VERSION="v1.0.0"
AOPS_GO_MIN_MINOR=24   # Go 1.24 or newer

# One-line failure message and exit.
aops_die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

aops_say() {
    echo "$(basename "$0"): $*"
}

# Locate `go`; prints its path or nothing.
aops_find_go() {
    local g="${AOPS_GO-}"
    if [ -n "${AOPS_GO+x}" ]; then printf '%s' "$g"; return; fi   # explicit override (tests)
    g="$(command -v go 2>/dev/null || true)"
    if [ -z "$g" ] && [ -x /usr/local/go/bin/go ]; then g=/usr/local/go/bin/go; fi
    printf '%s' "$g"
}

# Read one KEY from a KEY=VALUE file (no shell evaluation of the file).
aops_kv() {
    local file="$1" key="$2"
    sed -n "s/^${key}=//p" "$file" | head -n1
}
