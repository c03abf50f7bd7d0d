#!/usr/bin/env bash
# test_build.sh -- the aarch64 build (make ARCH=arm64): an aarch64 executable; flags that a
# command-line CFLAGS cannot drop (without -D_GNU_SOURCE memmem and memrchr were implicitly
# declared, their pointers cut to 32 bits: the search's SIGSEGV of issue 28); and the arm64
# flags let the ARMv8 CRC32 instructions compile: a probe built with them computes CRC32C's
# published check value (CRC32C("123456789") = 0xE3069283, RFC 3720 B.4) under qemu-user.
source "$(dirname "$0")/../lib.sh"
QEMU=${AOPS_QEMU:-qemu-aarch64-static}
cd "$ROOT"
check_contains "file says aarch64" "ARM aarch64" "$(file build/arm64/harness)"
mk() { env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
line=$(mk -n -B ARCH=arm64 CFLAGS=-O1 build/arm64/rel/workloads/search_match.o | grep search_match.c)
for flag in -O1 -D_GNU_SOURCE -Werror -Wall -march=armv8-a+crc; do
    check_contains "make ARCH=arm64 CFLAGS=-O1 keeps $flag" " $flag " "$line "
done
check_contains "the native build keeps -D_GNU_SOURCE under CFLAGS=-O1 too" " -D_GNU_SOURCE " \
    "$(mk -n -B CFLAGS=-O1 build/rel/workloads/search_match.o | grep search_match.c) "

# The project's CFLAGS for arm64, less the two build-identity defines at their end
# (quoted strings, which print-CFLAGS cannot hand back to a shell intact).
CFL=$(mk -s ARCH=arm64 print-CFLAGS)
CFL=${CFL%% -DAOPS_GIT=*}
cat >"$TMP/crc.c" <<'C'
#include <arm_acle.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
int main(void) {
    const char *s = "123456789";
    uint32_t c = 0xFFFFFFFFu;
    size_t i = 0, n = strlen(s);
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        c = __crc32cd(c, w);
    }
    for (; i < n; i++)
        c = __crc32cb(c, (uint8_t)s[i]);
    printf("%08x %s\n", c ^ 0xFFFFFFFFu, getauxval(AT_HWCAP) & HWCAP_CRC32 ? "hwcap-crc32" : "no-hwcap");
    return 0;
}
C
# shellcheck disable=SC2086
if aarch64-linux-gnu-gcc $CFL -o "$TMP/crc" "$TMP/crc.c"; then
    pass "an ARMv8 CRC32C routine compiles with the arm64 CFLAGS"
    check_eq "CRC32C('123456789') with __crc32cd/__crc32cb under qemu" "e3069283 hwcap-crc32" "$("$QEMU" "$TMP/crc")"
else
    fail "an ARMv8 CRC32C routine does not compile with: $CFL"
fi
finish
