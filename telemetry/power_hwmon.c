/* power_hwmon.c -- power meters the kernel exposes through hwmon, as two
 * rows of the source table (power.h): the platform's and the sockets'.
 *
 * Only drivers whose documentation says what they measure are read, and the
 * scope is the one their documentation gives: acpi_power_meter ("power_meter",
 * the ACPI 4.0 power meter device, the system's input power) is platform;
 * Ampere's SMpro ("smpro": the socket's core, SoC and DIMM rails), X-Gene's
 * ("apm_xgene": CPU and IO power) and AMD's HSMP ("amd_hsmp_hwmon": socket
 * power) are socket, summed over the sockets. Other hwmon power channels
 * (a GPU's, a drive's) are not the machine's and are left out.
 *
 * Files hold microwatts. power*_input is the instant reading; where only
 * power*_average is there (acpi_power_meter), power*_average_interval is the
 * device's averaging interval in milliseconds, recorded. Each file stays
 * open: a sample is one pread per channel. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "power.h"

static const struct hw_driver {
    const char *name; /* the hwmon device's name file */
    enum power_scope scope;
    const char *what;
} drivers[] = {
    {"power_meter", PSCOPE_PLATFORM, "ACPI power meter (acpi_power_meter)"},
    {"smpro", PSCOPE_SOCKET, "Ampere SMpro (smpro-hwmon)"},
    {"apm_xgene", PSCOPE_SOCKET, "X-Gene SoC (xgene-hwmon)"},
    {"amd_hsmp_hwmon", PSCOPE_SOCKET, "AMD HSMP socket power"},
};

#define HW_MAX_CHAN 64

struct hw_priv {
    int fd[HW_MAX_CHAN];
    char file[HW_MAX_CHAN][96]; /* hwmonN/powerK_input, for error messages */
    int n, ndev;
};

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sum of the channels in microwatts. */
static int hw_sum(struct hw_priv *h, double *uw, char *err, size_t errlen) {
    char buf[64];
    double sum = 0;
    for (int i = 0; i < h->n; i++) {
        ssize_t r = fs_pread_str(h->fd[i], buf, sizeof buf);
        char *end;
        double v = r > 0 ? strtod(buf, &end) : 0;
        if (r <= 0 || end == buf) {
            snprintf(err, errlen, "hwmon: reading %s: %s", h->file[i],
                     r < 0 ? strerror(errno) : "not a number");
            return -1;
        }
        sum += v;
    }
    *uw = sum;
    return 0;
}

static int hw_open(struct power_src *s, const struct power_env *env, enum power_scope scope) {
    char dir[PATH_MAX], path[PATH_MAX + 128], name[64];
    struct hw_priv *h = calloc(1, sizeof *h);
    s->scope = scope;
    snprintf(s->name, sizeof s->name, "%s", scope == PSCOPE_PLATFORM ? "hwmon" : "hwmon_socket");
    if (!h) {
        snprintf(s->reason, sizeof s->reason, "out of memory");
        return -1;
    }
    s->priv = h;
    const char *want = scope == PSCOPE_PLATFORM ? "ACPI power meter" : "socket power meter";
    if (!sysroot_path(dir, sizeof dir, env->sysroot, "/sys/class/hwmon"))
        return 1;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(s->reason, sizeof s->reason, "no %s (%s absent)", want, dir);
        return 1;
    }
    char *names[256];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256)
        if (!strncmp(e->d_name, "hwmon", 5) && (names[nn] = strdup(e->d_name)))
            nn++;
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], cmp_str);
    json_t *devs = json_array();
    double interval_ms = 0;
    for (int i = 0; i < nn; i++) {
        snprintf(path, sizeof path, "%s/%s/name", dir, names[i]);
        if (fs_read_str(path, name, sizeof name) < 0)
            continue;
        const struct hw_driver *drv = NULL;
        for (size_t k = 0; k < sizeof drivers / sizeof drivers[0]; k++)
            if (!strcmp(name, drivers[k].name) && drivers[k].scope == scope)
                drv = &drivers[k];
        if (!drv)
            continue;
        json_t *files = json_array();
        for (int ch = 1; ch <= 16 && h->n < HW_MAX_CHAN; ch++) {
            const char *kind = "input";
            snprintf(path, sizeof path, "%s/%s/power%d_input", dir, names[i], ch);
            if (access(path, F_OK) != 0) {
                kind = "average";
                snprintf(path, sizeof path, "%s/%s/power%d_average", dir, names[i], ch);
                if (access(path, F_OK) != 0)
                    continue;
                char ip[PATH_MAX + 128];
                uint64_t ms;
                snprintf(ip, sizeof ip, "%s/%s/power%d_average_interval", dir, names[i], ch);
                if (fs_read_u64(ip, &ms) == 0 && (double)ms > interval_ms)
                    interval_ms = (double)ms;
            }
            int fd = env->open_fn(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                snprintf(s->reason, sizeof s->reason, "hwmon %s (%s): cannot open %s: %s", name,
                         names[i], path, strerror(errno));
                json_decref(files);
                json_decref(devs);
                for (int k = 0; k < nn; k++)
                    free(names[k]);
                return -1;
            }
            h->fd[h->n] = fd;
            snprintf(h->file[h->n], sizeof h->file[0], "%s/power%d_%s", names[i], ch, kind);
            h->n++;
            char fname[32];
            snprintf(fname, sizeof fname, "power%d_%s", ch, kind);
            json_array_append_new(files, json_string(fname));
        }
        if (json_array_size(files)) {
            h->ndev++;
            json_array_append_new(devs, json_pack("{s:s, s:s, s:s, s:o}", "hwmon", names[i], "name",
                                                  name, "driver", drv->what, "files", files));
        } else {
            json_decref(files);
        }
    }
    for (int k = 0; k < nn; k++)
        free(names[k]);
    if (h->n == 0) {
        json_decref(devs);
        snprintf(s->reason, sizeof s->reason, "no %s under %s", want, dir);
        return 1;
    }
    s->detail = json_pack("{s:o}", "devices", devs);
    if (scope == PSCOPE_SOCKET)
        json_object_set_new(s->detail, "sockets", json_integer(h->ndev));
    if (interval_ms > 0) {
        s->device_interval_s = interval_ms / 1000.0;
        snprintf(s->device_interval_from, sizeof s->device_interval_from,
                 "power*_average_interval");
    }
    double uw;
    if (hw_sum(h, &uw, s->reason, sizeof s->reason) != 0)
        return -1;
    return 0;
}

static int hw_open_platform(struct power_src *s, const struct power_env *env) {
    return hw_open(s, env, PSCOPE_PLATFORM);
}

static int hw_open_socket(struct power_src *s, const struct power_env *env) {
    return hw_open(s, env, PSCOPE_SOCKET);
}

static int hw_read(struct power_src *s, double dt, double *watts, char *err, size_t errlen) {
    (void)dt;
    double uw;
    if (hw_sum(s->priv, &uw, err, errlen) != 0)
        return -1;
    *watts = uw / 1e6;
    return 0;
}

static void hw_close(struct power_src *s) {
    struct hw_priv *h = s->priv;
    for (int i = 0; h && i < h->n; i++)
        close(h->fd[i]);
    free(h);
    s->priv = NULL;
}

const struct power_src_ops power_src_hwmon_platform = {"hwmon", 0, hw_open_platform, hw_read,
                                                       hw_close};
const struct power_src_ops power_src_hwmon_socket = {"hwmon_socket", 0, hw_open_socket, hw_read,
                                                     hw_close};
