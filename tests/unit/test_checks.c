/* test_checks.c -- the pure parts of results anyone can check: the
 * canonical digest (same values in any key order or layout hash alike, a
 * changed value does not; against sha256 of the canonical text worked out
 * by hand), DSSE's pre-authentication encoding (the DSSE spec's example),
 * base64, the reportable rules on hand-made results, the per-operation
 * log's file format (round trip, truncation, another file), the objects
 * manifest's fixed-width lines, and the order-independence of a query
 * answer's checksum. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/canon.h"
#include "../../common/digest.h"
#include "../../common/oplog.h"
#include "../../common/reportable.h"
#include "../../result/result.h"
#include "../../workloads/db.h"
#include "../../workloads/s3_util.h"
#include "unit.h"

static void canon(void) {
    json_t *a = json_loads("{\"b\": 1, \"a\": {\"y\": [1, 2.5, \"x\"], \"x\": null}, "
                           "\"integrity\": {\"result_sha256\": \"old\"}}",
                           0, NULL);
    json_t *b = json_loads("{\"a\":{\"x\":null,\"y\":[1,2.5,\"x\"]},\"b\":1}", 0, NULL);
    char ha[SHA256_HEX], hb[SHA256_HEX], want[SHA256_HEX];
    CHECK(canon_sha256(a, ha) == 0 && canon_sha256(b, hb) == 0);
    CHECKF(!strcmp(ha, hb), "key order, layout and integrity change the digest: %s %s", ha, hb);
    /* The canonical text, written out by hand: sorted keys, no blanks. */
    const char *text = "{\"a\":{\"x\":null,\"y\":[1,2.5,\"x\"]},\"b\":1}";
    sha256_hex(text, strlen(text), want);
    CHECKF(!strcmp(ha, want), "canonical digest %s, sha256 of the canonical text %s", ha, want);
    json_object_set_new(json_object_get(b, "a"), "x", json_integer(0));
    CHECK(canon_sha256(b, hb) == 0 && strcmp(ha, hb));
    json_decref(a);
    json_decref(b);
    /* sha256("abc"), FIPS 180-2's example. */
    sha256_hex("abc", 3, want);
    CHECK(!strcmp(want, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

static void dsse(void) {
    size_t n = 0;
    unsigned char *p = dsse_pae("http://example.com/HelloWorld", "hello world", 11, &n);
    const char *want = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
    CHECKF(p && n == strlen(want) && !memcmp(p, want, n), "PAE %.*s", (int)n, p ? (char *)p : "");
    free(p);
    char *e = b64_encode("hello world", 11);
    CHECK(e && !strcmp(e, "aGVsbG8gd29ybGQ="));
    size_t dl = 0;
    unsigned char *d = e ? b64_decode(e, &dl) : NULL;
    CHECK(d && dl == 11 && !memcmp(d, "hello world", 11));
    free(d);
    free(e);
    CHECK(b64_decode("abc", &dl) == NULL);
}

/* A result that meets every rule, for the rules to be broken one by one. */
static json_t *good_result(void) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"valid\": true, \"warnings\": [], \"config\": {\"profile\": \"full\", "
             "\"schedule\": \"phased\", \"stall_timeout\": 30, \"sample_interval\": 1, "
             "\"dataset\": \"per-worker\"}, \"totals\": {\"aops\": 100.5, \"errors\": 0}, "
             "\"repeats\": {\"n\": 3, \"aops_median\": 100.5, \"runs\": [\"runs/1\", \"runs/2\", "
             "\"runs/3\"]}, \"provenance\": {\"build\": "
             "{\"release\": true, \"dirty\": false, \"sanitizers\": null}, \"data\": "
             "{\"objects_manifest\": {\"worker0_sha256\": \"%s\"}, \"corpus_manifest\": "
             "{\"sha256\": \"%s\"}, \"patterns\": {\"sha256\": \"%s\"}}}, \"verification\": "
             "{\"s3\": {\"verified\": true}, \"db\": {\"verified\": true}, \"search\": "
             "{\"verified\": true}}}",
             reportable_objects_worker0_sha256, reportable_corpus_manifest_sha256,
             reportable_patterns_sha256);
    return json_loads(text, 0, NULL);
}

static int has_reason(json_t *res, const char *needle) {
    json_t *r = reportable_reasons(res), *v;
    size_t i;
    int found = 0;
    json_array_foreach(r, i, v) found |= strstr(json_string_value(v), needle) != NULL;
    json_decref(r);
    return found;
}

static void reportable(void) {
    json_t *g = good_result();
    CHECK(g != NULL);
    json_t *r = reportable_reasons(g);
    CHECKF(json_array_size(r) == 0, "a result meeting every rule has %zu reasons, first: %s",
           json_array_size(r), json_string_value(json_array_get(r, 0)));
    json_decref(r);
    result_reportable(g);
    CHECK(json_is_true(json_object_get(g, "reportable")));
    struct {
        const char *path, *json, *reason;
    } breaks[] = {
        {"config.profile", "\"tiny\"", "profile tiny, not full"},
        {"config.schedule", "\"interleaved\"", "not phased"},
        {"repeats", "null", "a single run"},
        {"repeats.n", "2", "2 runs"},
        {"repeats.aops_median", "99", "not the median run"},
        /* n counted from the runs listed, each once (issue 35). */
        {"repeats.runs", "[]", "repeats.n 3, but 0 distinct run(s)"},
        {"repeats.runs", "[\"runs/1\", \"runs/1\", \"runs/1\"]", "but 1 distinct run(s)"},
        {"config.stall_timeout", "10", "--stall-timeout 10"},
        {"config.sample_interval", "0.1", "--sample-interval 0.1"},
        {"provenance.build.release", "false", "not a release build"},
        {"provenance.build.dirty", "true", "uncommitted changes"},
        {"config.dataset", "\"shared\"", "--dataset shared"},
        {"provenance.data.objects_manifest.worker0_sha256", "\"0000\"", "objects manifest differs"},
        {"provenance.data.corpus_manifest.sha256", "\"0000\"", "corpus manifest differs"},
        {"provenance.data.patterns.sha256", "\"0000\"", "patterns file differs"},
        {"verification.search.verified", "false", "search answers not verified"},
        {"totals.errors", "3", "3 operations failed"},
        {"valid", "false", "the run is invalid"},
        {"warnings", "[\"unstable: AOPS CV 9.0 %\"]", "warning: unstable"},
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        json_t *b = good_result();
        char parent[256];
        snprintf(parent, sizeof parent, "%s", breaks[i].path);
        char *dot = strrchr(parent, '.');
        json_t *obj = b;
        const char *key = parent;
        if (dot) {
            *dot = 0;
            key = dot + 1;
            for (char *t = strtok(parent, "."); t; t = strtok(NULL, "."))
                obj = json_object_get(obj, t);
        }
        json_object_set_new(obj, key, json_loads(breaks[i].json, JSON_DECODE_ANY, NULL));
        CHECKF(has_reason(b, breaks[i].reason), "%s = %s: no reason naming '%s'", breaks[i].path,
               breaks[i].json, breaks[i].reason);
        result_reportable(b);
        CHECK(json_is_false(json_object_get(b, "reportable")));
        json_decref(b);
    }
    json_decref(g);
}

static void oplog(void) {
    char path[] = "/tmp/test_checks.XXXXXX", err[512];
    int fd = mkstemp(path);
    close(fd);
    struct oplog_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.run_id, sizeof h.run_id, "abc123");
    h.nwl = 1;
    snprintf(h.workload[0], sizeof h.workload[0], "s3");
    struct oplog_rec r[3] = {{1, 2, 1024, 7, 0, 0, 0, 1},
                             {3, 9, 1024, 7, 1, 0, 1, 2},
                             {4, 5, 0, 8, 2, 0, OPLOG_NO_CLASS | OPLOG_ERROR, 4}};
    struct oplog_writer *w = oplog_create(path, &h, err, sizeof err);
    CHECKF(w != NULL, "%s", err);
    if (!w)
        return;
    oplog_append(w, r, 2);
    oplog_append(w, r + 2, 1);
    CHECK(oplog_close(w, err, sizeof err) == 0);
    struct oplog_header g;
    struct oplog_rec *back = NULL;
    CHECKF(oplog_read(path, &g, &back, err, sizeof err) == 0, "%s", err);
    CHECK(g.records == 3 && !strcmp(g.run_id, "abc123") && back && !memcmp(back, r, sizeof r));
    CHECK(back && oplog_class(&back[2]) == -1 && oplog_failed(&back[2]) && !oplog_failed(&back[1]));
    free(back);
    CHECK(truncate(path, OPLOG_HEADER_SIZE + 40) == 0);
    CHECK(oplog_read(path, &g, &back, err, sizeof err) != 0 && strstr(err, "truncated") &&
          strstr(err, "says 3 records"));
    /* A version 1 log (32-byte records, no scheduled instant), written as
     * the harness before issue 38 wrote it: read on, each record due at its
     * start. */
    struct oplog_header v1 = h;
    memcpy(v1.magic, OPLOG_MAGIC, 8);
    v1.version = 1, v1.header_size = OPLOG_HEADER_SIZE, v1.record_size = 32, v1.records = 2;
    FILE *f = fopen(path, "w");
    fwrite(&v1, sizeof v1, 1, f);
    for (int i = 0; i < 2; i++)
        fwrite(&r[i], 32, 1, f); /* the first 32 bytes are version 1's record */
    fclose(f);
    CHECKF(oplog_read(path, &g, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back && g.records == 2 && back[0].start_ns == 1 && back[0].end_ns == 2 &&
          back[0].sched_ns == 1 && back[1].start_ns == 3 && back[1].end_ns == 9 &&
          back[1].sched_ns == 3 && back[1].op == 1 && oplog_class(&back[1]) == 1);
    free(back);
    v1.record_size = 40; /* version 1 with another stride: refused */
    f = fopen(path, "w");
    fwrite(&v1, sizeof v1, 1, f);
    fwrite(r, 40, 2, f);
    fclose(f);
    back = NULL;
    CHECK(oplog_read(path, &g, &back, err, sizeof err) != 0 && strstr(err, "log format 1"));
    f = fopen(path, "w");
    fputs("{\"not\": \"a log\"}", f);
    fclose(f);
    CHECK(oplog_read(path, &g, &back, err, sizeof err) != 0 && strstr(err, "not a harness"));
    unlink(path);
    CHECK(oplog_read(path, &g, &back, err, sizeof err) != 0 && strstr(err, "missing"));
}

static void manifest(void) {
    char line[S3_MANIFEST_LINE + 1], key[S3_KEYLEN];
    struct s3_manifest_info mi = {
        .seed = 18446744073709551615ULL, .workers = 65536, .ops = 1190, .sums = 1};
    snprintf(mi.profile, sizeof mi.profile, "small");
    s3_manifest_header(line, &mi);
    CHECK(strlen(line) == S3_MANIFEST_LINE && line[S3_MANIFEST_LINE - 1] == '\n');
    struct s3_manifest_info back;
    CHECK(s3_manifest_parse_header(line, S3_MANIFEST_LINE, &back) == 0 && back.seed == mi.seed &&
          back.workers == 65536 && back.ops == 1190 && back.sums == 1 &&
          !strcmp(back.profile, "small"));
    s3_manifest_line(line, "full/w65535/50MiB/189", 52428800, 0xe3069283u);
    /* 21 characters of key padded to 73, a blank, the size in 12, a blank, 8 hex digits. */
    char want[S3_MANIFEST_LINE + 1];
    snprintf(want, sizeof want, "full/w65535/50MiB/189%52s %12s %s\n", "", "52428800", "e3069283");
    CHECKF(strlen(want) == S3_MANIFEST_LINE && !strcmp(line, want), "line '%s'", line);
    uint64_t size;
    uint32_t crc;
    CHECK(s3_manifest_parse_line(line, key, sizeof key, &size, &crc) == 0 && size == 52428800 &&
          crc == 0xe3069283u && !strcmp(key, "full/w65535/50MiB/189"));
}

static void answers(void) {
    /* The same rows in another order: the same answer; one value off: not. */
    struct db_answer a = {0}, b = {0}, c = {0};
    long long rows[3][2] = {{1, 10}, {2, 20}, {3, 30}};
    int order[3] = {2, 0, 1};
    for (int i = 0; i < 3; i++) {
        db_row_end(&a, db_cell_str(db_cell_int(db_row_begin(), rows[i][0]), "t", 1));
        int j = order[i];
        db_row_end(&b, db_cell_str(db_cell_int(db_row_begin(), rows[j][0]), "t", 1));
        db_row_end(&c, db_cell_str(db_cell_int(db_row_begin(), rows[i][0] + (i == 1)), "t", 1));
    }
    CHECK(a.rows == 3 && a.rows == b.rows && a.sum == b.sum);
    CHECK(c.rows == 3 && c.sum != a.sum);
    /* A column's value moved to its neighbour is another row. */
    struct db_answer d = {0}, e = {0};
    db_row_end(&d, db_cell_int(db_cell_int(db_row_begin(), 1), 2));
    db_row_end(&e, db_cell_int(db_cell_int(db_row_begin(), 2), 1));
    CHECK(d.sum != e.sum);
}

int main(void) {
    canon();
    dsse();
    reportable();
    oplog();
    manifest();
    answers();
    return unit_done("test_checks");
}
