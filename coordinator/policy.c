/* policy.c -- --cache and --phase-barrier (see policy.h). */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"
#include "../workloads/workload.h"

#define DROP_CACHES "/proc/sys/vm/drop_caches"

int policy_check(const struct config *cfg, char *err, size_t errlen) {
    if (cfg->phase_barrier && cfg->schedule != SCHED_PHASED) {
        snprintf(err, errlen,
                 "--phase-barrier separates the phases of --schedule phased; an interleaved "
                 "schedule has none");
        return -1;
    }
    if (cfg->cache != CACHE_COLD)
        return 0;
    if (cfg->warmup_cycles) {
        snprintf(err, errlen,
                 "--cache cold drops what --warmup-cycles warms: choose one (cold, or warm with "
                 "--cache asis)");
        return -1;
    }
    int fd = open(DROP_CACHES, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--cache cold needs root to drop the page cache (%s: %s)",
                 DROP_CACHES, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

json_t *policy_cold_servers(const struct config *cfg, json_t *warnings) {
    if (cfg->cache != CACHE_COLD)
        return NULL;
    json_t *servers = json_object();
    for (int i = 0; workload_table[i]; i++) {
        const struct workload *w = workload_table[i];
        if (!(cfg->wl_mask >> i & 1) || !w->cold_start)
            continue;
        char note[512] = "";
        int64_t t = now_ns();
        int rc = w->cold_start(cfg, note, sizeof note);
        json_object_set_new(servers, w->name,
                            json_pack("{s:s, s:s, s:f}", "status",
                                      rc == 0   ? "restarted"
                                      : rc == 1 ? "not restarted"
                                                : "failed",
                                      "note", note, "seconds", (double)(now_ns() - t) / 1e9));
        if (rc != 0 && warnings)
            json_array_append_new(
                warnings, json_sprintf("--cache cold: %s's server %s: %s (its own cache "
                                       "may be warm)",
                                       w->name, rc == 1 ? "not restarted" : "failed", note));
    }
    return json_pack("{s:o, s:b}", "servers", servers, "page_cache_dropped", 0);
}

int policy_drop_caches(const struct config *cfg, json_t *cold, char *err, size_t errlen) {
    if (cfg->cache != CACHE_COLD || !cold)
        return 0;
    int64_t t = now_ns();
    sync();
    int fd = open(DROP_CACHES, O_WRONLY | O_CLOEXEC);
    int ok = fd >= 0 && write(fd, "3\n", 2) == 2;
    int e = errno;
    if (fd >= 0)
        close(fd);
    json_object_set_new(cold, "page_cache_dropped", json_boolean(ok));
    json_object_set_new(cold, "drop_seconds", json_real((double)(now_ns() - t) / 1e9));
    if (ok)
        return 0;
    snprintf(err, errlen, "--cache cold: cannot drop the page cache (%s: %s)", DROP_CACHES,
             strerror(e));
    return -1;
}
