/* upgrade.c -- see upgrade.h. One function per step from a version to the
 * next, applied in order; each says what it changes and why, as
 * CHANGELOG.md does for a reader. */
#include "upgrade.h"

#include <stdio.h>
#include <string.h>

/* 1 -> 2: telemetry.power was one object, the CPU package's
 * {source, mean_w, peak_w}, or null with telemetry.power_unavailable_reason
 * beside it. It is now an array with one entry per source, each with its
 * scope, its series column and a reason where it could not measure. The old
 * object is the package's entry, whose series was power_w; a null is that
 * entry unmeasured, its reason the old power_unavailable_reason. Builds of
 * late schema 1 already wrote the array (the version was raised after
 * them): an array is left as it is. */
static int power_to_sources(json_t *root) {
    json_t *t = json_object_get(root, "telemetry");
    json_t *pw = json_object_get(t, "power");
    if (!json_is_object(t) || json_is_array(pw) || (pw && !json_is_object(pw) && !json_is_null(pw)))
        return 0; /* no telemetry, the new shape, or neither shape: nothing to read */
    json_t *e = json_is_object(pw) ? json_deep_copy(pw) : json_object();
    if (!e)
        return -1;
    int measured = json_is_number(json_object_get(e, "mean_w"));
    if (!json_object_get(e, "source"))
        json_object_set_new(e, "source", json_null());
    if (!json_object_get(e, "mean_w"))
        json_object_set_new(e, "mean_w", json_null());
    if (!json_object_get(e, "peak_w"))
        json_object_set_new(e, "peak_w", json_null());
    json_object_set_new(e, "scope", json_string("package"));
    json_object_set_new(e, "series", json_string("power_w"));
    /* The package was the only source, so a measured one gave aops_per_watt. */
    json_object_set_new(e, "used_for_per_watt", json_boolean(measured));
    json_t *why = json_object_get(t, "power_unavailable_reason");
    if (!json_object_get(e, "reason"))
        json_object_set_new(e, "reason",
                            measured || !json_is_string(why) ? json_null() : json_copy(why));
    json_t *arr = json_array();
    if (!arr || json_array_append_new(arr, e) != 0 || json_object_set_new(t, "power", arr) != 0)
        return -1;
    return 0;
}

/* 1 -> 2: the keys builds of version 1 began to write one after another
 * (CHANGELOG.md, "Added during version 1"), which result.schema.json marks
 * required: a version-1 result lacking one has it as null, named in
 * not_recorded.keys with the reason, so that it has the current shape and a
 * reader can tell "not recorded" from "measured as nothing". A path's `[]`
 * is each element of an array, `*` each value of a map. The top-level keys
 * among them that may be null in any result have a reason key of their own
 * beside them (result/keys.c), which says the same. */
static const char *const v1_added[] = {"storage",
                                       "storage_reason",
                                       "stragglers",
                                       "stragglers_reason",
                                       "storage_baseline",
                                       "storage_baseline_reason",
                                       "placement",
                                       "placement_reason",
                                       "run_id",
                                       "run_id_reason",
                                       "provenance",
                                       "verification",
                                       "oplog",
                                       "reportable",
                                       "nonreportable_reasons",
                                       "integrity",
                                       "totals.aops_per_watt_platform",
                                       "config.cache",
                                       "config.phase_barrier",
                                       "config.placement",
                                       "config.search_threads",
                                       "config.search_threads_rule",
                                       "config.corpus.manifest.expected",
                                       "containers[].cpus",
                                       "containers[].mems",
                                       "containers[].cpus_allowed",
                                       "containers[].mems_allowed",
                                       "containers[].memory_includes_swap",
                                       "system.disks[].firmware",
                                       "system.disks[].numa_node",
                                       "system.disks[].pcie_link_speed",
                                       "system.disks[].pcie_link_width",
                                       "telemetry.steal_pct",
                                       "telemetry.series[].steal_pct",
                                       "windows.*.seconds",
                                       "windows.*.intervals",
                                       "windows.*.overlap_share",
                                       "windows.*.exclusive",
                                       "windows.*.steal_pct",
                                       "windows.*.disk_read_bytes",
                                       "windows.*.workload_read_bytes",
                                       "windows.*.served_from_disk"};
#define V1_REASON "not recorded by schema version 1"

/* Each object path (from o) names; add: set the last segment to null where
 * absent, counting how many; else remove it where null. */
static size_t walk(json_t *o, const char *path, int add) {
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path), n = 0;
    char key[64];
    int each = len >= 2 && path[len - 2] == '[' && path[len - 1] == ']';
    if (!json_is_object(o) || len - (each ? 2 : 0) >= sizeof key)
        return 0;
    snprintf(key, sizeof key, "%.*s", (int)(len - (each ? 2 : 0)), path);
    if (!dot) {
        json_t *v = json_object_get(o, key);
        if (add && !v)
            return json_object_set_new(o, key, json_null()) == 0;
        if (!add &&
            (json_is_null(v) || (json_is_string(v) && !strcmp(json_string_value(v), V1_REASON))))
            json_object_del(o, key);
        return 0;
    }
    if (!strcmp(key, "*")) {
        const char *k;
        json_t *v;
        json_object_foreach(o, k, v) n += walk(v, dot + 1, add);
        return n;
    }
    json_t *v = json_object_get(o, key);
    if (!each)
        return walk(v, dot + 1, add);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) n += walk(e, dot + 1, add);
    return n;
}

static int v1_fill(json_t *root) {
    json_t *keys = json_array();
    if (!keys)
        return -1;
    for (size_t i = 0; i < sizeof v1_added / sizeof *v1_added; i++)
        if (walk(root, v1_added[i], 1))
            json_array_append_new(keys, json_string(v1_added[i]));
    /* a reason key beside its null, in the words of the rest */
    const char *own[] = {"storage", "stragglers", "storage_baseline", "placement", "run_id"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        char r[32];
        snprintf(r, sizeof r, "%s_reason", own[i]);
        if (json_is_null(json_object_get(root, own[i])) && json_is_null(json_object_get(root, r)))
            json_object_set_new(root, r, json_string(V1_REASON));
    }
    if (!json_array_size(keys)) {
        json_decref(keys);
        return 0;
    }
    return json_object_set_new(root, "not_recorded",
                               json_pack("{s:s, s:o}", "reason", V1_REASON, "keys", keys));
}

/* 2 -> 3: served_from_disk was disk bytes over workload bytes, uncapped, and
 * a cold run read 1.42 bytes for each byte served (readahead, MinIO's
 * metadata, erasure shards), which a reader takes for a share over 100 %.
 * It is now capped at 1, the quotient beside it as
 * disk_bytes_per_workload_byte: every object of an older result holding a
 * number served_from_disk gets the quotient (the old value: it was that
 * quotient, rounded alike) and the share capped; undone, the old value is
 * put back exactly. No build before 3 wrote disk_bytes_per_workload_byte, so
 * an older result that has one is refused (SERVED_FIND counts them): it is
 * no build's, and the undo could not tell its own from the file's. */
enum served_step { SERVED_FIND, SERVED_UP, SERVED_UNDO };

static size_t served_capped(json_t *o, enum served_step step, int depth) {
    size_t n = 0;
    if (depth > 64)
        return 0; /* deeper than any result nests: a hostile file's, left alone */
    if (json_is_array(o)) {
        size_t i;
        json_t *e;
        json_array_foreach(o, i, e) n += served_capped(e, step, depth + 1);
        return n;
    }
    if (!json_is_object(o))
        return 0;
    json_t *sv = json_object_get(o, "served_from_disk");
    json_t *per = json_object_get(o, "disk_bytes_per_workload_byte");
    if (step == SERVED_FIND && per)
        n++;
    else if (step == SERVED_UNDO && json_is_number(per) && json_is_number(sv)) {
        json_object_set_new(o, "served_from_disk", json_copy(per));
        json_object_del(o, "disk_bytes_per_workload_byte");
    } else if (step == SERVED_UP && json_is_number(sv) && !per) {
        json_object_set_new(o, "disk_bytes_per_workload_byte", json_copy(sv));
        if (json_number_value(sv) > 1)
            json_object_set_new(o, "served_from_disk", json_real(1));
    }
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (strcmp(k, "served_from_disk") && strcmp(k, "disk_bytes_per_workload_byte"))
            n += served_capped(v, step, depth + 1);
    }
    return n;
}

void result_upgrade_undo(json_t *root) {
    json_t *ver = json_object_get(root, "schema_version");
    if (json_is_integer(ver) && json_integer_value(ver) < 3)
        served_capped(root, SERVED_UNDO, 0);
    json_t *nr = json_object_get(root, "not_recorded");
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(nr, "keys"), i, k) {
        if (json_is_string(k))
            walk(root, json_string_value(k), 0);
    }
    json_object_del(root, "not_recorded");
}

int result_upgrade(json_t *root, char *err, size_t errlen) {
    if (!json_is_object(root)) {
        snprintf(err, errlen, "not a harness result (not a JSON object)");
        return -1;
    }
    json_t *v = json_object_get(root, "schema_version");
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "not a harness result (no integer schema_version)");
        return -1;
    }
    json_int_t ver = json_integer_value(v);
    if (ver < 1 || ver > RESULT_SCHEMA_VERSION) {
        snprintf(err, errlen, "schema_version %lld is not one this build reads (1 to %d)%s",
                 (long long)ver, RESULT_SCHEMA_VERSION,
                 ver > RESULT_SCHEMA_VERSION ? ": a newer build's result, read it with that build"
                                             : "");
        return -1;
    }
    if (ver < 3 && served_capped(root, SERVED_FIND, 0)) {
        snprintf(err, errlen,
                 "schema_version %lld with disk_bytes_per_workload_byte, a key of version 3: "
                 "no build wrote that",
                 (long long)ver);
        return -1;
    }
    if (ver < 2 && (power_to_sources(root) != 0 || v1_fill(root) != 0)) {
        snprintf(err, errlen, "out of memory reading a schema 1 result");
        return -1;
    }
    if (ver < 3)
        served_capped(root, SERVED_UP, 0);
    return (int)ver;
}
