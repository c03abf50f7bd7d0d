/* s3_info.c -- what serves the s3 workload, asked once before a run and
 * never in the measured path: the inventory's one-line backend name and
 * result.json's provenance.servers.s3 (the server's version and its drive
 * and erasure layout), and where its data lives for the storage telemetry.
 *
 * Both come from MinIO's admin info API (/minio/admin/v3/info, SigV4 with
 * the run's keys; the local stack's keys are MinIO's root user). A MinIO
 * built with `go install` -- the project's -- calls itself
 * "DEVELOPMENT.GOGET" there, so when the endpoint is the local stack's the
 * version is the module version scripts/stack recorded from the pinned
 * build. Any other S3 store is named by its Server header, its layout
 * unknown, and the result says why. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fsread.h"
#include "s3_util.h"
#include "stack_state.h"
#include "workload.h"

struct grow {
    char buf[1 << 18]; /* the info of a few servers with 16 drives each fits */
    size_t len;
    char server[128]; /* the Server header */
};

static size_t grow_body(char *p, size_t sz, size_t n, void *ud) {
    struct grow *g = ud;
    size_t len = sz * n, room = sizeof g->buf - 1 - g->len;
    memcpy(g->buf + g->len, p, len < room ? len : room);
    g->len += len < room ? len : room;
    return len;
}

static size_t grow_header(char *p, size_t sz, size_t n, void *ud) {
    struct grow *g = ud;
    size_t len = sz * n;
    if (len > 8 && !strncasecmp(p, "Server: ", 8))
        snprintf(g->server, sizeof g->server, "%.*s", (int)(len - 8), p + 8);
    g->server[strcspn(g->server, "\r\n")] = 0;
    return len;
}

/* GET the admin info. *info: the parsed body (NULL unless HTTP 200 with
 * JSON); server: the Server header or "". 0 when the endpoint answered at
 * all, -1 with err set when it did not. */
int s3_admin_info(const struct config *cfg, json_t **info, char *server, size_t slen, long *status,
                  char *err, size_t errlen) {
    *info = NULL;
    server[0] = 0;
    *status = 0;
    if (s3_check_config(cfg, err, errlen) < 0)
        return -1;
    CURL *h = curl_easy_init();
    struct curl_slist *hdr = s3_get_headers();
    struct grow *g = calloc(1, sizeof *g);
    char url[S3_URLLEN];
    int rc = -1;
    if (!h || !hdr || !g) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    snprintf(url, sizeof url, "%s/minio/admin/v3/info", s3_opts(cfg)->endpoint);
    s3_easy_setup(h, cfg);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, grow_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, g);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, grow_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, g);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
    if (curl_easy_perform(h) != CURLE_OK) {
        snprintf(err, errlen, "S3 endpoint did not answer");
        goto done;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    g->buf[g->len] = 0;
    if (*status == 200)
        *info = json_loads(g->buf, 0, NULL);
    snprintf(server, slen, "%s", g->server);
    rc = 0;
done:
    curl_slist_free_all(hdr);
    if (h)
        curl_easy_cleanup(h);
    free(g);
    return rc;
}

/* For the inventory: MinIO's admin info names its version when the keys may
 * read it; any other store is named by its Server header. */
int s3_server_version(const struct config *cfg, char *out, size_t len) {
    json_t *info;
    char server[128];
    long status;
    if (s3_admin_info(cfg, &info, server, sizeof server, &status, out, len) < 0)
        return -1;
    const char *v = json_string_value(
        json_object_get(json_array_get(json_object_get(info, "servers"), 0), "version"));
    int rc = v || server[0] ? 0 : -1;
    if (v)
        snprintf(out, len, "%s %s", server[0] ? server : "MinIO", v);
    else if (server[0])
        snprintf(out, len, "%s (version not disclosed)", server);
    else
        snprintf(out, len, "the S3 endpoint names neither product nor version");
    json_decref(info);
    return rc;
}

/* A member's copy, or null when absent (json_copy(NULL) is NULL, which
 * json_object_set_new would drop, leaving no key at all). */
static json_t *copy_or_null(const json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return v ? json_copy(v) : json_null();
}

json_t *s3_layout_json(const json_t *info) {
    const json_t *backend = json_object_get(info, "backend");
    const json_t *servers = json_object_get(info, "servers");
    json_t *out = json_object(), *paths = json_array(), *per_set = json_array();
    size_t i, j, ndrives = 0;
    json_t *s, *d, *v;
    json_array_foreach(servers, i, s) {
        json_array_foreach(json_object_get(s, "drives"), j, d) {
            const char *p = json_string_value(json_object_get(d, "endpoint"));
            json_array_append_new(paths, p ? json_string(p) : json_null());
            ndrives++;
        }
    }
    json_int_t sets = 0;
    json_array_foreach(json_object_get(backend, "totalSets"), i, v) sets += json_integer_value(v);
    json_array_foreach(json_object_get(backend, "totalDrivesPerSet"), i, v)
        json_array_append_new(per_set, json_integer(json_integer_value(v)));
    /* One set size when every pool's sets have the same (MinIO's rule within a pool). */
    json_int_t set_size = json_integer_value(json_array_get(per_set, 0));
    json_array_foreach(per_set, i, v) if (json_integer_value(v) != set_size) set_size = 0;

    json_object_set_new(out, "mode", copy_or_null(info, "mode"));
    json_object_set_new(out, "backend_type", copy_or_null(backend, "backendType"));
    json_object_set_new(out, "layout", json_string(ndrives > 1 ? "erasure" : "single drive"));
    json_object_set_new(out, "servers", json_integer((json_int_t)json_array_size(servers)));
    json_object_set_new(out, "drives", json_integer((json_int_t)ndrives));
    json_object_set_new(out, "online_drives", copy_or_null(backend, "onlineDisks"));
    json_object_set_new(out, "offline_drives", copy_or_null(backend, "offlineDisks"));
    json_object_set_new(out, "sets", json_integer(sets));
    json_object_set_new(out, "set_size", set_size > 0 ? json_integer(set_size) : json_null());
    json_object_set_new(out, "drives_per_set", per_set);
    json_object_set_new(out, "parity", copy_or_null(backend, "standardSCParity"));
    json_object_set_new(out, "rr_parity", copy_or_null(backend, "rrSCParity"));
    json_object_set_new(out, "drive_paths", paths);
    return out;
}

/* Host and port of an endpoint URL ("http://[::1]:9000/x" -> "::1", 9000). */
static void endpoint_host(const char *url, char *host, size_t len, unsigned *port) {
    const char *p = strstr(url, "://");
    *port = strncmp(url, "https", 5) == 0 ? 443 : 80;
    p = p ? p + 3 : url;
    const char *at = strpbrk(p, "@/"); /* user@host */
    if (at && *at == '@')
        p = at + 1;
    size_t n;
    if (*p == '[') {
        n = strcspn(++p, "]");
        snprintf(host, len, "%.*s", (int)n, p);
        p += n + (p[n] == ']');
    } else {
        n = strcspn(p, ":/");
        snprintf(host, len, "%.*s", (int)n, p);
        p += n;
    }
    if (*p == ':')
        *port = (unsigned)strtoul(p + 1, NULL, 10);
}

/* The MinIO the local stack started, when this run's endpoint is it. */
int s3_server_locate(const struct config *cfg, struct wl_server *out) {
    char host[256];
    unsigned port;
    endpoint_host(s3_opts(cfg)->endpoint, host, sizeof host, &port);
    return stack_server_locate(cfg, "minio", "minio.pid", host, port, out);
}

/* provenance.servers.s3 */
json_t *s3_server_info(const struct config *cfg) {
    json_t *info, *out;
    char server[128], err[512];
    long status;
    if (s3_admin_info(cfg, &info, server, sizeof server, &status, err, sizeof err) < 0)
        return json_pack("{s:n, s:n, s:s}", "product", "version", "unavailable", err);
    const char *own = json_string_value(
        json_object_get(json_array_get(json_object_get(info, "servers"), 0), "version"));
    if (!info) {
        snprintf(err, sizeof err,
                 "the admin info API answered HTTP %ld: version and drive layout unknown (not "
                 "MinIO, or keys without admin rights)",
                 status);
        return json_pack("{s:o, s:n, s:s}", "product",
                         server[0] ? json_string(server) : json_null(), "version", "unavailable",
                         err);
    }
    out = s3_layout_json(info);
    json_object_set_new(out, "product", json_string(server[0] ? server : "MinIO"));
    json_object_set_new(out, "server_version", own ? json_string(own) : json_null());

    /* The local stack's MinIO: the module version of the pinned build. */
    char ver[128] = "", sd[4200], path[4300];
    struct wl_server srv;
    if (s3_server_locate(cfg, &srv) == 0) {
        stack_dir(cfg, sd, sizeof sd);
        snprintf(path, sizeof path, "%s/minio/version", sd);
        if (fs_read_str(path, ver, sizeof ver) < 0)
            ver[0] = 0;
        ver[strcspn(ver, "\r\n")] = 0;
    }
    if (ver[0] && (!own || !strncmp(own, "DEVELOPMENT", 11))) {
        json_object_set_new(out, "version", json_string(ver));
        json_object_set_new(out, "version_source", json_pack("s+", "scripts/stack: ", path));
    } else {
        json_object_set_new(out, "version", own ? json_string(own) : json_null());
        json_object_set_new(out, "version_source", json_string("MinIO admin info API"));
        if (!own) /* the reason beside the null */
            json_object_set_new(out, "unavailable",
                                json_string("MinIO's admin info named no version for its first "
                                            "server, and the stack recorded none"));
    }
    json_decref(info);
    return out;
}

/* The MinIO of the local stack keeps its objects on the drives scripts/stack
 * recorded (<stack dir>/minio/drives, one path a line, while it runs), else
 * in .local/stack/minio. */
int s3_data_paths(const struct config *cfg, const char *names[], char paths[][4096], int max) {
    char sd[4200], file[4300];
    int n = 0;
    stack_dir(cfg, sd, sizeof sd);
    snprintf(file, sizeof file, "%s/minio/drives", sd);
    FILE *f = fopen(file, "re");
    char line[4096];
    while (f && n < max && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0])
            continue;
        names[n] = "minio";
        snprintf(paths[n++], 4096, "%s", line);
    }
    if (f)
        fclose(f);
    if (n == 0 && max > 0) {
        names[0] = "minio";
        snprintf(paths[0], 4096, "%s/.local/stack/minio", cfg->harness_dir);
        n = 1;
    }
    return n;
}
