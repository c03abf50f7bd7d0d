#!/usr/bin/env bash
# CRC-32C's AArch64 path (the CRC instructions, __crc32cd, chosen by
# HWCAP_CRC32): the unit test cross-built with aarch64-linux-gnu-gcc and run
# under qemu-aarch64-static, so both hardware paths are checked against the
# RFC 3720 vectors and the bit-at-a-time reference on this x86 machine. Linked -static: no
# loader and libc to pick under the emulator (a -L /usr/aarch64-linux-gnu gave the cross
# toolchain's ld.so with the multiarch libc6:arm64, two glibc builds that do not agree on
# ld.so's internals; tests/arm64/run says more), so it runs the same wherever qemu-user is.
source "$(dirname "$0")/../lib.sh"
CC=aarch64-linux-gnu-gcc
QEMU=qemu-aarch64-static
if ! command -v $CC >/dev/null || ! command -v $QEMU >/dev/null; then
    # The Arm build's packages (crossbuild-essential-arm64, qemu-user-static) are
    # not part of make setup yet: say so rather than fail a machine without them.
    echo "skipped: $CC or $QEMU is not installed; the AArch64 path is not checked here"
    finish
fi
$CC -O2 -std=gnu11 -Wall -Wextra -Werror -pthread -static -o "$TMP/test_crc32c" \
    "$ROOT/tests/unit/test_crc32c.c" "$ROOT/common/crc32c.c" 2>"$TMP/cc.log"
st=$?; check_eq "cross-build for aarch64 ($(head -3 "$TMP/cc.log"))" 0 $st
check_contains "statically linked" "statically linked" "$(file "$TMP/test_crc32c")"
out=$(env -u QEMU_LD_PREFIX $QEMU "$TMP/test_crc32c" 2>&1)
rc=$?
echo "$out"
check_eq "the unit test passes on AArch64" 0 $rc
check_contains "the ARMv8 CRC path ran" "crc32c() uses armv8-crc" "$out"
finish
