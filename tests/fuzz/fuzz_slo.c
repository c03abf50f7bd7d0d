/* fuzz_slo.c -- SLO specs (result/slo.c) as --slo hands them over and as a
 * result.json's slo.spec does (a merge parses each shard's again, and a
 * shard's result may come from anyone). A spec the parser accepts must
 * spell out to one it parses to the very same terms (the spec a result
 * records is the one it was judged by); one it refuses must leave no term
 * and an error of one printable line. */
#include "../../result/slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_cstr(data, size);
    struct slo s, back;
    char err[256] = "";
    if (slo_parse(text, &s, err, sizeof err) == 0) {
        if (s.n == 0 || s.n > SLO_MAX_TERMS)
            abort();
        if (slo_parse(s.spec, &back, err, sizeof err) != 0 || back.n != s.n)
            abort(); /* the spelled-out spec is not the one parsed */
        for (unsigned i = 0; i < s.n; i++)
            if (memcmp(&s.t[i], &back.t[i], sizeof s.t[i]))
                abort();
        slo_check_names(&s, err, sizeof err);
    } else {
        if (s.n)
            abort(); /* a refused spec must be no SLO, not a part of one */
        for (const char *p = err; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                abort();
    }
    free(text);
    return 0;
}
