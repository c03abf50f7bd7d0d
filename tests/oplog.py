"""ops.log version 2 (common/oplog.h), read by the tests from outside the harness.

A 512-byte header, then 40-byte records (start, end, count, container, op, workload, flags,
sched), little-endian. The pacing tests work out every figure from these timestamps, so the
reader is theirs, not the harness's: it must not share code with common/oplog.c.
"""
import struct


def read(path):
    b = open(path, "rb").read()
    magic, ver, hs, rs, nwl, n = struct.unpack_from("<8sIIIIQ", b, 0)
    rel, rel_epoch = struct.unpack_from("<qq", b, 72)
    assert magic == b"AOPSLOG1" and ver == 2 and rs == 40, (magic, ver, rs)
    names = [struct.unpack_from("16s", b, 104 + 16 * w)[0].split(b"\0")[0].decode() for w in range(nwl)]
    recs = [struct.unpack_from("<qqQIHBBq", b, hs + i * rs) for i in range(n)]
    return rel, rel_epoch, names, recs


def mean(v):
    return sum(v) / len(v)
