/* test_crc32c.c -- CRC-32C: every compiled path against the published
 * vectors (RFC 3720 B.4, and "123456789" -> 0xE3069283), against a
 * bit-at-a-time reference of the definition on random buffers of every
 * length class and alignment (the folding path's 512-byte minimum and
 * 256-byte rounds included), split at random points (the streaming use),
 * and S3's base64 form. Built for x86-64 here; tests/integration/
 * test_crc32c_arm.sh builds it for AArch64 and runs it under qemu. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/crc32c.h"
#include "unit.h"

/* The definition: reflected polynomial 0x82F63B78, initial and final xor ~0. */
static uint32_t reference(const unsigned char *p, size_t n) {
    uint32_t c = 0xffffffffu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return ~c;
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void vectors(const char *name, crc_fn f) {
    unsigned char b[48];
    CHECKF(f(0, "123456789", 9) == 0xE3069283u, "%s: 123456789 -> %08x", name,
           f(0, "123456789", 9));
    memset(b, 0, 32);
    CHECKF(f(0, b, 32) == 0x8A9136AAu, "%s: 32 zero bytes", name);
    memset(b, 0xff, 32);
    CHECKF(f(0, b, 32) == 0x62A8AB43u, "%s: 32 0xff bytes", name);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)i;
    CHECKF(f(0, b, 32) == 0x46DD794Eu, "%s: 0..31", name);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)(31 - i);
    CHECKF(f(0, b, 32) == 0x113FDB5Cu, "%s: 31..0", name);
    /* RFC 3720 B.4: an iSCSI SCSI Read (10) command PDU, its CRC 56 3a 96 d9 on the wire. */
    static const unsigned char pdu[48] = {0x01, 0xc0, 0, 0,    0,    0, 0, 0,    0,    0, 0,    0,
                                          0,    0,    0, 0,    0x14, 0, 0, 0,    0,    0, 0x04, 0,
                                          0,    0,    0, 0x14, 0,    0, 0, 0x18, 0x28, 0, 0,    0,
                                          0,    0,    0, 0,    0x02, 0, 0, 0,    0,    0, 0,    0};
    CHECKF(f(0, pdu, 48) == 0xD9963A56u, "%s: iSCSI read PDU", name);
    CHECK(f(0, "", 0) == 0);
}

static void random_buffers(const char *name, crc_fn f) {
    size_t max = 3 * 8192 * 2 + 999; /* past the three 8 KiB streams twice */
    unsigned char *buf = malloc(max + 16);
    if (!buf)
        return;
    srand(25);
    for (size_t i = 0; i < max + 16; i++)
        buf[i] = (unsigned char)rand();
    /* 511-513 and 1279-1281 straddle the folding path's 512-byte minimum and
     * its 256-byte rounds. */
    static const size_t lens[] = {
        1,   7,   8,    9,    63,   255,  256,  511,   512,   513,   767,
        768, 769, 1000, 1279, 1280, 1281, 8191, 24575, 24576, 24577, 3 * 8192 * 2 + 999};
    int bad = 0;
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
        for (size_t off = 0; off < 9; off++) {
            uint32_t want = reference(buf + off, lens[l]);
            size_t cut = lens[l] > 1 ? (size_t)rand() % lens[l] : 0;
            uint32_t whole = f(0, buf + off, lens[l]);
            uint32_t split = f(f(0, buf + off, cut), buf + off + cut, lens[l] - cut);
            if (whole != want || split != want) {
                if (!bad++)
                    fprintf(stderr, "%s: length %zu offset %zu: %08x / split %08x, want %08x\n",
                            name, lens[l], off, whole, split, want);
            }
        }
    CHECKF(bad == 0, "%s: %d of %zu buffers differ from the reference", name, bad,
           sizeof lens / sizeof lens[0] * 9);
    free(buf);
}

int main(void) {
    vectors("table", crc32c_table);
    random_buffers("table", crc32c_table);
    printf("crc32c: hardware path %s, %s on this CPU; crc32c() uses %s\n",
           crc32c_hw ? "compiled" : "not compiled", crc32c_hw_usable() ? "usable" : "not usable",
           crc32c_impl());
    if (crc32c_hw_usable()) {
        vectors("hardware", crc32c_hw);
        random_buffers("hardware", crc32c_hw);
    }
    printf("crc32c: folding path %s, %s on this CPU\n", crc32c_fold ? "compiled" : "not compiled",
           crc32c_fold_usable() ? "usable" : "not usable");
    if (crc32c_fold_usable()) {
        vectors("folding", crc32c_fold);
        random_buffers("folding", crc32c_fold);
    }
#if defined(__x86_64__) || defined(__aarch64__)
    /* Both machines this project builds for have the instructions. */
    CHECK(crc32c_hw != NULL);
#endif
    vectors("dispatch", crc32c);
    char b64[9];
    crc32c_base64(0xE3069283u, b64);
    CHECKF(!strcmp(b64, "4waSgw=="), "base64 %s", b64); /* E3 06 92 83, worked by hand */
    uint32_t back = 0;
    CHECK(crc32c_from_base64(b64, 8, &back) == 0 && back == 0xE3069283u);
    CHECK(crc32c_from_base64("4waSgw=", 7, &back) != 0);
    CHECK(crc32c_from_base64("4waSg*==", 8, &back) != 0);
    return unit_done("test_crc32c");
}
