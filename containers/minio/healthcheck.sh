#!/bin/bash
# containers/minio/healthcheck.sh -- MinIO is ready when /minio/health/cluster answers 200: the
# erasure set has write quorum (ready, like live, answers while drives are still missing).
# Bash's /dev/tcp speaks the HTTP, so the image needs no curl.
set -euo pipefail
exec 3<>/dev/tcp/127.0.0.1/9000
printf 'GET /minio/health/cluster HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
read -r -t 4 _ status _ <&3
[ "$status" = 200 ]
