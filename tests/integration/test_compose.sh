#!/usr/bin/env bash
# Checks docker-compose.yml and containers/Dockerfile without a Docker engine: Debian's
# docker-compose must accept the file (`docker-compose config`), and the resolved file must
# have the pinned images, healthchecks, healthy-dependency ordering, the build from
# containers/Dockerfile, the results volume and credentials from the environment.
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
cp containers/Dockerfile "$TMP/proj/containers/"
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
    for v in svc.get("volumes", []) or []:
        tgt = v.get("target") if isinstance(v, dict) else str(v).split(":")[1]
        print(f"{name}.volume={tgt}")
    env = svc.get("environment") or {}
    for k in sorted(env):
        print(f"{name}.env.{k}=set")
PY
facts="$(cat "$TMP/facts")"
fact() { sed -n "s/^$1=//p" "$TMP/facts" | head -n1; }

check_eq "services are harness, mariadb, minio" "harness,mariadb,minio" "$(fact services)"
mi="$(fact minio.image)"
check "minio image is pinned to a RELEASE tag ($mi)" test "${mi#minio/minio:RELEASE.}" != "$mi"
check_eq "mariadb image" "mariadb:10.11" "$(fact mariadb.image)"
check "minio has a healthcheck" test -n "$(fact minio.healthcheck)"
check_contains "mariadb healthcheck uses healthcheck.sh" "healthcheck.sh" "$(fact mariadb.healthcheck)"
check_eq "harness waits for a healthy minio" service_healthy "$(fact harness.depends_on.minio)"
check_eq "harness waits for a healthy mariadb" service_healthy "$(fact harness.depends_on.mariadb)"
check_eq "harness is built from containers/Dockerfile" containers/Dockerfile "$(fact harness.build.dockerfile)"
check_contains "results volume for the harness" "harness.volume=/opt/aops/results" "$facts"
check_contains "minio data volume" "minio.volume=/data" "$facts"
check_contains "mariadb data volume" "mariadb.volume=/var/lib/mysql" "$facts"
for k in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY S3_ENDPOINT MARIADB_HOST MARIADB_PASSWORD; do
    check_contains "harness gets $k from the environment" "harness.env.$k=set" "$facts"
done

# Credentials from the environment replace the defaults.
out="$(AWS_SECRET_ACCESS_KEY=from-env-123 MARIADB_PASSWORD=db-from-env-456 \
    docker-compose -f "$TMP/proj/docker-compose.yml" --project-directory "$TMP/proj" config 2>&1)"
check_contains "AWS_SECRET_ACCESS_KEY from the environment" "from-env-123" "$out"
check_contains "MARIADB_PASSWORD from the environment" "db-from-env-456" "$out"
check "no image uses :latest" test -z "$(grep -E 'image: .*:latest' "$TMP/config.yml")"

# The Dockerfile: Debian bookworm, builds with make, and its apt packages exist in bookworm.
df="$(cat containers/Dockerfile)"
check_contains "Dockerfile is based on debian:bookworm" "FROM debian:bookworm" "$df"
check_contains "Dockerfile builds the harness with make" "RUN make harness" "$df"
pkgs="$(sed -n '/apt-get install/,/^$/p' containers/Dockerfile | tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE '^(apt-get|install|mariadb-client)$' ; echo mariadb-client)"
if . /etc/os-release && [ "${VERSION_CODENAME:-}" = bookworm ]; then
    for p in $pkgs; do
        cand="$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')"
        if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then pass "Dockerfile package $p exists in bookworm"; else fail "Dockerfile package $p not found in bookworm"; fi
    done
fi
if [ -f .dockerignore ]; then
    check_contains ".dockerignore keeps .local out of the build context" ".local" "$(cat .dockerignore)"
fi

finish
