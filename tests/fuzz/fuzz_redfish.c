/* fuzz_redfish.c -- what the Redfish client (telemetry/power_redfish.c)
 * takes from a BMC, which may be anyone's: a resource's JSON (Power with its
 * PowerControl[], EnvironmentMetrics with PowerWatts, a Sensor's
 * SensingInterval, the service root's Links.Sessions), a URL it names, and
 * the header lines of a Sessions answer (X-Auth-Token, Location).
 *
 * The input is three parts split at FUZZ_SPLIT: the JSON, a URL reference,
 * the header lines. Beyond not crashing, what must hold: a URL accepted has
 * --bmc's origin exactly (checked here by prefix, another way than the
 * parser's), a refusal is one line, a header value taken is shorter than its
 * buffer and free of control bytes. */
#include <curl/curl.h>
#include <jansson.h>
#include <math.h>

#include "../../telemetry/power_redfish.h"
#include "fuzz.h"

static const char BMC[] = "https://10.0.0.5:8443";

static void one_line(const char *err) {
    if (!err[0] || strchr(err, '\n') || strchr(err, '\r'))
        abort();
}

static void json_part(const uint8_t *d, size_t n) {
    json_t *j = json_loadb((const char *)d, n, 0, NULL);
    if (!j)
        return;
    char err[256];
    double w;
    int m = redfish_power_member(j);
    if (m >= 0 && redfish_power_value(j, 0, m, &w, err, sizeof err) != 0)
        abort(); /* the member it found has a number */
    if (redfish_power_value(j, 0, m < 0 ? 0 : m, &w, err, sizeof err) != 0)
        one_line(err);
    if (redfish_power_value(j, 1, 0, &w, err, sizeof err) != 0)
        one_line(err);
    const char *si = json_string_value(json_object_get(j, "SensingInterval"));
    double s = iso8601_duration_s(si);
    if (!isnan(s) && s < 0)
        abort();
    const char *sess = json_string_value(
        json_object_get(json_object_get(json_object_get(j, "Links"), "Sessions"), "@odata.id"));
    char out[1200], e[600];
    if (sess && redfish_resolve(BMC, NULL, sess, out, sizeof out, e, sizeof e) != 0)
        one_line(e);
    json_decref(j);
}

static void url_part(const uint8_t *d, size_t n) {
    char *ref = fuzz_cstr(d, n);
    char out[1400], err[600];
    static const char *const from[] = {NULL, "https://10.0.0.5:8443/redfish/v1/Chassis/1/"};
    for (int i = 0; i < 2; i++) {
        if (redfish_resolve(BMC, from[i], ref, out, sizeof out, err, sizeof err) == 0) {
            /* The origin, then a path (or nothing): no userinfo, no other
             * port, nothing but "/" after the authority. */
            size_t bl = strlen(BMC);
            if (strncasecmp(out, BMC, bl) ||
                (out[bl] && out[bl] != '/' && out[bl] != '?' && out[bl] != '#'))
                abort();
        } else {
            one_line(err);
        }
    }
    free(ref);
}

static void header_part(const uint8_t *d, size_t n) {
    /* libcurl hands the callback one header line at a time. */
    const char *p = (const char *)d, *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        char tok[16], loc[600];
        for (int i = 0; i < 2; i++) {
            char *out = i ? loc : tok;
            size_t cap = i ? sizeof loc : sizeof tok;
            int r = redfish_header(p, len, i ? "Location" : "X-Auth-Token", out, cap);
            if (r == 1) {
                size_t l = strlen(out);
                if (l >= cap)
                    abort();
                for (size_t k = 0; k < l; k++)
                    if ((unsigned char)out[k] < 0x20)
                        abort();
            }
        }
        p += len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[3];
    size_t len[3];
    fuzz_split(data, size, 3, part, len);
    json_part(part[0], len[0]);
    url_part(part[1], len[1]);
    header_part(part[2], len[2]);
    return 0;
}
