#!/usr/bin/env bash
# A single-node Kubernetes cluster on this machine, built from source and gone again when the
# script ends: runs a smoke Indexed Job, or one sharded run of a deploy/kubernetes overlay.
# Not part of `make test` (root only, minutes the first time); a manual check that the
# manifests really run.
#
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kubectl: k8s.io/kubernetes
#     at a pinned v1.34.x, built by tests/k8s/build-kubernetes.sh into .local/k8s/bin;
#   etcd and containerd (+ runc, CNI plugins): Debian's packages, private instances with their
#     own ports, sockets and directories (a Docker engine's containerd is left alone);
#   certificates: openssl, a fresh CA per run; authorization Node,RBAC;
#   images: no registry. The pod sandbox (pause) image is Kubernetes' own build/pause/linux/
#     pause.c compiled static here and packed as an OCI image; the aops-*:local images come
#     from the local Docker engine (`docker save | ctr import`); every pod uses
#     imagePullPolicy: Never;
#   network: the CNI bridge plugin on a private bridge (pods of the smoke Job); the harness
#     overlay (overlays/local) runs on the host network and loads the local stack.
#
# Usage: tests/k8s/run-local-cluster.sh [--smoke] [-k OVERLAY_DIR [run.sh options]] [--up]
#   --smoke      (default) an Indexed Job of 3 completions of the harness image
#   -k DIR       deploy/kubernetes/run.sh -k DIR (e.g. deploy/kubernetes/overlays/local) against
#                the local stack (scripts/stack up first; its ports and credentials are used)
#   --up         bring the cluster up, print how to reach it, wait for Ctrl-C, tear down
# Prints the build time (first run), the time to node Ready, the Job's time and pod logs.
# Teardown on every exit: every process it started (by PID), the mounts, the containerd and
# kubelet state, the CNI bridge, netns and iptables chains it made, the kubepods cgroups, and
# the kernel settings the kubelet changes. The built binaries stay in .local/k8s/bin.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
K8S="$ROOT/.local/k8s"
BIN="$K8S/bin"
C="$K8S/cluster"            # this run's state (wiped at teardown)
RUNDIR=/run/aops-k8s        # sockets: short paths
NODE=aops-k8s-node
NS_SMOKE=aops-smoke
BRIDGE=aopsk8s0
POD_CIDR=10.244.77.0/24
SERVICE_CIDR=10.96.77.0/24
ETCD_PORT=23790 ETCD_PEER_PORT=23800 API_PORT=16443
KUBELET_PORT=10350 KUBELET_HEALTHZ_PORT=10358 KCM_PORT=10357 SCHED_PORT=10359
# What the kubelet sets when protectKernelDefaults is false; saved first, restored at teardown.
SYSCTLS=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes)

MODE=smoke
OVERLAY=""
RUN_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) MODE=smoke; shift ;;
    --up) MODE=up; shift ;;
    -k) [ $# -ge 2 ] || { echo "usage: run-local-cluster.sh [--smoke] [-k OVERLAY_DIR [run.sh options]] [--up]" >&2; exit 2; }
        MODE=overlay; OVERLAY="$(cd "$2" 2>/dev/null && pwd)" || { echo "run-local-cluster.sh: no directory $2" >&2; exit 2; }
        shift 2; RUN_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: run-local-cluster.sh [--smoke] [-k OVERLAY_DIR [run.sh options]] [--up]" >&2; exit 2 ;;
    esac
done

die() { echo "run-local-cluster.sh: $*" >&2; exit 1; }
say() { echo "run-local-cluster.sh: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" -eq 0 ] || die "must run as root (kubelet, containerd, mounts)"
for c in etcd containerd containerd-shim-runc-v2 runc ctr openssl gcc ip iptables-save jq; do
    command -v "$c" >/dev/null 2>&1 ||
        die "$c is missing: apt-get install etcd-server containerd runc containernetworking-plugins openssl gcc libc6-dev iproute2 iptables jq"
done
[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ||
    die "CNI plugins missing: apt-get install containernetworking-plugins"
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || [ -n "$(gcc -print-file-name=libc.a | grep /)" ] || die "static libc missing (apt-get install libc6-dev)"
for p in $ETCD_PORT $ETCD_PEER_PORT $API_PORT $KUBELET_PORT $KUBELET_HEALTHZ_PORT $KCM_PORT $SCHED_PORT; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then die "port $p is in use (another cluster of this script running?)"; fi
done
[ ! -e "$RUNDIR" ] || die "$RUNDIR exists: another run-local-cluster.sh is running, or one was killed (remove it after checking)"
if [ "$MODE" != up ]; then
    command -v docker >/dev/null 2>&1 && docker image inspect aops-harness:local >/dev/null 2>&1 ||
        die "image aops-harness:local is not in the local Docker engine (scripts/docker images)"
fi

# ---- build (first time only) -------------------------------------------------------------------
t0="$(now)"
"$ROOT/tests/k8s/build-kubernetes.sh" || die "building Kubernetes failed"
[ "$(since "$t0" | cut -d. -f1)" -lt 5 ] || say "build took $(since "$t0") s"
KVER="$(cat "$BIN/kubelet.version")"

# ---- teardown, armed before anything starts ---------------------------------------------------
PIDS=()             # name:pid, in start order
PRE_CHAINS=""       # iptables chains before we started
PRE_NETNS=""
declare -A PRE_SYSCTL=()
PRE_KUBEPODS=""
PRE_DIRS=""         # host directories the runtime makes if missing: removed again when we made them
HOST_DIRS=(/var/run/netns /var/log/containers /var/lib/cni/networks /var/lib/cni/results /var/lib/cni)
export KUBECONFIG="$C/admin.kubeconfig"
KUBECTL=("$BIN/kubectl" --kubeconfig "$C/admin.kubeconfig")
CTR=(ctr --address "$RUNDIR/containerd/containerd.sock" -n k8s.io)

pid_of() { local e; for e in "${PIDS[@]}"; do [ "${e%%:*}" = "$1" ] && echo "${e#*:}"; done; }
stop_pid() { # stop_pid NAME: SIGTERM, up to 20 s, then SIGKILL
    local pid i; pid="$(pid_of "$1")"; [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}
teardown() {
    local rc=$? p m ch t
    trap - EXIT INT TERM
    set +e
    say "tearing down"
    # Pods first, while the kubelet still runs: it stops their sandboxes (CNI DEL included).
    if [ -n "$(pid_of kubelet)" ] && [ -n "$(pid_of kube-apiserver)" ]; then
        "${KUBECTL[@]}" delete namespace aops "$NS_SMOKE" --ignore-not-found --wait=false >/dev/null 2>&1
        "${KUBECTL[@]}" delete pods --all --all-namespaces --grace-period=5 --wait=true --timeout=60s >/dev/null 2>&1
    fi
    for p in kubelet kube-scheduler kube-controller-manager kube-apiserver; do stop_pid "$p"; done
    # Containers the kubelet left: kill their tasks so their shims exit, then containerd.
    if [ -n "$(pid_of containerd)" ]; then
        for t in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
        sleep 1
        for t in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks delete -f "$t" >/dev/null 2>&1; done
    fi
    stop_pid containerd
    # Shims of our containerd (their command line names our socket), by PID.
    for p in /proc/[0-9]*; do
        { tr '\0' ' ' <"$p/cmdline" | grep -q -- "-address $RUNDIR/containerd/containerd.sock"; } 2>/dev/null &&
            kill -9 "${p#/proc/}" 2>/dev/null
    done
    stop_pid etcd
    # Mounts below our directories, deepest first.
    for m in $(awk '{print $5}' /proc/self/mountinfo | grep -E "^($C|$RUNDIR)(/|$)" | sort -r); do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    done
    # Network namespaces, iptables chains and the bridge the CNI plugins made.
    for p in $(ls /var/run/netns 2>/dev/null); do
        grep -qx "$p" <<<"$PRE_NETNS" || { umount "/var/run/netns/$p" 2>/dev/null; rm -f "/var/run/netns/$p"; }
    done
    for t in nat filter mangle; do
        for ch in $(iptables-save -t "$t" 2>/dev/null | sed -n 's/^:\([^ ]*\) .*/\1/p'); do
            case "$ch" in CNI-*|KUBE-*) ;; *) continue ;; esac
            grep -qx "$t/$ch" <<<"$PRE_CHAINS" && continue
            # Drop the rules that jump to it, then the chain.
            iptables-save -t "$t" | grep -E -- "^-A [^ ]+ .*-j $ch( |$)" | sed 's/^-A/-D/' |
                while read -r rule; do eval "iptables -t $t $rule" 2>/dev/null; done
            iptables -t "$t" -F "$ch" 2>/dev/null; iptables -t "$t" -X "$ch" 2>/dev/null
        done
    done
    ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
    # The kubelet's cgroups (empty once its pods are gone), deepest first.
    for m in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/unified/kubepods; do
        [ -d "$m" ] || continue
        grep -qx "$m" <<<"$PRE_KUBEPODS" && continue
        find "$m" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    for p in "${!PRE_SYSCTL[@]}"; do echo "${PRE_SYSCTL[$p]}" >"/proc/sys/$p" 2>/dev/null; done
    # The kubelet's links to container logs, and all of this run's state.
    find /var/log/containers -maxdepth 1 -type l -lname "$C/*" -delete 2>/dev/null
    rm -rf "$C" "$RUNDIR" /var/lib/cni/networks/aops-k8s /var/lib/cni/results/aops-k8s-* 2>/dev/null
    for p in "${HOST_DIRS[@]}"; do
        grep -qx "$p" <<<"$PRE_DIRS" || rmdir "$p" 2>/dev/null
    done
    left=""
    for e in "${PIDS[@]}"; do kill -0 "${e#*:}" 2>/dev/null && left+=" ${e%%:*}(${e#*:})"; done
    [ -z "$left" ] || echo "run-local-cluster.sh: still running after teardown:$left" >&2
    say "down"
    exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT TERM

PRE_CHAINS="$(for t in nat filter mangle; do iptables-save -t "$t" 2>/dev/null | sed -n "s#^:\([^ ]*\) .*#$t/\1#p"; done)"
PRE_NETNS="$(ls /var/run/netns 2>/dev/null || true)"
PRE_KUBEPODS="$(ls -d /sys/fs/cgroup/*/kubepods 2>/dev/null || true)"
PRE_DIRS="$(for p in "${HOST_DIRS[@]}"; do [ -d "$p" ] && echo "$p"; done || true)"
for p in "${SYSCTLS[@]}"; do [ -r "/proc/sys/$p" ] && PRE_SYSCTL[$p]="$(cat "/proc/sys/$p")"; done

rm -rf "$C"
mkdir -p "$C"/{pki,etcd,containerd,cni,kubelet,logs,pod-logs} "$RUNDIR/containerd"
LOGS="$C/logs"
HOST_IP="$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')"
[ -n "$HOST_IP" ] || HOST_IP=127.0.0.1
start_bg() { # start_bg NAME COMMAND...: starts it with its log under $LOGS, records its PID
    local name="$1"; shift
    "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
    PIDS+=("$name:$!")
}
alive() { kill -0 "$(pid_of "$1")" 2>/dev/null || { tail -n 15 "$LOGS/$1.log" >&2; die "$1 exited (log above: $LOGS/$1.log)"; }; }

# ---- certificates -------------------------------------------------------------------------------
P="$C/pki"
(
    cd "$P"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=aops-k8s-ca" 2>/dev/null
    cert() { # cert NAME SUBJECT [SANs]
        local ext=""
        openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
        if [ -n "${3:-}" ]; then ext="subjectAltName=$3"; else ext="extendedKeyUsage=clientAuth"; fi
        openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 \
            -extfile <(echo "$ext") 2>/dev/null
    }
    cert apiserver "/CN=kube-apiserver" \
        "IP:127.0.0.1,IP:$HOST_IP,IP:${SERVICE_CIDR%.0/24}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    cert admin "/O=system:masters/CN=aops-admin"
    cert controller-manager "/CN=system:kube-controller-manager"
    cert scheduler "/CN=system:kube-scheduler"
    cert kubelet "/O=system:nodes/CN=system:node:$NODE"
    cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
) || die "openssl failed to make the certificates"
kubeconfig() { # kubeconfig NAME CERT
    cat >"$C/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: aops
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$P/ca.crt"}
users:
- name: $1
  user: {client-certificate: "$P/$2.crt", client-key: "$P/$2.key"}
contexts:
- name: aops
  context: {cluster: aops, user: $1}
current-context: aops
EOF
}
kubeconfig admin admin
kubeconfig controller-manager controller-manager
kubeconfig scheduler scheduler
kubeconfig kubelet kubelet

# ---- pause image: Kubernetes' own pause.c, static, as a one-layer OCI image --------------------
PAUSE_REF="aops.local/pause:local"
oci_image() { # oci_image REF ROOTFS_DIR ENTRYPOINT OUT.tar
    local ref="$1" rootfs="$2" ep="$3" out="$4" d
    d="$(mktemp -d)"
    mkdir -p "$d/blobs/sha256"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$d/layer.tar" .
    local ld ls cd cs md ms
    ld="$(sha256sum "$d/layer.tar" | cut -d' ' -f1)"; ls="$(stat -c %s "$d/layer.tar")"
    mv "$d/layer.tar" "$d/blobs/sha256/$ld"
    printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["%s"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
        "$ep" "$ld" >"$d/config.json"
    cd="$(sha256sum "$d/config.json" | cut -d' ' -f1)"; cs="$(stat -c %s "$d/config.json")"
    mv "$d/config.json" "$d/blobs/sha256/$cd"
    printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
        "$cd" "$cs" "$ld" "$ls" >"$d/manifest.json"
    md="$(sha256sum "$d/manifest.json" | cut -d' ' -f1)"; ms="$(stat -c %s "$d/manifest.json")"
    mv "$d/manifest.json" "$d/blobs/sha256/$md"
    printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
        "$md" "$ms" "$ref" "${ref##*:}" >"$d/index.json"
    echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$d" -cf "$out" oci-layout index.json blobs
    rm -rf "$d"
}
IMAGES="$K8S/images"
mkdir -p "$IMAGES"
PAUSE_SRC="$K8S/src/kubernetes-$KVER/build/pause/linux/pause.c"
if [ ! -s "$IMAGES/pause.tar" ] || [ "$PAUSE_SRC" -nt "$IMAGES/pause.tar" ]; then
    rm -rf "$IMAGES/pause-rootfs"; mkdir -p "$IMAGES/pause-rootfs"
    gcc -Os -Wall -Werror -static -DVERSION="$KVER-aops" -o "$IMAGES/pause-rootfs/pause" "$PAUSE_SRC" ||
        die "cannot build pause from $PAUSE_SRC"
    strip "$IMAGES/pause-rootfs/pause"
    oci_image "$PAUSE_REF" "$IMAGES/pause-rootfs" /pause "$IMAGES/pause.tar"
fi

# ---- etcd ---------------------------------------------------------------------------------------
start_bg etcd etcd --name aops --data-dir "$C/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "aops=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls ""

# ---- containerd ---------------------------------------------------------------------------------
RESTRICT_OOM=false
grep -q '^CapEff:.*' /proc/self/status &&
    (( (0x$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status) >> 24 & 1) == 0 )) && RESTRICT_OOM=true
cat >"$C/cni/10-aops-k8s.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "aops-k8s",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
cat >"$C/containerd/config.toml" <<EOF
version = 2
root = "$C/containerd/root"
state = "$RUNDIR/containerd/state"
[grpc]
  address = "$RUNDIR/containerd/containerd.sock"
[ttrpc]
  address = "$RUNDIR/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$C/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_REF"
  # Root here lacks CAP_SYS_RESOURCE, so no process may lower its oom_score_adj below 0, and
  # the sandbox's -998 made runc fail ("failed to update /proc/self/oom_score_adj:
  # Permission denied" / "can't get final child's PID from pipe: EOF"). This clamps every
  # container's score to containerd's own (0) instead.
  restrict_oom_score_adj = $RESTRICT_OOM
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      Root = "$RUNDIR/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$C/cni"
EOF
start_bg containerd containerd --config "$C/containerd/config.toml"
for ((i = 0; i < 100; i++)); do "${CTR[@]}" version >/dev/null 2>&1 && break; alive containerd; sleep 0.1; done
"${CTR[@]}" version >/dev/null 2>&1 || die "containerd did not answer on $RUNDIR/containerd/containerd.sock"
"${CTR[@]}" images import --all-platforms "$IMAGES/pause.tar" >/dev/null || die "cannot import the pause image"
IMPORTED=()
ti="$(now)"
# Only what the pods here use: overlays/local and the smoke Job run the harness image only
# (30-45 s for its 800 MB here; AOPS_K8S_IMAGES to import others, e.g. for overlays/cluster).
for img in ${AOPS_K8S_IMAGES:-aops-harness:local}; do
    if ! docker image inspect "$img" >/dev/null 2>&1; then
        [ "$MODE" = up ] && continue
        die "image $img is not in the local Docker engine"
    fi
    docker save "$img" | "${CTR[@]}" images import - >/dev/null || die "cannot import $img into containerd"
    IMPORTED+=("$img")
done
[ ${#IMPORTED[@]} -eq 0 ] || say "imported ${IMPORTED[*]} into containerd in $(since "$ti") s"

# ---- control plane ------------------------------------------------------------------------------
tcp=("$(now)")
start_bg kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$API_PORT" --advertise-address "$HOST_IP" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --client-ca-file "$P/ca.crt" --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
    --kubelet-client-certificate "$P/apiserver-kubelet-client.crt" --kubelet-client-key "$P/apiserver-kubelet-client.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
    --authorization-mode Node,RBAC --allow-privileged=true --kubelet-preferred-address-types InternalIP \
    --enable-admission-plugins NodeRestriction --profiling=false
for ((i = 0; i < 600; i++)); do
    "${KUBECTL[@]}" get --raw /readyz >/dev/null 2>&1 && break
    alive kube-apiserver; sleep 0.1
done
"${KUBECTL[@]}" get --raw /readyz >/dev/null 2>&1 || die "kube-apiserver not ready after 60 s (log: $LOGS/kube-apiserver.log)"
say "kube-apiserver ready in $(since "${tcp[0]}") s"
start_bg kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$C/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$C/controller-manager.kubeconfig" --authorization-kubeconfig "$C/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --leader-elect=false \
    --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
    --use-service-account-credentials --service-cluster-ip-range "$SERVICE_CIDR" --profiling=false
start_bg kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig "$C/scheduler.kubeconfig" \
    --authentication-kubeconfig "$C/scheduler.kubeconfig" --authorization-kubeconfig "$C/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --leader-elect=false --profiling=false

# ---- kubelet ------------------------------------------------------------------------------------
cat >"$C/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$P/ca.crt"}
authorization: {mode: Webhook}
# The apiserver reaches the kubelet (logs, exec) at the node's InternalIP.
address: $HOST_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
containerRuntimeEndpoint: unix://$RUNDIR/containerd/containerd.sock
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
podLogsDir: "$C/pod-logs"
resolvConf: /etc/resolv.conf
podCIDR: "$POD_CIDR"
registerNode: true
serializeImagePulls: false
# No eviction thresholds: a shared build machine's disk or memory must not evict the test's
# pods halfway through a run.
evictionHard: {}
imageGCHighThresholdPercent: 100
EOF
tk="$(now)"
start_bg kubelet "$BIN/kubelet" \
    --config "$C/kubelet/config.yaml" --kubeconfig "$C/kubelet.kubeconfig" \
    --root-dir "$C/kubelet" --cert-dir "$C/kubelet/pki" --hostname-override "$NODE" --node-ip "$HOST_IP"
for ((i = 0; i < 1200; i++)); do
    st="$("${KUBECTL[@]}" get node "$NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || true)"
    [ "$st" = True ] && break
    alive kubelet; alive kube-controller-manager; alive kube-scheduler; alive containerd; alive etcd
    sleep 0.1
done
[ "$st" = True ] || {
    "${KUBECTL[@]}" get node "$NODE" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.message}{"\n"}{end}' >&2 2>/dev/null
    die "node $NODE not Ready after 120 s (logs: $LOGS)"
}
READY_S="$(since "$tk")"
say "node $NODE Ready $READY_S s after the kubelet started ($(since "${tcp[0]}") s after the apiserver); Kubernetes $KVER"
# The default ServiceAccount must exist before a pod may be created in a namespace.
wait_sa() {
    for ((i = 0; i < 300; i++)); do "${KUBECTL[@]}" -n "$1" get serviceaccount default >/dev/null 2>&1 && return 0; sleep 0.1; done
    die "no default ServiceAccount in namespace $1 after 30 s"
}

case "$MODE" in
up)
    say "up: export KUBECONFIG=$C/admin.kubeconfig; $BIN/kubectl get nodes   (Ctrl-C tears it down)"
    while alive kubelet; do sleep 5; done
    ;;
smoke)
    "${KUBECTL[@]}" create namespace "$NS_SMOKE" >/dev/null
    wait_sa "$NS_SMOKE"
    cat >"$C/smoke.yaml" <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke
  namespace: $NS_SMOKE
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: harness
          image: aops-harness:local
          imagePullPolicy: Never
          workingDir: /opt/aops
          # The test-only sleep workload needs neither MinIO nor MariaDB; its run is invalid by
          # design (exit 1), so 0 and 1 both count as the harness having run.
          command:
            - /bin/sh
            - -c
            - echo "index \$JOB_COMPLETION_INDEX on \$(hostname -i)"; ./harness --containers 2 --workloads sleep --no-cgroups --quiet --out /tmp/r; rc=\$?; echo "harness exit \$rc"; [ \$rc -le 1 ]
EOF
    tj="$(now)"
    "${KUBECTL[@]}" apply -f "$C/smoke.yaml" >/dev/null
    for ((i = 0; i < 1200; i++)); do
        c="$("${KUBECTL[@]}" -n "$NS_SMOKE" get job smoke -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null || true)"
        case " $c " in *" Complete "*|*" Failed "*) break ;; esac
        alive kubelet; sleep 0.1
    done
    JOB_S="$(since "$tj")"
    for i in 0 1 2; do
        pod="$("${KUBECTL[@]}" -n "$NS_SMOKE" get pods -l "batch.kubernetes.io/job-completion-index=$i" -o name | head -n1)"
        echo "--- $pod"
        "${KUBECTL[@]}" -n "$NS_SMOKE" logs "$pod" 2>&1 || true
    done
    "${KUBECTL[@]}" -n "$NS_SMOKE" get pods -o wide
    case " $c " in
    *" Complete "*) say "smoke Indexed Job (3 completions): Complete in $JOB_S s (apply to Complete)" ;;
    *)
        "${KUBECTL[@]}" -n "$NS_SMOKE" describe job smoke | tail -n 15 >&2
        "${KUBECTL[@]}" -n "$NS_SMOKE" get events --sort-by=.lastTimestamp | tail -n 15 >&2
        die "smoke Job did not complete (conditions: ${c:-none} after $JOB_S s)"
        ;;
    esac
    ;;
overlay)
    # The harness pods load the local stack on 127.0.0.1: its ports and credentials.
    CREDS="${AOPS_CREDENTIALS:-${AOPS_STACK_DIR:-$ROOT/.local/stack}/credentials}"
    [ -r "$CREDS" ] || die "no stack credentials at $CREDS: start the stack (scripts/stack up) or set AOPS_STACK_DIR"
    kv() { sed -n "s/^$1=//p" "$CREDS" | head -n1; }
    mport="$(kv S3_ENDPOINT | sed -n 's#.*:\([0-9]*\)/*$#\1#p')"
    dport="$(kv MARIADB_PORT)"
    (exec 3<>"/dev/tcp/127.0.0.1/$mport") 2>/dev/null || die "MinIO is not listening on 127.0.0.1:$mport (scripts/stack up)"
    (exec 3<>"/dev/tcp/127.0.0.1/$dport") 2>/dev/null || die "MariaDB is not listening on 127.0.0.1:$dport (scripts/stack up)"
    # An overlay on top of the given one, with the stack's endpoints.
    mkdir -p "$C/overlay"
    cat >"$C/overlay/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to="$C/overlay" "$OVERLAY")
patches:
  - patch: |-
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: aops-config
        namespace: aops
      data:
        S3_ENDPOINT: http://127.0.0.1:$mport
        MARIADB_HOST: 127.0.0.1
        MARIADB_PORT: "$dport"
        MARIADB_USER: "$(kv MARIADB_USER)"
        MARIADB_DATABASE: "$(kv MARIADB_DATABASE)"
EOF
    "${KUBECTL[@]}" create namespace aops --save-config >/dev/null
    wait_sa aops
    # The Secret from the credentials file, through a 0600 file: never on a command line.
    (umask 077; for key in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY MARIADB_PASSWORD; do echo "$key=$(kv $key)"; done >"$C/creds.env")
    "${KUBECTL[@]}" -n aops create secret generic aops-credentials --from-env-file="$C/creds.env" >/dev/null
    rm -f "$C/creds.env"
    tj="$(now)"
    rc=0
    KUBECTL="$BIN/kubectl --kubeconfig $C/admin.kubeconfig" "$ROOT/deploy/kubernetes/run.sh" -k "$C/overlay" "${RUN_ARGS[@]}" || rc=$?
    say "run.sh on $OVERLAY: exit $rc after $(since "$tj") s"
    "${KUBECTL[@]}" -n aops get pods -o wide || true
    exit "$rc"
    ;;
esac
