/* fuzz_objects_manifest.c -- the objects manifest as a worker reads its own
 * section before the run (workloads/s3_manifest.c): the header line, then
 * that worker's lines, from a bucket anyone with its credentials may have
 * written. Input: the header, FUZZ_SPLIT, the section. The checks must
 * refuse with one line what prepare would not have written, never read past
 * the bytes, and take a CRC only from a line that names the right key and
 * size. */
#include "../../coordinator/cmdline.h"
#include "../../workloads/s3_util.h"
#include "fuzz.h"

static struct config cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    char err[512];
    char *av[] = {"run", "--workloads", "s3", "--profile", "tiny", "--bucket", "fuzz"};
    if (options_load(&cfg, 7, av, 1, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_objects_manifest: %s\n", err);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[2];
    size_t len[2];
    fuzz_split(data, size, 2, part, len);
    /* Exact-size copies: ASan sees a read one byte past either. */
    char *hdr = malloc(len[0] ? len[0] : 1), *sect = malloc(len[1] ? len[1] : 1);
    if (!hdr || !sect)
        abort();
    memcpy(hdr, part[0], len[0]);
    memcpy(sect, part[1], len[1]);
    char err[1024] = "";
    struct s3_manifest_info mi;
    for (unsigned dw = 0; dw < 2; dw++) {
        if (s3_manifest_check_header(&cfg, dw, hdr, len[0], &mi, err, sizeof err) != 0) {
            if (!err[0] || strchr(err, '\n'))
                abort();
            continue;
        }
        /* A worker reads min(ops, the operations it makes): 64 here keeps an
         * input small enough to mutate fast. */
        unsigned nops = mi.ops < 64 ? mi.ops : 64;
        uint32_t *crc = calloc(nops, sizeof *crc);
        if (!crc)
            abort();
        err[0] = 0;
        if (s3_manifest_check_section(&cfg, dw, nops, sect, len[1], crc, err, sizeof err) != 0 &&
            (!err[0] || strchr(err, '\n')))
            abort();
        free(crc);
    }
    free(hdr);
    free(sect);
    return 0;
}
