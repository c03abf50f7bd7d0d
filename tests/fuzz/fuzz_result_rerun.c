/* fuzz_result_rerun.c -- result.json as `harness rerun` reads it
 * (coordinator/rerun_args.c): provenance.invocation, turned into the
 * options of the run it starts. Whatever the file holds, the function
 * returns options of the job only or refuses with one line; never an
 * endpoint, a credential, a BMC, an output path, a key or a pin, which
 * this target lists itself rather than asking the code under test. */
#include "../../coordinator/rerun_args.h"
#include "fuzz.h"

static const char *const never[] = {
    "--bmc",         "--db-host",       "--db-port",        "--db-socket",     "--db-user",
    "--db-name",     "--db-password",   "--s3-endpoint",    "--s3-access-key", "--s3-secret-key",
    "--csv",         "--out",           "--results-url",    "--sign",          "--server-pid",
    "--server-cpus", "--server-cgroup", "--metrics-listen", "--docker-host",   "--sysroot",
    "--image",       "--start-at",      "--shard",          "--baseline-file",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j)
        return 0;
    struct rerun_args ra;
    char err[512];
    if (rerun_args_from_result(j, &ra, err, sizeof err) == 0) {
        for (int i = 0; i < ra.argc; i++) {
            const char *a = ra.argv[i];
            if (strncmp(a, "--", 2))
                abort(); /* an operand would be taken as one by run */
            for (size_t k = 0; k < sizeof never / sizeof never[0]; k++) {
                size_t l = strlen(never[k]);
                if (!strncmp(a, never[k], l) && (a[l] == 0 || a[l] == '='))
                    abort();
            }
        }
        for (int i = 0; i < ra.ndropped; i++)
            if (strchr(ra.dropped[i], '\n'))
                abort();
        rerun_args_free(&ra);
    } else if (!err[0] || strchr(err, '\n') || ra.argc || ra.argv) {
        abort(); /* a refusal is one line, and leaves nothing */
    }
    json_decref(j);
    return 0;
}
