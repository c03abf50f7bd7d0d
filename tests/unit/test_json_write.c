/* test_json_write.c -- common/json's json_write_atomic, the one way a JSON
 * file (result.json, a merge's shards, the corpus manifest, the baseline,
 * prepare's record, the server pins) is written. Against a directory made
 * here: the file holds exactly what jansson's json_dumps gives for the same
 * flags; an existing file is replaced whole (a longer old one leaves no
 * tail, and a reader holding the old one open still reads the old one: a
 * rename, not a rewrite); the mode is fopen's (0666 less the umask) or the
 * one asked for; no temporary file is left after a success or after a
 * failure, whether it fails before the temporary exists (a parent that is a
 * regular file, which refuses root too) or after (jansson cannot encode the
 * value; the target is a directory, which no rename replaces); and a
 * symbolic link planted at the temporary name is neither followed nor
 * removed.
 * And json_load_bounded, the one way a file a command is handed is read: a
 * regular file under its bound loads; a missing one is ENOENT, a symbolic
 * link, a FIFO (which would block a plain open), a directory and a file one
 * byte over the bound are refused without reading, bad JSON is EBADMSG, and
 * each refusal names the path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/json.h"
#include "unit.h"

static char dir[64];

/* The whole file, NUL-terminated (caller frees), or NULL. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    size_t n = 0, cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (n + 2 > cap && !(s = realloc(s, cap = cap ? cap * 2 : 256)))
            break;
        s[n++] = (char)c;
    }
    fclose(f);
    if (s)
        s[n] = 0;
    else
        s = calloc(1, 1);
    *len = n;
    return s;
}

/* The names in dir other than . and .., one string "a,b,"; sorted. */
static void listing(char *out, size_t len) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
            snprintf(out + strlen(out), len - strlen(out), "%s,", ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
}

static json_t *sample(void) {
    return json_pack("{s:i, s:f, s:s, s:[i, i, {s:n}], s:b}", "schema_version", 2, "aops",
                     1234.5678901234, "note", "ünïcode \"quoted\"\n", "list", 1, 2, "k", "ok", 1);
}

static void content(void) {
    char path[128], ls[512];
    snprintf(path, sizeof path, "%s/result.json", dir);
    json_t *j = sample();
    size_t flags[] = {JSON_INDENT(2) | JSON_REAL_PRECISION(10), JSON_INDENT(2) | JSON_SORT_KEYS,
                      JSON_COMPACT, 0};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        CHECK(json_write_atomic(path, j, flags[i]) == 0);
        char *want = json_dumps(j, flags[i]), *got;
        size_t n;
        CHECK((got = slurp(path, &n)) != NULL);
        CHECKF(got && want && n == strlen(want) && !strcmp(got, want), "flags %zx: %s", flags[i],
               got ? got : "(none)");
        free(got);
        free(want);
        listing(ls, sizeof ls);
        CHECKF(!strcmp(ls, "result.json,"), "left: %s", ls);
    }
    json_decref(j);
}

static void replaced(void) {
    char path[128], ls[512];
    snprintf(path, sizeof path, "%s/old.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    for (int i = 0; i < 10000; i++)
        fputc('x', f);
    fclose(f);
    int old = open(path, O_RDONLY);
    struct stat before, after;
    CHECK(old >= 0 && fstat(old, &before) == 0);
    json_t *j = json_pack("{s:i}", "a", 1);
    CHECK(json_write_atomic(path, j, JSON_COMPACT) == 0);
    size_t n;
    char *got = slurp(path, &n);
    CHECKF(got && !strcmp(got, "{\"a\":1}"), "%s", got ? got : "(none)");
    free(got);
    CHECK(stat(path, &after) == 0 && after.st_ino != before.st_ino);
    char c[4] = "";
    CHECK(pread(old, c, 3, 0) == 3 && !memcmp(c, "xxx", 3)); /* the old file, untouched */
    close(old);
    mode_t um = umask(022);
    umask(um);
    CHECKF((after.st_mode & 0777) == (0666 & ~um), "mode %o", after.st_mode & 0777);
    CHECK(json_write_atomic_mode(path, j, JSON_COMPACT, 0600) == 0);
    CHECK(stat(path, &after) == 0 && (after.st_mode & 0777) == 0600);
    json_decref(j);
    unlink(path);
    listing(ls, sizeof ls);
    CHECKF(!strcmp(ls, "result.json,"), "left: %s", ls);
}

static void failures(void) {
    char path[128], ls[512], plain[128];
    json_t *j = sample();
    /* The parent is a regular file: ENOTDIR, for root too. */
    snprintf(plain, sizeof plain, "%s/plain", dir);
    FILE *f = fopen(plain, "w");
    CHECK(f && fclose(f) == 0);
    snprintf(path, sizeof path, "%s/result.json", plain);
    errno = 0;
    CHECK(json_write_atomic(path, j, JSON_INDENT(2)) == -1 && errno == ENOTDIR);
    unlink(plain);
    /* The temporary exists, then jansson refuses (a bare number without
     * JSON_ENCODE_ANY): -1 with an errno, and the temporary is gone. */
    snprintf(path, sizeof path, "%s/number.json", dir);
    json_t *num = json_integer(5);
    errno = 0;
    CHECK(json_write_atomic(path, num, 0) == -1 && errno != 0);
    CHECK(access(path, F_OK) != 0);
    json_decref(num);
    /* The target is a directory: the rename fails (EISDIR) after the
     * temporary was written; the directory stays, the temporary goes. */
    snprintf(path, sizeof path, "%s/adir", dir);
    CHECK(mkdir(path, 0755) == 0);
    errno = 0;
    CHECK(json_write_atomic(path, j, JSON_INDENT(2)) == -1 && errno == EISDIR);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(path);
    /* A name too long for the temporary's suffix. */
    char longp[5000];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = 0;
    memcpy(longp, dir, strlen(dir));
    longp[strlen(dir)] = '/';
    errno = 0;
    CHECK(json_write_atomic(longp, j, 0) == -1 && errno == ENAMETOOLONG);
    listing(ls, sizeof ls);
    CHECKF(!strcmp(ls, "result.json,"), "left: %s", ls);

    /* A symlink where the first temporary name would be: not followed (the
     * victim keeps its bytes), not removed (it is not ours); the next name
     * is used and the result is right. */
    char victim[128], link[256];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(path, sizeof path, "%s/pins.json", dir);
    snprintf(link, sizeof link, "%s.%ld.0.tmp", path, (long)gettid());
    f = fopen(victim, "w");
    CHECK(f && fputs("keep", f) >= 0 && fclose(f) == 0);
    CHECK(symlink(victim, link) == 0);
    CHECK(json_write_atomic(path, j, JSON_COMPACT) == 0);
    size_t n;
    char *got = slurp(victim, &n), *want = json_dumps(j, JSON_COMPACT);
    CHECK(got && !strcmp(got, "keep"));
    free(got);
    got = slurp(path, &n);
    CHECK(got && want && !strcmp(got, want));
    free(got);
    free(want);
    struct stat ln;
    CHECK(lstat(link, &ln) == 0 && S_ISLNK(ln.st_mode));
    unlink(link);
    unlink(victim);
    unlink(path);
    listing(ls, sizeof ls);
    CHECKF(!strcmp(ls, "result.json,"), "left: %s", ls);
    json_decref(j);
}

static void bounded(void) {
    char path[128], link[128], fifo[128], err[512];
    snprintf(path, sizeof path, "%s/in.json", dir);
    snprintf(link, sizeof link, "%s/in.link", dir);
    snprintf(fifo, sizeof fifo, "%s/in.fifo", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"a\": [1, 2, 3]}", f); /* 16 bytes */
    fclose(f);
    json_t *j = json_load_bounded(path, 16, 0, err, sizeof err);
    CHECK(j && json_array_size(json_object_get(j, "a")) == 3);
    json_decref(j);
    errno = 0;
    CHECK(!json_load_bounded(path, 15, 0, err, sizeof err) && errno == EINVAL);
    CHECKF(strstr(err, path) && strstr(err, "at most 15 bytes"), "%s", err);
    CHECK(symlink(path, link) == 0);
    CHECK(!json_load_bounded(link, 1 << 20, 0, err, sizeof err) && errno == ELOOP);
    CHECKF(strstr(err, "a symbolic link"), "%s", err);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!json_load_bounded(fifo, 1 << 20, 0, err, sizeof err) && errno == EINVAL); /* no hang */
    CHECKF(strstr(err, "at most 1 MiB"), "%s", err);
    CHECK(!json_load_bounded(dir, 1 << 20, 0, err, sizeof err) && errno == EINVAL);
    unlink(fifo);
    CHECK(!json_load_bounded(fifo, 1 << 20, 0, err, sizeof err) && errno == ENOENT);
    CHECKF(strstr(err, "not there"), "%s", err);
    f = fopen(path, "w");
    fputs("{\"a\": 1, \"a\": 2}", f);
    fclose(f);
    j = json_load_bounded(path, 1 << 20, 0, err, sizeof err); /* jansson keeps the last */
    CHECK(j && json_integer_value(json_object_get(j, "a")) == 2);
    json_decref(j);
    CHECK(!json_load_bounded(path, 1 << 20, JSON_REJECT_DUPLICATES, err, sizeof err) &&
          errno == EBADMSG);
    CHECKF(strstr(err, "duplicate"), "%s", err);
    unlink(link);
    unlink(path);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/aops-test-jw-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    content();
    replaced();
    failures();
    bounded();
    char path[128];
    snprintf(path, sizeof path, "%s/result.json", dir);
    unlink(path);
    CHECK(rmdir(dir) == 0); /* nothing else was left behind */
    return unit_done("test_json_write");
}
