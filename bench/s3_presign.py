#!/usr/bin/env python3
"""bench/s3_presign.py BUCKET EXPIRES < keys -- one SigV4 query-string presigned
path ("/bucket/key?X-Amz-...") per key read from stdin, for bench/s3's wrk peer.

AWS Signature Version 4, region us-east-1, service s3, SignedHeaders=host and
UNSIGNED-PAYLOAD, as in the S3 docs' "Authenticating Requests: Using Query
Parameters". Credentials and endpoint come from the environment (bench/s3
sources the stack's credentials file): AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, S3_ENDPOINT."""
import datetime
import hashlib
import hmac
import os
import sys
from urllib.parse import quote, urlsplit

REGION, SERVICE = "us-east-1", "s3"


def hmac256(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def presign(host, key_id, secret, path, expires, now):
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    scope = f"{day}/{REGION}/{SERVICE}/aws4_request"
    query = "&".join(f"{k}={quote(v, safe='-_.~')}" for k, v in sorted({
        "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
        "X-Amz-Credential": f"{key_id}/{scope}",
        "X-Amz-Date": amz_date,
        "X-Amz-Expires": str(expires),
        "X-Amz-SignedHeaders": "host",
    }.items()))
    canonical = f"GET\n{path}\n{query}\nhost:{host}\n\nhost\nUNSIGNED-PAYLOAD"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    k = b"AWS4" + secret.encode()
    for part in (day, REGION, SERVICE, "aws4_request"):
        k = hmac256(k, part)
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"{path}?{query}&X-Amz-Signature={signature}"


def main():
    bucket, expires = sys.argv[1], int(sys.argv[2])
    host = urlsplit(os.environ.get("S3_ENDPOINT", "http://127.0.0.1:9000")).netloc
    key_id, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
    now = datetime.datetime.now(datetime.timezone.utc)
    for key in sys.stdin.read().split():
        path = "/" + quote(bucket, safe="-_.~") + "/" + quote(key, safe="/-_.~")
        print(presign(host, key_id, secret, path, expires, now))


if __name__ == "__main__":
    main()
