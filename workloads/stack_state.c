/* stack_state.c -- the local stack's record of its servers (see
 * stack_state.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "stack_state.h"

void stack_dir(const struct config *cfg, char *out, size_t len) {
    const char *env = getenv("AOPS_STACK_DIR");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char cred[4200];
    int must;
    config_credentials_path(cfg, cred, sizeof cred, &must);
    snprintf(out, len, "%s", dirname(cred));
}

static int addr_is_mine(const char *host) {
    unsigned char want[16];
    int fam = inet_pton(AF_INET, host, want) == 1    ? AF_INET
              : inet_pton(AF_INET6, host, want) == 1 ? AF_INET6
                                                     : 0;
    if (!fam)
        return 0;
    if ((fam == AF_INET && want[0] == 127) ||
        (fam == AF_INET6 && IN6_IS_ADDR_LOOPBACK((struct in6_addr *)want)))
        return 1;
    struct ifaddrs *ifs, *i;
    int mine = 0;
    if (getifaddrs(&ifs) != 0)
        return 0;
    for (i = ifs; i && !mine; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != fam)
            continue;
        const void *a = fam == AF_INET
                            ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
                            : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
        mine = memcmp(a, want, fam == AF_INET ? 4 : 16) == 0;
    }
    freeifaddrs(ifs);
    return mine;
}

int host_is_local(const char *host) {
    char h[256], me[256];
    snprintf(h, sizeof h, "%s", host);
    if (h[0] == '[') { /* [::1] */
        memmove(h, h + 1, strlen(h));
        h[strcspn(h, "]")] = 0;
    }
    if (!h[0] || !strcasecmp(h, "localhost") || addr_is_mine(h))
        return 1;
    return gethostname(me, sizeof me) == 0 && !strcasecmp(h, me);
}

/* "aops-stack-minio-9000" -> 9000; 0 when the name carries no port. */
static unsigned port_of(const char *cgdir) {
    const char *slash = strrchr(cgdir, '/'), *dash = strrchr(cgdir, '-');
    if (!dash || (slash && dash < slash) || !isdigit((unsigned char)dash[1]))
        return 0;
    return (unsigned)strtoul(dash + 1, NULL, 10);
}

static void read_line(const char *dir, const char *name, char *out, size_t len) {
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    out[0] = 0;
    if (fs_read_str(p, out, len) < 0)
        out[0] = 0;
}

int stack_server_locate(const struct config *cfg, const char *server, const char *pidfile,
                        const char *host, unsigned port, struct wl_server *out) {
    char sd[4200], dir[4400], why[512];
    struct stat st;
    memset(out, 0, sizeof *out);
    if (host && !host_is_local(host)) {
        snprintf(out->unavailable, sizeof out->unavailable, "not on this host (%s)", host);
        return -1;
    }
    stack_dir(cfg, sd, sizeof sd);
    snprintf(dir, sizeof dir, "%s/%s", sd, server);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(out->unavailable, sizeof out->unavailable,
                 "on this host but not started by scripts/stack (no state in %s): pass "
                 "--server-cgroup %s=PATH or --server-pid %s=PID",
                 dir, server, server);
        return -1;
    }
    read_line(dir, "cgroup", out->cgroup, sizeof out->cgroup);
    unsigned theirs = out->cgroup[0] ? port_of(out->cgroup) : 0;
    if (port && theirs && theirs != port) {
        snprintf(out->unavailable, sizeof out->unavailable,
                 "the local stack's %s (%s) serves port %u, this run uses %u: pass "
                 "--server-cgroup %s=PATH or --server-pid %s=PID",
                 server, dir, theirs, port, server, server);
        out->cgroup[0] = 0;
        return -1;
    }
    if (out->cgroup[0]) {
        read_line(dir, "perf_cgroup", out->perf_cgroup, sizeof out->perf_cgroup);
        snprintf(out->source, sizeof out->source, "scripts/stack state in %s", dir);
        return 0;
    }
    read_line(dir, "cgroup.unavailable", why, sizeof why);
    char pid[32];
    read_line(dir, pidfile, pid, sizeof pid);
    int p = atoi(pid);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/%d", p);
    if (p > 0 && stat(proc, &st) == 0) {
        out->pid = p;
        snprintf(out->source, sizeof out->source, "pid %d from %s/%s (no cgroup: %s)", p, dir,
                 pidfile, why[0] ? why : "none recorded");
        return 0;
    }
    snprintf(out->unavailable, sizeof out->unavailable,
             "scripts/stack state in %s names no cgroup (%s) and no live pid", dir,
             why[0] ? why : "none recorded");
    return -1;
}
