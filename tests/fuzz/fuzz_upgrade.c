/* fuzz_upgrade.c -- result_upgrade() (common/upgrade.c) on any JSON, as
 * report, compare, merge and check call it right after loading a result
 * anyone may have written. It must accept a version it reads and leave the
 * result a valid tree (dumped again here), refuse anything else with one
 * line, and leave an object it refuses unchanged; a version-2 result it
 * accepts, undone (result_upgrade_undo(), as check hashes it), is the file
 * as it was. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/upgrade.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_t *r = json_loadb((const char *)data, size, 0, NULL);
    if (!r)
        return 0;
    json_t *orig = json_deep_copy(r);
    char err[256] = "";
    int v = result_upgrade(r, err, sizeof err);
    if (v < 0) {
        if (!err[0] || strchr(err, '\n') || !json_equal(r, orig))
            abort(); /* one line, and a refused result is left as it was */
    } else {
        if (v < 1 || v > RESULT_SCHEMA_VERSION)
            abort();
        /* the shape readers rely on after it: power an array when it was reshaped */
        json_t *pw = json_object_get(json_object_get(r, "telemetry"), "power");
        json_t *opw = json_object_get(json_object_get(orig, "telemetry"), "power");
        if (v == 1 && json_is_object(json_object_get(r, "telemetry")) &&
            (!opw || json_is_object(opw) || json_is_null(opw)) && !json_is_array(pw))
            abort();
        /* a version-2 result undone is the file as written, for its digest */
        if (v == 2 && !json_object_get(orig, "not_recorded")) {
            json_t *back = json_deep_copy(r);
            result_upgrade_undo(back);
            if (!json_equal(back, orig))
                abort();
            json_decref(back);
        }
        char *s = json_dumps(r, 0);
        if (!s)
            abort();
        free(s);
    }
    json_decref(orig);
    json_decref(r);
    return 0;
}
