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

# ---- steps: one line when a step starts, naming it and its usual time ----------------------
# aops_step "what" "usual time": prints "<script>: <what> (usually <usual>)"; aops_step_done
# adds how long it took. The usual times are measured on a 2-core machine (README).
aops_step() {
    AOPS_STEP="$1" AOPS_STEP_T0=$(date +%s)
    echo "$(basename "$0"): $1 (usually $2)"
}
aops_step_done() {
    echo "$(basename "$0"):   $AOPS_STEP: done in $(($(date +%s) - AOPS_STEP_T0)) s"
}

# aops_ticker PID EVERY COMMAND...: while PID lives, every EVERY seconds print the line
# COMMAND writes (a progress count), indented. For steps over 30 s.
aops_ticker() {
    local pid=$1 every=$2 n=0 line
    shift 2
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        n=$((n + 1))
        if [ $((n % every)) = 0 ] && kill -0 "$pid" 2>/dev/null; then
            line="$("$@" 2>/dev/null || true)"
            [ -n "$line" ] && echo "$(basename "$0"):   ... $line ($n s)"
        fi
    done
}

# ---- Debian packages ------------------------------------------------------------------------
# aops_apt_install LOG PACKAGE...: install those not installed yet (apt-get update first),
# with apt's progress every 10 % from its status channel (APT::Status-Fd). Silent when all
# are there. Returns apt-get's status.
aops_apt_install() {
    local log=$1 p st
    shift
    local missing=() native
    # A name without :arch means the native package (or an Architecture: all one): with the
    # :arm64 libraries installed too, dpkg-query prints one status per architecture, and an
    # :arm64 copy alone must not count as the native one.
    native="$(dpkg --print-architecture)"
    for p in "$@"; do
        case "$p" in
        *:*) st="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" ;;
        *) st="$(dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null |
            sed -n "s/ \($native\|all\)\$//p" | head -n1 || true)" ;;
        esac
        [ "$st" = "install ok installed" ] || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "$(basename "$0"): not root and no sudo; run as root" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "$(basename "$0"):   installing ${missing[*]} (log: ${log#"$AOPS_REPO"/})"
    "${sudo[@]}" apt-get update >"$log" 2>&1 || return 1
    # Debian's mariadb-server may start the system service; the project runs its own
    # mariadbd on its own port and socket, so the system one is left as the package set it.
    { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        -o APT::Status-Fd=3 "${missing[@]}" 3>&1 1>>"$log" 2>&1 || echo "aops-apt-failed:$?"; } |
        awk -F: -v me="$(basename "$0")" '
            /^dlstatus/ { p = int($3); if (p >= nd) { printf "%s:   ... apt: downloaded %d %%\n", me, p; nd = p - p % 10 + 10 } }
            /^pmstatus/ { p = int($3); if (p >= ni) { printf "%s:   ... apt: installed %d %% (%s)\n", me, p, $4; ni = p - p % 10 + 10 } }
            /^aops-apt-failed/ { bad = 1 }
            END { exit bad }'
}

# ---- MinIO from source ----------------------------------------------------------------------
AOPS_MINIO="$AOPS_BIN/minio"
AOPS_MINIO_LOG="$AOPS_LOGS/minio-install.log"

# 0 when .local/bin/minio is the pinned version (the stamp, or the binary's own build info).
aops_minio_current() {
    [ -x "$AOPS_MINIO" ] || return 1
    [ "$(cat "$AOPS_MINIO.version" 2>/dev/null || true)" = "$AOPS_MINIO_VERSION" ] && return 0
    local go
    go="$(aops_find_go)"
    if [ -n "$go" ] && [ "$("$go" version -m "$AOPS_MINIO" 2>/dev/null | awk '$1=="mod"{print $3; exit}')" = "$AOPS_MINIO_VERSION" ]; then
        echo "$AOPS_MINIO_VERSION" >"$AOPS_MINIO.version"
        return 0
    fi
    return 1
}

# Go present and new enough, else one line and 1.
aops_go_check() {
    local go gover minor
    go="$(aops_find_go)"
    if [ -z "$go" ]; then
        echo "$(basename "$0"): Go is missing (need Go >= 1.$AOPS_GO_MIN_MINOR to build MinIO from source); install Go or use docker-compose (see README)" >&2
        return 1
    fi
    gover="$("$go" env GOVERSION 2>/dev/null || true)" # e.g. go1.26.8
    minor="$(printf '%s' "$gover" | sed -nE 's/^go1\.([0-9]+).*/\1/p')"
    if [ -z "$minor" ] || [ "$minor" -lt "$AOPS_GO_MIN_MINOR" ]; then
        echo "$(basename "$0"): Go ${gover:-unknown} is older than 1.$AOPS_GO_MIN_MINOR (needed to build MinIO from source); install a newer Go or use docker-compose (see README)" >&2
        return 1
    fi
}

# aops_minio_start: `go install` of the pinned MinIO in the background (its pid in
# AOPS_MINIO_PID), so the steps that do not need it can run meanwhile; aops_minio_wait
# waits for it with Go's progress. Nothing to do (AOPS_MINIO_PID empty) when it is built.
aops_minio_start() {
    AOPS_MINIO_PID=""
    aops_minio_current && return 0
    aops_go_check || return 1
    mkdir -p "$AOPS_BIN" "$AOPS_LOGS"
    # -v: one line per package compiled, which the progress line counts. CGO_ENABLED=0,
    # -trimpath and -s -w as MinIO's own release builds (its Makefile): no C compiler in the
    # critical path of a cold `make demo`, and a link without DWARF, the slowest single step.
    CGO_ENABLED=0 GOBIN="$AOPS_BIN" "$(aops_find_go)" install -v -trimpath -ldflags "-s -w" \
        "$AOPS_MINIO_MODULE@$AOPS_MINIO_VERSION" >"$AOPS_MINIO_LOG" 2>&1 &
    AOPS_MINIO_PID=$!
}
aops_minio_progress() {
    awk '/^go: downloading/{d++; next} /^go: /{next} {c++} END{print "MinIO: " d+0 " modules downloaded, " c+0 " packages compiled"}' "$AOPS_MINIO_LOG"
}
aops_minio_wait() {
    [ -n "${AOPS_MINIO_PID:-}" ] || return 0
    aops_ticker "$AOPS_MINIO_PID" 15 aops_minio_progress
    if ! wait "$AOPS_MINIO_PID"; then
        echo "$(basename "$0"): go install $AOPS_MINIO_MODULE@$AOPS_MINIO_VERSION failed; see ${AOPS_MINIO_LOG#"$AOPS_REPO"/}" >&2
        return 1
    fi
    echo "$AOPS_MINIO_VERSION" >"$AOPS_MINIO.version"
}

# ---- warp (bench/s3's peer; optional) --------------------------------------------------------
# aops_warp_install: build the pinned warp into .local/bin once. When it cannot be installed,
# one short line says so and why in a few words, once per machine (the marker lives outside
# the checkout, so a fresh clone does not ask the module proxy again); AOPS_RETRY_WARP=1
# retries. Returns 0 when warp is there.
AOPS_WARP="$AOPS_BIN/warp"
aops_warp_install() {
    local marker_dir="${XDG_CACHE_HOME:-$HOME/.cache}/aops-harness"
    local marker="$marker_dir/warp-$AOPS_WARP_VERSION.failed" log="$AOPS_LOGS/warp-install.log"
    if [ -x "$AOPS_WARP" ] && [ "$(cat "$AOPS_WARP.version" 2>/dev/null || true)" = "$AOPS_WARP_VERSION" ]; then
        return 0
    fi
    if [ -f "$marker" ] && [ -z "${AOPS_RETRY_WARP:-}" ]; then
        return 1 # said once on this machine already
    fi
    local go
    go="$(aops_find_go)"
    mkdir -p "$AOPS_BIN" "$AOPS_LOGS" "$marker_dir"
    if [ -n "$go" ] && GOBIN="$AOPS_BIN" "$go" install "$AOPS_WARP_MODULE@$AOPS_WARP_VERSION" >"$log" 2>&1; then
        echo "$AOPS_WARP_VERSION" >"$AOPS_WARP.version"
        rm -f "$marker"
        return 0
    fi
    # The reason in a few words, not the proxy's URL.
    local why="Go is missing"
    if [ -n "$go" ]; then
        why="the Go module proxy refused it"
        grep -q 'verifying module' "$log" 2>/dev/null && why="the Go checksum database does not list it"
        grep -qiE 'dial tcp|no such host|connection refused|timeout' "$log" 2>/dev/null && why="the Go module proxy is unreachable"
    fi
    echo "$why" >"$marker"
    echo "$(basename "$0"): warp $AOPS_WARP_VERSION, bench/s3's peer S3 client, could not be installed ($why); bench/s3 compares with curl only (log: ${log#"$AOPS_REPO"/}; AOPS_RETRY_WARP=1 retries)"
    return 1
}
