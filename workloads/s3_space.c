/* s3_space.c -- what `harness prepare` will put into the S3 store and how
 * much room the store has for it, asked before the first byte is written
 * (the descriptor's plan hook; coordinator/prepare_plan.c adds it up,
 * prints it and refuses a prepare that cannot fit).
 *
 * The objects are the profile's set per data worker (one with --dataset
 * shared); an earlier prepare's objects manifest, when it was made for the
 * same profile, seed and objects per worker, says how many workers' sets
 * are there already (prepare skips those). The erasure layout comes from
 * MinIO's admin info (backend.standardSCParity over the set size, as
 * provenance.servers.s3 reads it): each byte costs (data + parity) / data
 * on the drives. The room: for the local stack's MinIO, statvfs of the
 * drives scripts/stack recorded; for another endpoint, the drives' free
 * space in the same admin info, when the keys may read it. MinIO spreads
 * every object over all drives of a set alike, so the drive with the least
 * room bounds the rest: the raw room is that drive's free space times the
 * number of drives (drives sharing one filesystem share its room). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "s3_util.h"
#include "stack_state.h"
#include "workload.h"

#define MAX_DRIVES 64

int s3_admin_space(const json_t *info, unsigned *data, unsigned *parity, unsigned *drives,
                   double *free_raw) {
    const json_t *backend = json_object_get(info, "backend");
    json_int_t set =
        json_integer_value(json_array_get(json_object_get(backend, "totalDrivesPerSet"), 0));
    json_int_t par = json_integer_value(json_object_get(backend, "standardSCParity"));
    size_t i, j, n = 0;
    double least = -1;
    json_t *s, *d;
    json_array_foreach(json_object_get(info, "servers"), i, s) {
        json_array_foreach(json_object_get(s, "drives"), j, d) {
            json_t *a = json_object_get(d, "availspace");
            /* A negative figure is no room, not a sign to flip. */
            double v =
                json_is_integer(a) && json_integer_value(a) > 0 ? (double)json_integer_value(a) : 0;
            n++;
            if (json_is_integer(a) && (least < 0 || v < least))
                least = v;
        }
    }
    if (n == 0)
        return -1;
    if (set <= 0)
        set = (json_int_t)n;
    if (par < 0 || par * 2 > set)
        return -1;
    *data = (unsigned)(set - par);
    *parity = (unsigned)par;
    *drives = (unsigned)n;
    *free_raw = least < 0 ? -1 : least * (double)n;
    return 0;
}

/* The local stack's drives: statvfs of each, the least room per drive (a
 * filesystem holding k of them gives each 1/k of its room) times their
 * count. 0, or -1 with why set. */
static int local_room(const struct config *cfg, double *raw, unsigned *ndrives, char *src,
                      size_t len) {
    const char *names[MAX_DRIVES];
    char(*paths)[4096] = malloc(MAX_DRIVES * sizeof *paths); /* 256 KiB: off the stack */
    if (!paths) {
        snprintf(src, len, "out of memory: the space could not be checked");
        return -1;
    }
    int n = s3_data_paths(cfg, names, paths, MAX_DRIVES);
    struct stat st[MAX_DRIVES];
    double avail[MAX_DRIVES], least = -1;
    for (int i = 0; i < n; i++) {
        struct statvfs v;
        if (statvfs(paths[i], &v) != 0 || stat(paths[i], &st[i]) != 0) {
            snprintf(src, len, "statvfs of %s failed: the space could not be checked", paths[i]);
            free(paths);
            return -1;
        }
        avail[i] = (double)v.f_bavail * (double)v.f_frsize;
    }
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < n; j++)
            k += st[j].st_dev == st[i].st_dev;
        double share = avail[i] / k;
        if (least < 0 || share < least)
            least = share;
    }
    *raw = least * n;
    *ndrives = (unsigned)n;
    snprintf(src, len, "statvfs of the local stack's %d drive%s (%s%s)", n, n == 1 ? "" : "s",
             paths[0], n > 1 ? ", ..." : "");
    free(paths);
    return 0;
}

int s3_local_room(const struct config *cfg, double *raw) {
    struct wl_server srv;
    unsigned n;
    char why[512];
    if (s3_server_locate(cfg, &srv) != 0)
        return -1;
    return local_room(cfg, raw, &n, why, sizeof why);
}

int s3_plan(const struct config *cfg, struct wl_plan *out, char *err, size_t errlen) {
    (void)err, (void)errlen;
    const struct s3_opts *o = s3_opts(cfg);
    unsigned ndw = o->dataset == DATASET_SHARED ? 1 : cfg->n;
    double per = (double)s3_worker_bytes(cfg->profile);
    memset(out, 0, sizeof *out);
    out->items = (uint64_t)ndw * S3_OPS;
    out->unit = "objects";
    out->bytes = per * ndw;
    out->writes = 1;
    out->data_shards = 1;
    snprintf(out->where, sizeof out->where, "into MinIO at %s, bucket '%s'", o->endpoint,
             o->bucket);
    char cls[S3_NCLASSES][32];
    for (int c = 0; c < S3_NCLASSES; c++) {
        uint64_t b = s3_class_size(cfg->profile, c);
        snprintf(cls[c], sizeof cls[c], "%u x %llu %s", s3_class_count(c),
                 (unsigned long long)(b >= 1 << 20 ? b >> 20 : b >> 10),
                 b >= 1 << 20 ? "MiB" : "KiB");
    }
    snprintf(out->detail, sizeof out->detail, "%u set%s of %s, %s, %s", ndw, ndw == 1 ? "" : "s",
             cls[0], cls[1], cls[2]);
    if (s3_check_config(cfg, out->space_src, sizeof out->space_src) < 0)
        return 0; /* prepare itself says it in its own line */

    /* What an earlier prepare of this data set left (the header line only). */
    char *d = NULL, why[512];
    size_t n = 0;
    struct s3_manifest_info mi;
    if (s3_manifest_get(cfg, 0, S3_MANIFEST_LINE, &d, &n, why, sizeof why) == 0 &&
        s3_manifest_parse_header(d, n, &mi) == 0 &&
        !strcmp(mi.profile, profile_name(cfg->profile)) && mi.seed == cfg->seed && mi.ops == S3_OPS)
        out->present = per * (mi.workers < ndw ? mi.workers : ndw);
    free(d);

    json_t *info;
    char server[128];
    long status;
    unsigned drives = 0;
    double admin_free = -1;
    if (s3_admin_info(cfg, &info, server, sizeof server, &status, why, sizeof why) < 0) {
        snprintf(out->space_src, sizeof out->space_src, "%s", why);
        return 0;
    }
    if (!info ||
        s3_admin_space(info, &out->data_shards, &out->parity_shards, &drives, &admin_free) < 0) {
        snprintf(out->space_src, sizeof out->space_src,
                 "the admin info API answered HTTP %ld without a drive layout (not MinIO, or "
                 "keys without admin rights)",
                 status);
        out->data_shards = 1, out->parity_shards = 0;
        json_decref(info);
        return 0;
    }
    json_decref(info);
    if (out->parity_shards)
        snprintf(out->layout, sizeof out->layout,
                 "%u drives, EC:%u, each object as %u data + %u parity shards (MinIO admin info)",
                 drives, out->parity_shards, out->data_shards, out->parity_shards);
    else
        snprintf(out->layout, sizeof out->layout, "%u drive%s, no parity (MinIO admin info)",
                 drives, drives == 1 ? "" : "s");

    struct wl_server srv;
    unsigned local_drives = 0;
    (void)local_drives;
    if (s3_server_locate(cfg, &srv) == 0) {
        if (local_room(cfg, &out->free_bytes, &local_drives, out->space_src,
                       sizeof out->space_src) == 0)
            out->space_known = 1;
    } else if (admin_free >= 0) {
        out->free_bytes = admin_free;
        out->space_known = 1;
        snprintf(out->space_src, sizeof out->space_src,
                 "MinIO admin info: the least free drive's availspace x %u drive%s", drives,
                 drives == 1 ? "" : "s");
    } else
        snprintf(out->space_src, sizeof out->space_src,
                 "MinIO's admin info gives no drive free space");
    return 0;
}
