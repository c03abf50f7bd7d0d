#!/usr/bin/env bash
# Builds the Kubernetes control plane and kubelet from source, for the single-node test
# cluster of tests/k8s/run-local-cluster.sh: kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet and kubectl at a pinned k8s.io/kubernetes release, with `go build`.
#
# There is no GitHub here, only the Go module proxy. The proxy serves k8s.io/kubernetes, but
# its module zip leaves out staging/ (each staging tree is its own module), while its go.mod
# replaces every k8s.io/* staging module with ./staging/src/k8s.io/<name>. So the source is
# copied to a writable tree and those replaces are pointed at the same staging modules as
# published on the proxy (k8s.io/<name> v0.<minor>.<patch>, cut from the same commit).
#
# Everything lives under .local/k8s/ (module cache, build cache, source, binaries), so a
# second run with the binaries present takes well under a second. About 17 minutes on 2 cores
# the first time. Usage: tests/k8s/build-kubernetes.sh  (AOPS_K8S_VERSION to override the pin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
K8S_VERSION="${AOPS_K8S_VERSION:-v1.34.4}"
K8S_DIR="$ROOT/.local/k8s"
BIN="$K8S_DIR/bin"
SRC="$K8S_DIR/src/kubernetes-$K8S_VERSION"
LOG="$K8S_DIR/build.log"
TARGETS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)

die() { echo "build-kubernetes: $*" >&2; exit 1; }
[[ "$K8S_VERSION" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "AOPS_K8S_VERSION must look like v1.34.4, not '$K8S_VERSION'"
MINOR="${BASH_REMATCH[1]}"
STAGING_VERSION="v0.$MINOR.${BASH_REMATCH[2]}"
command -v go >/dev/null 2>&1 || die "Go is missing (install Go >= 1.24)"

# Each binary carries a stamp with the version it was built from, so an interrupted build
# resumes where it stopped and a changed pin rebuilds everything.
built() { [ -x "$BIN/$1" ] && [ "$(cat "$BIN/$1.version" 2>/dev/null || true)" = "$K8S_VERSION" ]; }
have_all() {
    local t
    for t in "${TARGETS[@]}"; do
        built "$t" || return 1
    done
}
if have_all; then
    exit 0
fi

mkdir -p "$BIN" "$K8S_DIR/src"
export GOMODCACHE="$K8S_DIR/gomod" GOCACHE="$K8S_DIR/gocache" GOFLAGS="-modcacherw -mod=mod" GOWORK=off
export CGO_ENABLED=0 GOTOOLCHAIN=local

if [ ! -f "$SRC/.prepared" ]; then
    echo "build-kubernetes: fetching k8s.io/kubernetes@$K8S_VERSION from the Go module proxy (log: $LOG)"
    dir="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" 2>>"$LOG" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
    [ -n "$dir" ] && [ -d "$dir" ] || die "go mod download k8s.io/kubernetes@$K8S_VERSION failed; see $LOG"
    rm -rf "$SRC"
    cp -r "$dir" "$SRC"
    chmod -R u+w "$SRC"
    rm -f "$SRC/go.work" "$SRC/go.work.sum"
    (
        cd "$SRC"
        # Every ./staging replace becomes the published staging module; the sample-* modules
        # (not published on the proxy, and not needed by the binaries) are dropped.
        edits=()
        while read -r mod; do
            case "$mod" in
            k8s.io/sample-*) edits+=("-dropreplace=$mod" "-droprequire=$mod") ;;
            *) edits+=("-replace=$mod=$mod@$STAGING_VERSION") ;;
            esac
        done < <(sed -n 's#^\t\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' go.mod)
        [ ${#edits[@]} -gt 20 ] || die "found only ${#edits[@]} staging replaces in go.mod; the layout changed"
        go mod edit "${edits[@]}"
        go mod download >>"$LOG" 2>&1 || die "go mod download of the staging modules failed; see $LOG"
    )
    touch "$SRC/.prepared"
fi

# The version the binaries report (kubelet registers it on its Node; kubectl prints it).
LDFLAGS="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    LDFLAGS+=" -X '$pkg.gitVersion=$K8S_VERSION' -X '$pkg.gitMajor=1' -X '$pkg.gitMinor=$MINOR'"
    LDFLAGS+=" -X '$pkg.gitTreeState=clean' -X '$pkg.buildDate=1970-01-01T00:00:00Z'"
done

cd "$SRC"
start=$(date +%s)
for t in "${TARGETS[@]}"; do
    built "$t" && continue
    echo "build-kubernetes: go build ./cmd/$t (log: $LOG)"
    go build -trimpath -ldflags "$LDFLAGS" -o "$BIN/$t.tmp" "./cmd/$t" >>"$LOG" 2>&1 ||
        die "go build ./cmd/$t failed: $(tail -n 3 "$LOG" | tr '\n' ' ')"
    mv "$BIN/$t.tmp" "$BIN/$t"
    echo "$K8S_VERSION" >"$BIN/$t.version"
done
echo "build-kubernetes: built ${TARGETS[*]} $K8S_VERSION in $(( $(date +%s) - start )) s into $BIN"
