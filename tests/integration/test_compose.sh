#!/usr/bin/env bash
# Checks docker-compose.yml and its Dockerfiles without a Docker engine: Debian's
# docker-compose must accept the file (`docker-compose config`), and the resolved file must
# have the four local images built from the repository's Dockerfiles (all FROM debian:bookworm,
# MinIO at the version scripts/lib.sh pins), healthchecks, healthy-dependency ordering, the
# narrow capabilities instead of privileged, the results volume and credentials from the
# environment. tests/integration/test_compose_up.sh brings the file up for real.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
cd "$ROOT" || exit 1

if ! command -v docker-compose >/dev/null 2>&1; then
    echo "FAIL: docker-compose is not installed (make setup installs it)" >&2
    exit 1
fi

# Run from a scratch dir holding copies, so a developer's own .env cannot change the result.
mkdir -p "$TMP/proj/containers"
cp docker-compose.yml "$TMP/proj/"
cp -r containers/Dockerfile containers/minio containers/mariadb containers/prometheus "$TMP/proj/containers/"
if docker-compose -f "$TMP/proj/docker-compose.yml" --project-directory "$TMP/proj" config >"$TMP/config.yml" 2>"$TMP/config.err"; then
    pass "docker-compose config accepts docker-compose.yml"
else
    fail "docker-compose config rejected the file: $(cat "$TMP/config.err")"
    finish
fi

# Facts about the resolved file, one "key=value" a line.
python3 - "$TMP/config.yml" >"$TMP/facts" <<'PY' || fail "cannot read the resolved compose file"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
s = c.get("services", {})
print("services=" + ",".join(sorted(s)))
for name, svc in sorted(s.items()):
    print(f"{name}.image={svc.get('image', '')}")
    hc = svc.get("healthcheck") or {}
    print(f"{name}.healthcheck={' '.join(map(str, hc.get('test', [])))}")
    dep = svc.get("depends_on") or {}
    if isinstance(dep, dict):
        for d, v in sorted(dep.items()):
            print(f"{name}.depends_on.{d}={(v or {}).get('condition', '')}")
    b = svc.get("build") or {}
    if b:
        print(f"{name}.build.dockerfile={b.get('dockerfile', '')}")
        print(f"{name}.build.args={','.join(sorted(b.get('args') or {}))}")
    print(f"{name}.privileged={svc.get('privileged', False)}")
    print(f"{name}.cap_add={','.join(svc.get('cap_add') or [])}")
    print(f"{name}.security_opt={','.join(svc.get('security_opt') or [])}")
    for v in svc.get("volumes", []) or []:
        tgt = v.get("target") if isinstance(v, dict) else str(v).split(":")[1]
        print(f"{name}.volume={tgt}")
    env = svc.get("environment") or {}
    for k in sorted(env):
        print(f"{name}.env.{k}=set")
PY
facts="$(cat "$TMP/facts")"
fact() { sed -n "s/^$1=//p" "$TMP/facts" | head -n1; }

check_eq "services are harness, mariadb, minio, prometheus" "harness,mariadb,minio,prometheus" "$(fact services)"
check_eq "minio image" aops-minio:local "$(fact minio.image)"
check_eq "mariadb image" aops-mariadb:local "$(fact mariadb.image)"
check_eq "harness image" aops-harness:local "$(fact harness.image)"
check_eq "minio is built from containers/minio/Dockerfile" containers/minio/Dockerfile "$(fact minio.build.dockerfile)"
check_eq "mariadb is built from containers/mariadb/Dockerfile" containers/mariadb/Dockerfile "$(fact mariadb.build.dockerfile)"
check_eq "harness is built from containers/Dockerfile" containers/Dockerfile "$(fact harness.build.dockerfile)"
check_eq "prometheus image" aops-prometheus:local "$(fact prometheus.image)"
check_eq "prometheus is built from containers/prometheus/Dockerfile" containers/prometheus/Dockerfile "$(fact prometheus.build.dockerfile)"
check_contains "minio's build gets GOPROXY and GOFLAGS" "GOFLAGS,GOPROXY" "$(GOPROXY=x GOFLAGS=y docker-compose -f "$TMP/proj/docker-compose.yml" --project-directory "$TMP/proj" config | python3 -c 'import sys, yaml; print(",".join(sorted(yaml.safe_load(sys.stdin)["services"]["minio"]["build"]["args"])))')"
check_contains "minio healthcheck uses healthcheck.sh" "healthcheck.sh" "$(fact minio.healthcheck)"
check_contains "mariadb healthcheck uses healthcheck.sh" "healthcheck.sh" "$(fact mariadb.healthcheck)"
check_eq "harness waits for a healthy minio" service_healthy "$(fact harness.depends_on.minio)"
check_eq "harness waits for a healthy mariadb" service_healthy "$(fact harness.depends_on.mariadb)"
check_eq "no service is privileged" "False False False False" "$(fact harness.privileged) $(fact mariadb.privileged) $(fact minio.privileged) $(fact prometheus.privileged)"
check_eq "harness: cap_add is SYS_ADMIN only" SYS_ADMIN "$(fact harness.cap_add)"
check_eq "minio, mariadb and prometheus: no added capability" "" "$(fact minio.cap_add)$(fact mariadb.cap_add)$(fact prometheus.cap_add)"
check_contains "results volume for the harness" "harness.volume=/opt/aops/results" "$facts"
check_contains "minio data volume" "minio.volume=/data" "$facts"
check_contains "mariadb data volume" "mariadb.volume=/var/lib/mysql" "$facts"
for k in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY S3_ENDPOINT MARIADB_HOST MARIADB_PASSWORD; do
    check_contains "harness gets $k from the environment" "harness.env.$k=set" "$facts"
done

# Prometheus scrapes the port the harness listens on (AOPS_METRICS_LISTEN), at the harness
# service's name; its config is one promtool accepts.
listen="$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["services"]["harness"]["environment"]["AOPS_METRICS_LISTEN"])' "$TMP/config.yml")"
target="$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["scrape_configs"][0]["static_configs"][0]["targets"][0])' containers/prometheus/prometheus.yml)"
check_eq "prometheus scrapes the harness at --metrics-listen's port ($listen)" "harness:${listen##*:}" "$target"
# ... on every address of the container: ":PORT" would be its 127.0.0.1, out of Prometheus' reach.
check_eq "the harness listens on the container's every address" "0.0.0.0" "${listen%:*}"
if command -v promtool >/dev/null 2>&1; then
    check "promtool check config accepts containers/prometheus/prometheus.yml" promtool check config containers/prometheus/prometheus.yml
else
    fail "promtool is not installed (make setup installs prometheus)"
fi

# Credentials from the environment replace the defaults.
out="$(AWS_SECRET_ACCESS_KEY=from-env-123 MARIADB_PASSWORD=db-from-env-456 \
    docker-compose -f "$TMP/proj/docker-compose.yml" --project-directory "$TMP/proj" config 2>&1)"
check_contains "AWS_SECRET_ACCESS_KEY from the environment" "from-env-123" "$out"
check_contains "MARIADB_PASSWORD from the environment" "db-from-env-456" "$out"
check "no image uses :latest" test -z "$(grep -E 'image: .*:latest' "$TMP/config.yml")"

# The Dockerfiles: every stage FROM debian:bookworm (or an earlier stage), the harness built
# with make, MinIO at the pinned version, and their apt packages exist in bookworm.
for f in containers/Dockerfile containers/minio/Dockerfile containers/mariadb/Dockerfile containers/prometheus/Dockerfile; do
    bad="$(awk 'toupper($1) == "FROM" && $2 != "debian:bookworm" { print $2 }' "$f")"
    check_eq "$f: every FROM is debian:bookworm" "" "$bad"
done
df="$(cat containers/Dockerfile)"
check_contains "Dockerfile builds the harness with make" "RUN make harness" "$df"
. scripts/lib.sh
pkgs_prom="$(sed -n '/apt-get install/,/^$/p' containers/prometheus/Dockerfile | grep -c 'install -y --no-install-recommends prometheus')"
check_eq "prometheus Dockerfile installs Debian's prometheus package" 1 "$pkgs_prom"
check_eq "minio Dockerfile builds scripts/lib.sh's MinIO version" \
    "$AOPS_MINIO_MODULE@$AOPS_MINIO_VERSION" \
    "$(sed -n 's/^ARG MINIO_MODULE=//p' containers/minio/Dockerfile)@$(sed -n 's/^ARG MINIO_VERSION=//p' containers/minio/Dockerfile)"
check_contains "minio Dockerfile uses go install" 'go install "$MINIO_MODULE@$MINIO_VERSION"' "$(cat containers/minio/Dockerfile)"
for f in containers/Dockerfile containers/minio/Dockerfile; do
    check_contains "$f trusts containers/certs/" "COPY containers/certs/ /usr/local/share/ca-certificates/" "$(cat "$f")"
done
check "containers/certs/*.crt is git-ignored" git check-ignore -q containers/certs/host-example.crt
pkgs="$(sed -n '/apt-get install/,/^$/p' containers/Dockerfile | tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE '^(apt-get|install|mariadb-client)$' ; echo mariadb-client; echo mariadb-server)"
if . /etc/os-release && [ "${VERSION_CODENAME:-}" = bookworm ]; then
    for p in $pkgs; do
        cand="$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')"
        if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then pass "Dockerfile package $p exists in bookworm"; else fail "Dockerfile package $p not found in bookworm"; fi
    done
fi
if [ -f .dockerignore ]; then
    check_contains ".dockerignore keeps .local out of the build context" ".local" "$(cat .dockerignore)"
    check "containers/certs is in the build context" test -z "$(grep -xE 'containers(/certs)?/?' .dockerignore)"
fi

finish
