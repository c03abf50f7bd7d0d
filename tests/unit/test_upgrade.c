/* test_upgrade.c -- common/upgrade: result_upgrade() against results written
 * here by hand in each version's shape (CHANGELOG.md is the reference):
 * a schema 1 power object {source, mean_w, peak_w} becomes the one package
 * entry of an array, a schema 1 null becomes that entry unmeasured with the
 * old power_unavailable_reason, the keys a version-1 build had not written
 * yet become null, named in not_recorded, a late schema 1 array and a
 * schema 2 result are left as they were (but for those nulls, which
 * result_upgrade_undo() takes out again for the digest), a schema 2
 * served_from_disk over 1 is capped with the quotient beside it, and what is
 * not a version this build reads (none, not an integer, 0, a newer build's)
 * is refused with one line. */
#include <string.h>

#include "../../common/json.h"
#include "../../common/upgrade.h"
#include "unit.h"

static json_t *parse(const char *text) {
    json_error_t je;
    json_t *r = json_loads(text, 0, &je);
    CHECKF(r != NULL, "%s", je.text);
    return r;
}

/* schema 1's object: the package's entry, measured, its series power_w. */
static void v1_object(void) {
    json_t *r = parse("{\"schema_version\":1,\"totals\":{\"aops_per_watt\":3.5},\"telemetry\":{"
                      "\"power\":{\"source\":\"rapl\",\"mean_w\":65.4,\"peak_w\":88.1},"
                      "\"power_unavailable_reason\":null}}");
    char err[256] = "";
    CHECK(result_upgrade(r, err, sizeof err) == 1);
    json_t *pw = jget(r, "telemetry.power");
    CHECK(json_is_array(pw) && json_array_size(pw) == 1);
    CHECK(jstr(r, "telemetry.power.0.source") &&
          !strcmp(jstr(r, "telemetry.power.0.source"), "rapl"));
    CHECK(jnum(r, "telemetry.power.0.mean_w") == 65.4);
    CHECK(jnum(r, "telemetry.power.0.peak_w") == 88.1);
    CHECK(jstr(r, "telemetry.power.scope=package.series") &&
          !strcmp(jstr(r, "telemetry.power.scope=package.series"), "power_w"));
    CHECK(json_is_true(jget(r, "telemetry.power.0.used_for_per_watt")));
    CHECK(json_is_null(jget(r, "telemetry.power.0.reason")));
    /* what readers look up now: the package's mean by its scope */
    CHECK(jnum(r, "telemetry.power.scope=package.mean_w") == 65.4);
    /* the version the file was written as is kept */
    CHECK(jnum(r, "schema_version") == 1);
    json_decref(r);
}

/* schema 1's null: the package's entry, unmeasured, with the old reason. */
static void v1_null(void) {
    json_t *r = parse("{\"schema_version\":1,\"telemetry\":{\"power\":null,"
                      "\"power_unavailable_reason\":\"powercap RAPL: absent\"}}");
    char err[256] = "";
    CHECK(result_upgrade(r, err, sizeof err) == 1);
    CHECK(json_array_size(jget(r, "telemetry.power")) == 1);
    CHECK(json_is_null(jget(r, "telemetry.power.0.source")));
    CHECK(json_is_null(jget(r, "telemetry.power.0.mean_w")));
    CHECK(json_is_null(jget(r, "telemetry.power.0.peak_w")));
    CHECK(jstr(r, "telemetry.power.0.scope") &&
          !strcmp(jstr(r, "telemetry.power.0.scope"), "package"));
    CHECK(jstr(r, "telemetry.power.0.reason") &&
          !strcmp(jstr(r, "telemetry.power.0.reason"), "powercap RAPL: absent"));
    CHECK(json_is_false(jget(r, "telemetry.power.0.used_for_per_watt")));
    /* no power key at all (a schema 1 result of a build before telemetry.power) */
    json_t *s =
        parse("{\"schema_version\":1,\"telemetry\":{\"power_unavailable_reason\":\"no RAPL\"}}");
    CHECK(result_upgrade(s, err, sizeof err) == 1);
    CHECK(jstr(s, "telemetry.power.0.reason") &&
          !strcmp(jstr(s, "telemetry.power.0.reason"), "no RAPL"));
    json_decref(s);
    json_decref(r);
}

/* 1 -> 2: the keys builds of version 1 had not written yet (CHANGELOG.md),
 * null where the object around them is, each path named once. */
static void v1_not_recorded(void) {
    json_t *r = parse("{\"schema_version\":1,\"telemetry\":{\"power\":[]},\"config\":{},"
                      "\"containers\":[{\"id\":0},{\"id\":1,\"cpus\":\"0-1\"}],"
                      "\"windows\":{\"s3\":{\"seconds\":2.5}},\"integrity\":{}}");
    char err[256] = "";
    CHECK(result_upgrade(r, err, sizeof err) == 1);
    CHECK(json_is_null(jget(r, "storage")) && json_is_null(jget(r, "provenance")));
    CHECK(jstr(r, "storage_reason") &&
          !strcmp(jstr(r, "storage_reason"), "not recorded by schema version 1"));
    CHECK(json_is_null(jget(r, "config.cache")));
    CHECK(jget(r, "config.corpus") == NULL); /* no object to hold it: not invented */
    CHECK(json_is_null(jget(r, "containers.0.cpus")));
    CHECK(jstr(r, "containers.1.cpus") && !strcmp(jstr(r, "containers.1.cpus"), "0-1"));
    CHECK(jnum(r, "windows.s3.seconds") == 2.5 && json_is_null(jget(r, "windows.s3.exclusive")));
    CHECK(json_is_object(jget(r, "integrity"))); /* present: left alone */
    json_t *keys = jget(r, "not_recorded.keys");
    size_t i, cpus = 0, integ = 0;
    json_t *k;
    json_array_foreach(keys, i, k) {
        cpus += !strcmp(json_string_value(k), "containers[].cpus");
        integ += !strcmp(json_string_value(k), "integrity");
    }
    CHECK(cpus == 1 && integ == 0);
    CHECK(jstr(r, "not_recorded.reason") &&
          !strcmp(jstr(r, "not_recorded.reason"), "not recorded by schema version 1"));
    json_decref(r);
}

/* Already the current shape: not one byte changes (a version-1 one: but
 * for the keys it lacks, not_recorded). */
static void unchanged(void) {
    const char *texts[] = {
        "{\"schema_version\":1,\"telemetry\":{\"power\":[{\"source\":null,\"scope\":\"package\","
        "\"mean_w\":null,\"peak_w\":null,\"reason\":\"x\"}]}}",
        "{\"schema_version\":2,\"telemetry\":{\"power\":[{\"source\":\"rapl\",\"scope\":"
        "\"package\","
        "\"mean_w\":1,\"peak_w\":2,\"reason\":null},{\"source\":\"redfish\",\"scope\":\"platform\","
        "\"mean_w\":3,\"peak_w\":4,\"reason\":null}]}}",
        "{\"schema_version\":2,\"totals\":{}}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *r = parse(texts[i]), *orig = json_deep_copy(r);
        char err[256] = "";
        CHECK(result_upgrade(r, err, sizeof err) == (int)jnum(orig, "schema_version"));
        /* a version-1 result also gets the keys its build did not write, as
         * null, listed in not_recorded; taken out again, it is as it was */
        if (jnum(orig, "schema_version") == 1)
            CHECK(json_is_object(json_object_get(r, "not_recorded")));
        if (jnum(orig, "schema_version") < 3)
            result_upgrade_undo(r);
        CHECKF(json_equal(r, orig), "text %zu changed", i);
        json_decref(r);
        json_decref(orig);
    }
}

/* schema 2's served_from_disk was the raw quotient, 1.42 on a cold run:
 * capped at 1 with 1.42 beside it; 0.25 stays, 0.25 beside it; a null is
 * left; a version-3 object (it has the quotient) is not touched; and undone,
 * the file is byte for byte as written, for its digest. */
static void v2_served(void) {
    const char *text =
        "{\"schema_version\":2,\"storage\":{\"served_from_disk\":1.42},\"windows\":{"
        "\"s3\":{\"served_from_disk\":0.25,\"exclusive\":{\"served_from_disk\":2.5}},"
        "\"db\":{\"served_from_disk\":null}},\"shards\":[{\"storage\":{"
        "\"served_from_disk\":3}}]}";
    json_t *r = parse(text), *orig = json_deep_copy(r);
    char err[256] = "";
    CHECK(result_upgrade(r, err, sizeof err) == 2);
    json_t *st = json_object_get(r, "storage"),
           *s3 = json_object_get(json_object_get(r, "windows"), "s3");
    json_t *ex = json_object_get(s3, "exclusive");
    json_t *db = json_object_get(json_object_get(r, "windows"), "db");
    json_t *sh = json_object_get(json_array_get(json_object_get(r, "shards"), 0), "storage");
    CHECK(jnum(st, "served_from_disk") == 1 && jnum(st, "disk_bytes_per_workload_byte") == 1.42);
    CHECK(jnum(s3, "served_from_disk") == 0.25 && jnum(s3, "disk_bytes_per_workload_byte") == 0.25);
    CHECK(jnum(ex, "served_from_disk") == 1 && jnum(ex, "disk_bytes_per_workload_byte") == 2.5);
    CHECK(jnum(sh, "served_from_disk") == 1 && jnum(sh, "disk_bytes_per_workload_byte") == 3);
    CHECK(json_is_null(json_object_get(db, "served_from_disk")) &&
          !json_object_get(db, "disk_bytes_per_workload_byte"));
    result_upgrade_undo(r);
    CHECK(json_equal(r, orig));
    json_decref(r);
    json_decref(orig);
    json_t *v3 = parse("{\"schema_version\":3,\"storage\":{\"served_from_disk\":1,"
                       "\"disk_bytes_per_workload_byte\":1.42}}");
    orig = json_deep_copy(v3);
    CHECK(result_upgrade(v3, err, sizeof err) == 3);
    result_upgrade_undo(v3);
    CHECK(json_equal(v3, orig));
    json_decref(v3);
    json_decref(orig);
}

/* Not a version this build reads: refused, one line, the result untouched. */
static void refused(void) {
    const struct {
        const char *text, *says;
    } cases[] = {
        {"{\"schema_version\":4,\"telemetry\":{\"power\":{\"mean_w\":1}}}", "newer build"},
        {"{\"schema_version\":0}", "schema_version 0"},
        {"{\"schema_version\":2,\"windows\":{\"s3\":{\"served_from_disk\":1,"
         "\"disk_bytes_per_workload_byte\":1.4}}}",
         "a key of version 3"},
        {"{\"schema_version\":-5}", "schema_version -5"},
        {"{\"schema_version\":\"2\"}", "no integer schema_version"},
        {"{\"schema_version\":1.0}", "no integer schema_version"},
        {"{\"totals\":{}}", "no integer schema_version"},
        {"[1,2]", "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *r = parse(cases[i].text), *orig = json_deep_copy(r);
        char err[256] = "";
        CHECKF(result_upgrade(r, err, sizeof err) == -1, "case %zu accepted", i);
        CHECKF(strstr(err, cases[i].says) != NULL, "case %zu says %s", i, err);
        CHECK(err[0] && !strchr(err, '\n'));
        CHECK(json_equal(r, orig));
        json_decref(r);
        json_decref(orig);
    }
    char err[8] = "";
    CHECK(result_upgrade(NULL, err, sizeof err) == -1); /* a short err buffer stays bounded */
    CHECK(strlen(err) < sizeof err);
}

int main(void) {
    v1_object();
    v1_null();
    v1_not_recorded();
    unchanged();
    v2_served();
    refused();
    return unit_done("test_upgrade");
}
