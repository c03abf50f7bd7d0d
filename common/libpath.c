/* libpath.c -- the loaded shared objects, through dl_iterate_phdr (see
 * libpath.h). */
#include "libpath.h"

#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct want {
    const char *soname;
    char *out;
    size_t len;
    int found;
};

static int one(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    struct want *w = arg;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    if (!base || strncmp(base, w->soname, strlen(w->soname)))
        return 0;
    char real[PATH_MAX];
    snprintf(w->out, w->len, "%s", realpath(name, real) ? real : name);
    w->found = 1;
    return 1;
}

int libpath_loaded(const char *soname, char *out, size_t len) {
    struct want w = {soname, out, len, 0};
    dl_iterate_phdr(one, &w);
    return w.found ? 0 : -1;
}
