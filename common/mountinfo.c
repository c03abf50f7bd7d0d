/* mountinfo.c -- the mountinfo and /proc/PID/cgroup parsers (see mountinfo.h). */
#include "mountinfo.h"

#include <string.h>

/* \ooo escapes back to their bytes, in place. */
static void unescape(char *s) {
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

int mountinfo_next(FILE *f, struct mount_entry *e) {
    char line[3 * PATH_MAX];
    while (fgets(line, sizeof line, f)) {
        /* id parent major:minor root point options [optional...] - fstype source superoptions */
        if (sscanf(line, "%*s %*s %u:%u %4095s %4095s", &e->major, &e->minor, e->root, e->point) !=
            4)
            continue;
        const char *dash = strstr(line, " - ");
        e->source[0] = e->opts[0] = '\0';
        if (!dash || sscanf(dash + 3, "%63s %4095s %1023s", e->fstype, e->source, e->opts) < 1)
            continue;
        unescape(e->root);
        unescape(e->point);
        unescape(e->source);
        return 1;
    }
    return 0;
}

void proc_cgroup_path(const char *cgroup_file, const char *controller, char *out, size_t len) {
    char line[1024];
    snprintf(out, len, "/");
    FILE *f = fopen(cgroup_file, "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0; /* hierarchy-id:controllers:path */
        if (controller[0] ? list_has_word(c1 + 1, controller) : c1[1] == 0) {
            snprintf(out, len, "%s", c2 + 1);
            break;
        }
    }
    fclose(f);
}

int list_has_word(const char *list, const char *want) {
    size_t l = strlen(want);
    if (l == 0)
        return 0;
    for (const char *p = list; (p = strstr(p, want)); p += l)
        if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
            (p[l] == ',' || p[l] == ' ' || p[l] == '\0' || p[l] == '\n'))
            return 1;
    return 0;
}
