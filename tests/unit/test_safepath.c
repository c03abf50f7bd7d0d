/* test_safepath.c -- common/safepath: names from a result opened inside
 * RUN_DIR only. Against a directory made here: what a forger would name
 * (absolute, "..", ".", empty components, control characters, too long), a
 * symlink as the file and as a directory on the way, a FIFO (refused at
 * once, never blocking), a directory, a file over the bound, a missing one;
 * and what is accepted reads right: its size, its sha256 against the
 * FIPS 180-2 example ("abc"), its JSON. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/safepath.h"
#include "unit.h"

static char dir[64];

static void put(const char *name, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int one_line(const char *s) {
    return s[0] && !strchr(s, '\n');
}

static void names(void) {
    char err[512];
    const char *good[] = {"ops.log", "runs/1/ops.log", "shards/shard-0.result.json",
                          ".hidden", "a..b",           "..a"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECKF(safepath_name_ok(good[i], err, sizeof err) == 0, "%s refused: %s", good[i], err);
    const char *bad[] = {"",    "/etc/passwd", "../x", "a/../b", "a/..", "..",  ".",
                         "./a", "a/./b",       "a//b", "a/",     "a\nb", "a\tb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECKF(safepath_name_ok(bad[i], err, sizeof err) != 0, "'%s' accepted", bad[i]);
        CHECKF(one_line(err), "'%s': the refusal is not one line: %s", bad[i], err);
    }
    CHECK(safepath_name_ok(NULL, err, sizeof err) != 0);
    char *longname = malloc(SAFEPATH_NAME_MAX + 2);
    memset(longname, 'a', SAFEPATH_NAME_MAX + 1);
    longname[SAFEPATH_NAME_MAX + 1] = 0;
    CHECK(safepath_name_ok(longname, err, sizeof err) != 0);
    longname[SAFEPATH_NAME_MAX] = 0;
    CHECK(safepath_name_ok(longname, err, sizeof err) == 0);
    free(longname);
    char out[16];
    CHECK(safepath_join("runs/1", "ops.log", out, sizeof out) == 0 &&
          !strcmp(out, "runs/1/ops.log"));
    CHECK(safepath_join("", "ops.log", out, sizeof out) == 0 && !strcmp(out, "ops.log"));
    CHECK(safepath_join("runs/10", "result.json", out, sizeof out) != 0); /* does not fit */
}

static void opening(void) {
    char err[512], p[256], q[256];
    uint64_t size = 0;
    put("abc", "abc");
    snprintf(p, sizeof p, "%s/sub", dir);
    CHECK(mkdir(p, 0700) == 0);
    put("sub/f.json", "{\"a\": [1, 2]}");
    int fd = safepath_open(dir, "abc", 100, &size, err, sizeof err);
    CHECKF(fd >= 0 && size == 3, "abc: fd %d size %llu: %s", fd, (unsigned long long)size, err);
    if (fd >= 0) {
        char buf[8];
        CHECK(read(fd, buf, sizeof buf) == 3 && !memcmp(buf, "abc", 3));
        CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK)); /* reads block again */
        close(fd);
    }
    CHECK(safepath_open(dir, "abc", 2, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    CHECK(strstr(err, "more than") != NULL);
    CHECK(safepath_open(dir, "nothing", 100, NULL, err, sizeof err) == SAFEPATH_MISSING);
    CHECK(safepath_open(dir, "sub", 100, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    CHECK(safepath_open(dir, "../etc/passwd", 1 << 20, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    CHECK(safepath_open(dir, "/etc/passwd", 1 << 20, NULL, err, sizeof err) == SAFEPATH_REFUSED);

    /* A symlink: as the file (even to a file inside), and as a directory. */
    snprintf(p, sizeof p, "%s/link", dir);
    CHECK(symlink("/etc/passwd", p) == 0);
    CHECK(safepath_open(dir, "link", 1 << 20, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    CHECKF(strstr(err, "symbolic link") && one_line(err), "%s", err);
    snprintf(p, sizeof p, "%s/inside", dir);
    CHECK(symlink("abc", p) == 0);
    CHECK(safepath_open(dir, "inside", 100, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    snprintf(p, sizeof p, "%s/dirlink", dir);
    CHECK(symlink("/etc", p) == 0);
    CHECK(safepath_open(dir, "dirlink/passwd", 1 << 20, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    snprintf(q, sizeof q, "%s/sublink", dir);
    CHECK(symlink("sub", q) == 0);
    CHECK(safepath_open(dir, "sublink/f.json", 100, NULL, err, sizeof err) == SAFEPATH_REFUSED);

    /* A FIFO with no writer: an open without O_NONBLOCK would wait forever. */
    snprintf(p, sizeof p, "%s/fifo", dir);
    CHECK(mkfifo(p, 0600) == 0);
    CHECK(safepath_open(dir, "fifo", 100, NULL, err, sizeof err) == SAFEPATH_REFUSED);
    CHECKF(strstr(err, "not a regular file") && one_line(err), "%s", err);

    char sha[65];
    CHECK(safepath_sha256(dir, "abc", sha, err, sizeof err) == 0);
    CHECKF(!strcmp(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s",
           sha);
    CHECK(safepath_sha256(dir, "fifo", sha, err, sizeof err) == SAFEPATH_REFUSED);
    CHECK(safepath_sha256(dir, "nothing", sha, err, sizeof err) == SAFEPATH_MISSING);

    int missing = 0;
    json_t *j = safepath_load_json(dir, "sub/f.json", &missing, err, sizeof err);
    CHECK(j && json_array_size(json_object_get(j, "a")) == 2 && !missing);
    json_decref(j);
    CHECK(!safepath_load_json(dir, "abc", &missing, err, sizeof err) && !missing && one_line(err));
    CHECK(!safepath_load_json(dir, "gone.json", &missing, err, sizeof err) && missing);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/aops-safepath.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    names();
    opening();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return unit_done("test_safepath");
}
