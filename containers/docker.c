/* docker.c -- the Docker Engine API client (see docker.h). One libcurl easy
 * handle, reused for every request so the socket's connection stays open. */
#include "docker.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"

#define API "/v1.41"

struct docker {
    CURL *h;
    char socket[512];
    char version[64];
    struct buf body; /* the response body */
    char curlerr[CURL_ERROR_SIZE];
};

/* The engine's own words for an error body: {"message": "..."}. */
static void engine_message(const json_t *body, long status, char *err, size_t errlen) {
    const char *m = json_string_value(json_object_get(body, "message"));
    snprintf(err, errlen, "Docker engine answered %ld: %s", status, m ? m : "(no message)");
}

long docker_request(struct docker *d, const char *method, const char *path, const json_t *body,
                    json_t **out, char *err, size_t errlen) {
    char url[2048];
    snprintf(url, sizeof url, "http://docker" API "%s", path);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct curl_slist *hdr =
        body ? curl_slist_append(NULL, "Content-Type: application/json") : NULL;
    buf_reset(&d->body);
    d->curlerr[0] = 0;
    curl_easy_setopt(d->h, CURLOPT_URL, url);
    curl_easy_setopt(d->h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(d->h, CURLOPT_HTTPHEADER, hdr);
    if (text) {
        curl_easy_setopt(d->h, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(d->h, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
    } else if (!strcmp(method, "POST")) {
        curl_easy_setopt(d->h, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(d->h, CURLOPT_POSTFIELDSIZE, 0L);
    } else {
        curl_easy_setopt(d->h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(d->h, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode cc = curl_easy_perform(d->h);
    free(text);
    curl_slist_free_all(hdr);
    curl_easy_setopt(d->h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(d->h, CURLOPT_POSTFIELDS, NULL);
    if (out)
        *out = NULL;
    if (cc != CURLE_OK) {
        snprintf(err, errlen,
                 "cannot reach the Docker engine at %s: %s (is dockerd running? scripts/docker "
                 "up)",
                 d->socket, d->curlerr[0] ? d->curlerr : curl_easy_strerror(cc));
        return 0;
    }
    long status = 0;
    curl_easy_getinfo(d->h, CURLINFO_RESPONSE_CODE, &status);
    json_t *j = d->body.len ? json_loads(d->body.p, 0, NULL) : NULL;
    if (status >= 300)
        engine_message(j, status, err, errlen);
    if (out)
        *out = j;
    else
        json_decref(j);
    return status;
}

struct docker *docker_open(const char *socket_path, char *err, size_t errlen) {
    struct docker *d = calloc(1, sizeof *d);
    if (!d || !(d->h = curl_easy_init())) {
        snprintf(err, errlen, "out of memory");
        free(d);
        return NULL;
    }
    snprintf(d->socket, sizeof d->socket, "%s", socket_path);
    curl_easy_setopt(d->h, CURLOPT_UNIX_SOCKET_PATH, d->socket);
    /* no memory for the body: libcurl stops with a write error */
    curl_easy_setopt(d->h, CURLOPT_WRITEFUNCTION, buf_curl_write);
    curl_easy_setopt(d->h, CURLOPT_WRITEDATA, &d->body);
    curl_easy_setopt(d->h, CURLOPT_ERRORBUFFER, d->curlerr);
    curl_easy_setopt(d->h, CURLOPT_NOSIGNAL, 1L);
    /* Creating a container can take seconds on a loaded engine; none takes minutes. */
    curl_easy_setopt(d->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(d->h, CURLOPT_TIMEOUT_MS, 120000L);
    json_t *v = NULL;
    long st = docker_request(d, "GET", "/version", NULL, &v, err, errlen);
    if (st != 200) {
        if (st)
            snprintf(err, errlen, "the Docker engine at %s did not answer /version (%ld)",
                     socket_path, st);
        json_decref(v);
        docker_close(d);
        return NULL;
    }
    const char *ver = json_string_value(json_object_get(v, "Version"));
    snprintf(d->version, sizeof d->version, "%s", ver ? ver : "unknown");
    json_decref(v);
    return d;
}

void docker_close(struct docker *d) {
    if (!d)
        return;
    curl_easy_cleanup(d->h);
    buf_free(&d->body);
    free(d);
}

const char *docker_version(const struct docker *d) {
    return d->version;
}

int docker_create(struct docker *d, const char *name, const json_t *spec, char *id, char *err,
                  size_t errlen) {
    char path[512];
    snprintf(path, sizeof path, "/containers/create?name=%s", name);
    json_t *r = NULL;
    long st = docker_request(d, "POST", path, spec, &r, err, errlen);
    const char *cid = json_string_value(json_object_get(r, "Id"));
    int rc = st == 201 && cid ? 0 : -1;
    if (rc == 0)
        snprintf(id, 65, "%s", cid);
    json_decref(r);
    return rc;
}

int docker_start(struct docker *d, const char *id, char *err, size_t errlen) {
    char path[256];
    snprintf(path, sizeof path, "/containers/%s/start", id);
    long st = docker_request(d, "POST", path, NULL, NULL, err, errlen);
    return st == 204 || st == 304 ? 0 : -1;
}

int docker_kill(struct docker *d, const char *id, const char *sig, char *err, size_t errlen) {
    char path[256];
    snprintf(path, sizeof path, "/containers/%s/kill?signal=%s", id, sig ? sig : "KILL");
    long st = docker_request(d, "POST", path, NULL, NULL, err, errlen);
    return st == 204 || st == 409 || st == 404 ? 0 : -1; /* 409: not running */
}

int docker_remove(struct docker *d, const char *id, char *err, size_t errlen) {
    char path[256];
    snprintf(path, sizeof path, "/containers/%s?force=1&v=1", id);
    long st = docker_request(d, "DELETE", path, NULL, NULL, err, errlen);
    return st == 204 || st == 404 ? 0 : -1;
}

json_t *docker_inspect(struct docker *d, const char *id, char *err, size_t errlen) {
    char path[256];
    snprintf(path, sizeof path, "/containers/%s/json", id);
    json_t *r = NULL;
    if (docker_request(d, "GET", path, NULL, &r, err, errlen) != 200) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *docker_list(struct docker *d, const char *label, char *err, size_t errlen) {
    /* filters={"label":["<label>"]}, URL-encoded. */
    char *enc_label = curl_easy_escape(d->h, label, 0);
    char path[1024];
    snprintf(path, sizeof path,
             "/containers/json?all=1&filters=%%7B%%22label%%22%%3A%%5B%%22%s%%22%%5D%%7D",
             enc_label ? enc_label : "");
    curl_free(enc_label);
    json_t *r = NULL;
    if (docker_request(d, "GET", path, NULL, &r, err, errlen) != 200 || !json_is_array(r)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

int docker_image_exists(struct docker *d, const char *image, char *err, size_t errlen) {
    char *enc = curl_easy_escape(d->h, image, 0);
    char path[512];
    snprintf(path, sizeof path, "/images/%s/json", enc ? enc : "");
    curl_free(enc);
    long st = docker_request(d, "GET", path, NULL, NULL, err, errlen);
    return st == 200 ? 1 : st == 404 ? 0 : -1;
}
