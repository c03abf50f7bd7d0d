/* capacity_run.c -- one run of `harness capacity` (see capacity_run.h). */
#include "capacity_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "../coordinator/commands.h"
#include "../result/results.h"

void cap_mkdirs(const char *dir) {
    char p[4200];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

void cap_log_begin(struct cap_log *l, const char *path) {
    fflush(stdout);
    fflush(stderr);
    l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    l->so = dup(STDOUT_FILENO);
    l->se = dup(STDERR_FILENO);
    if (l->fd >= 0 && l->so >= 0 && l->se >= 0) {
        dup2(l->fd, STDOUT_FILENO);
        dup2(l->fd, STDERR_FILENO);
    }
}

void cap_log_end(struct cap_log *l) {
    fflush(stdout);
    fflush(stderr);
    if (l->so >= 0)
        dup2(l->so, STDOUT_FILENO), close(l->so);
    if (l->se >= 0)
        dup2(l->se, STDERR_FILENO), close(l->se);
    if (l->fd >= 0)
        close(l->fd);
}

int cap_run(const struct cap_runner *r, unsigned n, unsigned k, const char *rel,
            const char *const *extra, int nextra) {
    char dir[4200], log[4300], nbuf[16], kbuf[16];
    snprintf(dir, sizeof dir, "%s/%s", r->out, rel);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(nbuf, sizeof nbuf, "%u", n);
    snprintf(kbuf, sizeof kbuf, "%u", k);
    char **av = calloc((size_t)r->nfwd + (size_t)nextra + 8, sizeof *av);
    if (!av)
        return 1;
    int ac = 0;
    av[ac++] = "run";
    for (int i = 0; i < r->nfwd; i++)
        av[ac++] = r->fwd[i];
    for (int i = 0; i < nextra; i++)
        av[ac++] = (char *)extra[i];
    av[ac++] = "--containers", av[ac++] = nbuf, av[ac++] = "--out", av[ac++] = dir;
    if (k > 1)
        av[ac++] = "--repeat", av[ac++] = kbuf;
    char parent[4200];
    snprintf(parent, sizeof parent, "%s", dir);
    *strrchr(parent, '/') = 0; /* dir is out/<rel>: it has one */
    cap_mkdirs(parent);
    struct cap_log l;
    cap_log_begin(&l, log);
    int rc = run_main(ac, av, r->ex);
    cap_log_end(&l);
    free(av);
    return rc;
}

/* A reason of the configuration's own: directly, or a merged fleet's
 * "shard I (host) is invalid: R1; R2" whose every Ri is one. */
static int of_config(const char *r) {
    const char *m = r ? strstr(r, ") is invalid: ") : NULL;
    if (!r || strncmp(r, "shard ", 6) || !m)
        return results_reason_of_config(r);
    for (const char *p = m + 14; *p;) {
        const char *e = strstr(p, "; ");
        if (!results_reason_of_config(p))
            return 0;
        if (!e)
            break;
        p = e + 2;
    }
    return 1;
}

const char *cap_broken(const json_t *res) {
    if (json_is_true(json_object_get(res, "valid")))
        return NULL;
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(res, "invalid_reasons"), i, r) {
        if (!of_config(json_string_value(r)))
            return json_string_value(r) ? json_string_value(r) : "invalid";
    }
    return NULL;
}
