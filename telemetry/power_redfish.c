/* power_redfish.c -- a BMC's Redfish service as a row of the source table
 * (power.h): --bmc https://HOST[:PORT][/redfish/v1/Chassis/ID].
 *
 * At start (outside the measured run) the service root, then the chassis,
 * is walked to the resource that holds the chassis' power: EnvironmentMetrics
 * (PowerWatts.Reading) where the BMC has it, else Power (PowerControl[].
 * PowerConsumedWatts). Authentication is a Redfish session (POST to the
 * SessionService, the X-Auth-Token header on every request, the session
 * deleted at the end) where the service offers one, else HTTP basic; the
 * credentials come from BMC_USERNAME and BMC_PASSWORD. Any failure there --
 * no route to the BMC, a TLS certificate that does not verify, wrong
 * credentials, a chassis without power readings -- is one reason and the
 * source measures nothing.
 *
 * During the run the resource is read on the source's own thread with one
 * libcurl handle kept alive; a request gives up after 5 s, or at once when
 * the run ends. What the BMC says about its own intervals is recorded: the
 * averaging span of PowerMetrics, a sensor's SensingInterval.
 *
 * The BMC's JSON is not trusted to say where the credentials go: every URL
 * it names is resolved against --bmc (redfish_resolve) and refused unless
 * it is on the same origin, libcurl follows no redirect itself (it would
 * take the X-Auth-Token header to another host), and the few the client
 * follows are checked the same way. A refusal is the source's one reason:
 * a BMC that points elsewhere gets nothing and measures nothing. */
#include "power_redfish.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/config.h"
#include "power.h"

#define RF_BODY_MAX (64u << 20) /* no BMC answers 64 MiB: past it the transfer fails */

int redfish_power_member(const json_t *power) {
    json_t *pc = json_object_get(power, "PowerControl");
    for (size_t i = 0; i < json_array_size(pc); i++)
        if (json_is_number(json_object_get(json_array_get(pc, i), "PowerConsumedWatts")))
            return (int)i;
    return -1;
}

int redfish_power_value(const json_t *res, int envmetrics, int member, double *watts, char *err,
                        size_t errlen) {
    json_t *v;
    const char *what;
    if (envmetrics) {
        v = json_object_get(json_object_get(res, "PowerWatts"), "Reading");
        what = "EnvironmentMetrics PowerWatts.Reading";
    } else {
        v = json_object_get(json_array_get(json_object_get(res, "PowerControl"), (size_t)member),
                            "PowerConsumedWatts");
        what = "Power PowerControl[].PowerConsumedWatts";
    }
    if (!json_is_number(v)) {
        snprintf(err, errlen, "%s is %s", what, v ? "not a number (null)" : "missing");
        return -1;
    }
    *watts = json_number_value(v);
    return 0;
}

double iso8601_duration_s(const char *s) {
    static const struct {
        char unit;
        double date, time; /* seconds per unit before and after the T */
    } units[] = {{'Y', 365.25 * 86400, NAN}, {'W', 7 * 86400, NAN},    {'D', 86400, NAN},
                 {'H', NAN, 3600},           {'M', 30.44 * 86400, 60}, {'S', NAN, 1}};
    if (!s || *s != 'P' || !s[1])
        return NAN;
    double total = 0;
    int in_time = 0, any = 0;
    for (const char *p = s + 1; *p;) {
        if (*p == 'T') {
            if (in_time || !p[1])
                return NAN;
            in_time = 1, p++;
            continue;
        }
        char *end;
        double v = strtod(p, &end);
        if (end == p || !*end || v < 0)
            return NAN;
        double per = NAN;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (units[i].unit == *end)
                per = in_time ? units[i].time : units[i].date;
        if (isnan(per))
            return NAN;
        total += v * per;
        any = 1;
        p = end + 1;
    }
    return any ? total : NAN;
}

/* ---- where credentials may go ------------------------------------------------------------ */

/* s as one printable line, at most len - 1 bytes: an error message quotes
 * URLs that the BMC wrote. */
static const char *printable(const char *s, char *out, size_t len) {
    size_t i = 0;
    for (; s && s[i] && i + 1 < len; i++)
        out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f ? '?' : s[i];
    out[i] = '\0';
    return out;
}

/* The authority of "scheme://AUTHORITY/...": does it hold a '@' (userinfo)? */
static int has_userinfo(const char *url) {
    const char *a = strstr(url, "://");
    if (!a)
        return 0;
    a += 3;
    size_t n = strcspn(a, "/?#");
    return memchr(a, '@', n) != NULL;
}

struct origin {
    char *scheme, *host, *port;
};

static void origin_free(struct origin *o) {
    curl_free(o->scheme), curl_free(o->host), curl_free(o->port);
    o->scheme = o->host = o->port = NULL;
}

/* Scheme, host and port of a parsed URL, the port filled in where the
 * scheme implies it; -1 when one is missing or the URL has a user or a
 * password. */
static int origin_of(CURLU *u, struct origin *o) {
    char *user = NULL, *pw = NULL;
    int has_user = curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK;
    int has_pw = curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) == CURLUE_OK;
    curl_free(user), curl_free(pw);
    if (has_user || has_pw)
        return -1;
    if (curl_url_get(u, CURLUPART_SCHEME, &o->scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &o->host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &o->port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
        origin_free(o);
        return -1;
    }
    return 0;
}

int redfish_resolve(const char *bmc, const char *from, const char *ref, char *out, size_t outlen,
                    char *err, size_t errlen) {
    char shown[300];
    int rc = -1;
    struct origin want = {0}, got = {0};
    char *url = NULL;
    CURLU *b = curl_url(), *u = NULL;
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (curl_url_set(b, CURLUPART_URL, bmc, 0) != CURLUE_OK || origin_of(b, &want) != 0) {
        snprintf(err, errlen, "--bmc '%s' is not a URL with a host", printable(bmc, shown, 200));
        goto out;
    }
    if (!(u = curl_url())) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* A reference is resolved against the URL it came from (RFC 3986). */
    if (curl_url_set(u, CURLUPART_URL, from ? from : bmc, 0) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_URL, ref ? ref : "", 0) != CURLUE_OK) {
        snprintf(err, errlen, "refused the BMC's URL '%s': not a URL", printable(ref, shown, 200));
        goto out;
    }
    if (origin_of(u, &got) != 0 || strcmp(got.scheme, want.scheme) ||
        strcasecmp(got.host, want.host) || strcmp(got.port, want.port)) {
        snprintf(err, errlen,
                 "refused the BMC's URL '%s': not on --bmc's origin %s://%s:%s (the BMC's "
                 "credentials go to that origin only)",
                 printable(ref, shown, 200), want.scheme, want.host, want.port);
        goto out;
    }
    if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK || strlen(url) >= outlen) {
        snprintf(err, errlen, "refused the BMC's URL '%s': longer than %zu bytes",
                 printable(ref, shown, 200), outlen - 1);
        goto out;
    }
    memcpy(out, url, strlen(url) + 1);
    rc = 0;
out:
    curl_free(url);
    origin_free(&want), origin_free(&got);
    curl_url_cleanup(u);
    curl_url_cleanup(b);
    return rc;
}

int power_bmc_check(const struct power_opts *o, char *err, size_t errlen) {
    const char *url = o->bmc;
    if (!url[0])
        return 0;
    if (has_userinfo(url)) {
        snprintf(err, errlen,
                 "--bmc: a user name or password in the URL (USER:PASSWORD@HOST) is refused: it "
                 "would be recorded with the command line in result.json; give them in "
                 "BMC_USERNAME and BMC_PASSWORD");
        return -1;
    }
    int http = !strncmp(url, "http://", 7);
    if (http && (o->bmc_user[0] || o->bmc_password[0])) {
        snprintf(err, errlen,
                 "--bmc '%.300s': BMC credentials (BMC_USERNAME, BMC_PASSWORD) are sent only over "
                 "https:// (http:// would carry them in clear); use https://, with --bmc-cacert "
                 "FILE for the BMC's CA",
                 url);
        return -1;
    }
    if (http || !strncmp(url, "https://", 8)) {
        CURLU *u = curl_url();
        struct origin or = {0};
        int ok =
            u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK && origin_of(u, & or) == 0;
        origin_free(& or);
        curl_url_cleanup(u);
        if (!ok) {
            snprintf(err, errlen, "--bmc '%.300s': not a URL with a host", url);
            return -1;
        }
    }
    return 0;
}

/* ---- the service ------------------------------------------------------------------------ */

struct rf {
    CURL *h;
    struct curl_slist *hdrs;
    const struct power_opts *o;
    const atomic_int *cancel;
    char base[600];      /* scheme://host[:port] */
    char resource[1200]; /* the URL read at each sample */
    int envmetrics, member;
    char sessions[1200]; /* the SessionService's collection, to log in again */
    char session[1200];  /* the session's URL, deleted at the end */
    char token[600];
    struct buf body;                         /* the last answer, at most RF_BODY_MAX */
    char hdr_token[600], hdr_location[1200]; /* from the last response */
    char refused[600];                       /* the first URL refused for its origin, and why */
    char curl_err[CURL_ERROR_SIZE];
};

int redfish_header(const char *line, size_t len, const char *name, char *out, size_t outlen) {
    size_t nl = strlen(name);
    if (!outlen || len <= nl || line[nl] != ':' || strncasecmp(line, name, nl))
        return 0;
    const char *v = line + nl + 1;
    size_t vl = len - nl - 1;
    while (vl && isspace((unsigned char)*v))
        v++, vl--;
    while (vl && isspace((unsigned char)v[vl - 1]))
        vl--;
    /* A value that does not fit, or holds a control byte (a header split
     * into another), is not taken: a token cut short is not the token. */
    if (vl >= outlen)
        return -1;
    for (size_t i = 0; i < vl; i++)
        if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] == 0x7f)
            return -1;
    memcpy(out, v, vl);
    out[vl] = '\0';
    return 1;
}

/* X-Auth-Token and Location of a POST to the SessionService. */
static size_t on_header(char *p, size_t sz, size_t n, void *arg) {
    struct rf *r = arg;
    size_t k = sz * n;
    if (redfish_header(p, k, "X-Auth-Token", r->hdr_token, sizeof r->hdr_token) < 0)
        r->hdr_token[0] = '\0';
    if (redfish_header(p, k, "Location", r->hdr_location, sizeof r->hdr_location) < 0)
        r->hdr_location[0] = '\0';
    return k;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)a, (void)b, (void)c, (void)d;
    const struct rf *r = arg;
    return r->cancel && atomic_load(r->cancel); /* non-zero aborts the transfer */
}

/* A URL the service named (or a path on it), resolved against from (the
 * URL it came from; the service's base when NULL), kept only on --bmc's
 * origin. A refusal is also kept in r->refused: whatever the caller makes
 * of the failure, the source then measures nothing and says why. */
static int resolve(struct rf *r, const char *from, const char *ref, char *out, size_t len,
                   char *err, size_t errlen) {
    if (redfish_resolve(r->base, from, ref, out, len, err, errlen) == 0)
        return 0;
    if (!r->refused[0])
        snprintf(r->refused, sizeof r->refused, "%s", err);
    return -1;
}

/* One request, redirects followed here (at most 3, each on --bmc's origin)
 * since libcurl's own would take the token along to any host. Returns the
 * HTTP status, or -1 with err for a transport failure (said the way a
 * person fixes it: TLS, no route, timeout) or a refused URL. */
static long request(struct rf *r, const char *method, const char *path, const char *body, char *err,
                    size_t errlen) {
    char url[1400];
    if (resolve(r, NULL, path, url, sizeof url, err, errlen) != 0)
        return -1;
    for (int hop = 0;; hop++) {
        buf_reset(&r->body);
        r->hdr_token[0] = r->hdr_location[0] = '\0';
        curl_easy_setopt(r->h, CURLOPT_URL, url);
        curl_easy_setopt(r->h, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
        if (body)
            curl_easy_setopt(r->h, CURLOPT_POSTFIELDS, body);
        else
            curl_easy_setopt(r->h, CURLOPT_HTTPGET, 1L);
        CURLcode rc = curl_easy_perform(r->h);
        if (rc != CURLE_OK) {
            const char *hint = "";
            if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
                rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM)
                hint = " (a TLS error: --bmc-cacert FILE trusts the BMC's CA, --bmc-insecure skips "
                       "the check)";
            else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
                hint = " (is the BMC reachable from here, at that port?)";
            snprintf(err, errlen, "%s %s: %s%s", method, url,
                     r->curl_err[0] ? r->curl_err : curl_easy_strerror(rc), hint);
            return -1;
        }
        long code = 0;
        curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &code);
        char *next = NULL;
        if ((code != 301 && code != 302 && code != 303 && code != 307 && code != 308) ||
            curl_easy_getinfo(r->h, CURLINFO_REDIRECT_URL, &next) != CURLE_OK || !next)
            return code;
        if (hop == 3) {
            snprintf(err, errlen, "%s %s: more than 3 redirects", method, url);
            return -1;
        }
        char to[sizeof url];
        if (resolve(r, url, next, to, sizeof to, err, errlen) != 0)
            return -1;
        memcpy(url, to, sizeof url);
        /* 303, and 301/302 after a POST, as browsers and libcurl do: a GET. */
        if (code == 303 || ((code == 301 || code == 302) && body)) {
            method = "GET", body = NULL;
            curl_easy_setopt(r->h, CURLOPT_POSTFIELDS, NULL);
        }
    }
}

/* GET a resource as JSON. */
static json_t *get_json(struct rf *r, const char *path, long *code, char *err, size_t errlen) {
    *code = request(r, "GET", path, NULL, err, errlen);
    if (*code < 0)
        return NULL;
    char shown[300], why[160];
    if (*code != 200) {
        snprintf(err, errlen, "GET %s: HTTP %ld", printable(path, shown, sizeof shown), *code);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(r->body.p ? r->body.p : "", r->body.len, 0, &je);
    if (!j)
        snprintf(err, errlen, "GET %s: not JSON (%s)", printable(path, shown, sizeof shown),
                 printable(je.text, why, sizeof why));
    return j;
}

static const char *odata_id(const json_t *o, const char *key) {
    return json_string_value(json_object_get(json_object_get(o, key), "@odata.id"));
}

static void set_token_header(struct rf *r) {
    curl_slist_free_all(r->hdrs);
    r->hdrs = curl_slist_append(NULL, "Accept: application/json");
    r->hdrs = curl_slist_append(r->hdrs, "Content-Type: application/json");
    if (r->token[0]) {
        char h[700];
        snprintf(h, sizeof h, "X-Auth-Token: %s", r->token);
        r->hdrs = curl_slist_append(r->hdrs, h);
    }
    curl_easy_setopt(r->h, CURLOPT_HTTPHEADER, r->hdrs);
}

static void use_basic(struct rf *r) {
    curl_easy_setopt(r->h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    curl_easy_setopt(r->h, CURLOPT_USERNAME, r->o->bmc_user);
    curl_easy_setopt(r->h, CURLOPT_PASSWORD, r->o->bmc_password);
}

/* A session where the service has one: 1 made, 0 none offered (the caller
 * falls back to basic auth), -1 refused (reason in err). */
static int login(struct rf *r, const char *sessions_ref, char *err, size_t errlen) {
    char sessions[sizeof r->sessions], shown[300];
    if (resolve(r, NULL, sessions_ref, sessions, sizeof sessions, err, errlen) != 0)
        return -1; /* the password goes nowhere but --bmc's origin */
    printable(sessions, shown, sizeof shown);
    json_t *req =
        json_pack("{s:s, s:s}", "UserName", r->o->bmc_user, "Password", r->o->bmc_password);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!body) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    long code = request(r, "POST", sessions, body, err, errlen);
    free(body);
    curl_easy_setopt(r->h, CURLOPT_POSTFIELDS, NULL);
    if (code < 0)
        return -1;
    if (code == 401 || code == 403) {
        snprintf(err, errlen,
                 "wrong credentials: POST %s: HTTP %ld (check BMC_USERNAME and BMC_PASSWORD)",
                 shown, code);
        return -1;
    }
    if (code >= 200 && code < 300 && r->hdr_token[0]) {
        char session[sizeof r->session] = "";
        /* The session's own URL, where the token is sent to end it. */
        if (r->hdr_location[0] &&
            resolve(r, sessions, r->hdr_location, session, sizeof session, err, errlen) != 0)
            return -1;
        snprintf(r->sessions, sizeof r->sessions, "%s", sessions);
        snprintf(r->token, sizeof r->token, "%s", r->hdr_token);
        snprintf(r->session, sizeof r->session, "%s", session);
        set_token_header(r);
        return 1;
    }
    snprintf(err, errlen, "POST %s: HTTP %ld and no X-Auth-Token", shown, code);
    return 0;
}

/* A 401 or 403 reading a resource: what the person should do. */
static void denied(const struct rf *r, const char *path, long code, char *err, size_t errlen) {
    if (!r->o->bmc_user[0])
        snprintf(err, errlen,
                 "GET %s: HTTP %ld: the BMC wants credentials (set BMC_USERNAME and "
                 "BMC_PASSWORD)",
                 path, code);
    else
        snprintf(err, errlen,
                 "wrong credentials: GET %s: HTTP %ld (check BMC_USERNAME and "
                 "BMC_PASSWORD)",
                 path, code);
}

/* Find the power resource of one chassis. 1 found, 0 not there, -1 error. */
static int chassis_power(struct power_src *s, struct rf *r, const char *chassis, char *err,
                         size_t errlen) {
    long code;
    json_t *c = get_json(r, chassis, &code, err, errlen);
    if (!c) {
        if (code == 401 || code == 403)
            denied(r, chassis, code, err, errlen);
        return -1;
    }
    int found = 0;
    const char *env = odata_id(c, "EnvironmentMetrics"), *pow = odata_id(c, "Power");
    double w;
    char e[256];
    json_t *res = NULL;
    if (env && (res = get_json(r, env, &code, e, sizeof e)) &&
        redfish_power_value(res, 1, 0, &w, e, sizeof e) == 0) {
        resolve(r, NULL, env, r->resource, sizeof r->resource, e, sizeof e);
        r->envmetrics = 1;
        found = 1;
        /* The sensor behind the excerpt says how often it is read. */
        const char *src =
            json_string_value(json_object_get(json_object_get(res, "PowerWatts"), "DataSourceUri"));
        json_t *sensor = src ? get_json(r, src, &code, e, sizeof e) : NULL;
        double si =
            iso8601_duration_s(json_string_value(json_object_get(sensor, "SensingInterval")));
        if (isfinite(si)) {
            s->device_interval_s = si;
            snprintf(s->device_interval_from, sizeof s->device_interval_from,
                     "the sensor's SensingInterval");
        }
        json_decref(sensor);
    }
    json_decref(res);
    res = NULL;
    if (!found && pow && (res = get_json(r, pow, &code, e, sizeof e)) &&
        (r->member = redfish_power_member(res)) >= 0) {
        resolve(r, NULL, pow, r->resource, sizeof r->resource, e, sizeof e);
        found = 1;
        json_t *pc = json_array_get(json_object_get(res, "PowerControl"), (size_t)r->member);
        json_t *iv = json_object_get(json_object_get(pc, "PowerMetrics"), "IntervalInMin");
        if (json_is_number(iv))
            json_object_set_new(s->detail, "averaging_interval_s",
                                json_real(json_number_value(iv) * 60));
        const char *mid = json_string_value(json_object_get(pc, "MemberId"));
        json_object_set_new(s->detail, "power_control", json_string(mid ? mid : "0"));
    }
    json_decref(res);
    if (found) {
        json_object_set_new(s->detail, "chassis", json_string(chassis));
        json_object_set_new(s->detail, "resource", json_string(r->resource));
        json_object_set_new(s->detail, "property",
                            json_string(r->envmetrics ? "PowerWatts.Reading"
                                                      : "PowerControl[].PowerConsumedWatts"));
    } else {
        snprintf(err, errlen,
                 "%s has no power readings (neither EnvironmentMetrics.PowerWatts.Reading nor "
                 "Power.PowerControl[].PowerConsumedWatts)",
                 chassis);
    }
    json_decref(c);
    return found;
}

static int rf_discover(struct power_src *s, struct rf *r, const char *chassis_path, char *err,
                       size_t errlen) {
    long code;
    json_t *root = get_json(r, "/redfish/v1/", &code, err, errlen);
    if (!root) {
        if (code > 0)
            snprintf(err, errlen, "GET /redfish/v1/: HTTP %ld: not a Redfish service", code);
        return -1;
    }
    const char *sessions = json_string_value(
        json_object_get(json_object_get(json_object_get(root, "Links"), "Sessions"), "@odata.id"));
    const char *mode = "none";
    int rc = 0;
    if (r->o->bmc_user[0]) {
        if (r->o->bmc_auth != BMC_AUTH_BASIC && sessions)
            rc = login(r, sessions, err, errlen);
        if (rc < 0 || (rc == 0 && r->o->bmc_auth == BMC_AUTH_SESSION)) {
            if (rc == 0 && !sessions)
                snprintf(err, errlen, "--bmc-auth session: the service offers no sessions");
            json_decref(root);
            return -1;
        }
        if (rc == 0)
            use_basic(r);
        mode = rc == 1 ? "session" : "basic";
    }
    json_object_set_new(s->detail, "auth", json_string(mode));
    json_t *members = NULL;
    int found = 0;
    if (chassis_path) {
        found = chassis_power(s, r, chassis_path, err, errlen);
    } else {
        const char *coll = odata_id(root, "Chassis");
        json_t *cj = coll ? get_json(r, coll, &code, err, errlen) : NULL;
        if (!coll)
            snprintf(err, errlen, "the service root has no Chassis collection");
        else if (!cj && (code == 401 || code == 403))
            denied(r, coll, code, err, errlen);
        members = json_object_get(cj, "Members");
        char first_err[512] = "";
        for (size_t i = 0; i < json_array_size(members) && found == 0; i++) {
            const char *id =
                json_string_value(json_object_get(json_array_get(members, i), "@odata.id"));
            if (!id)
                continue;
            found = chassis_power(s, r, id, err, errlen);
            if (found == 0 && !first_err[0])
                snprintf(first_err, sizeof first_err, "%s", err);
        }
        if (cj && !json_array_size(members))
            snprintf(err, errlen, "%s lists no chassis", coll);
        else if (found == 0 && first_err[0])
            snprintf(err, errlen, "no chassis with power readings: %s", first_err);
        json_decref(cj);
    }
    json_decref(root);
    return found == 1 ? 0 : -1;
}

static int rf_open(struct power_src *s, const struct power_env *env) {
    const char *url = env->opts ? env->opts->bmc : "";
    s->scope = PSCOPE_PLATFORM;
    if (!url[0]) {
        snprintf(s->reason, sizeof s->reason,
                 "no --bmc given (ipmi://HOST for DCMI, https://HOST for Redfish)");
        return 1;
    }
    if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
        return 1; /* ipmi:// is the other row's */
    s->asked = 1;
    /* The command line refused these already; a caller that set the
     * options itself gets the same answer. */
    char why[600];
    if (power_bmc_check(env->opts, why, sizeof why) != 0) {
        snprintf(s->reason, sizeof s->reason, "Redfish: %s", why);
        return -1;
    }
    struct rf *r = calloc(1, sizeof *r);
    if (!r || !(r->h = curl_easy_init())) {
        free(r);
        snprintf(s->reason, sizeof s->reason, "Redfish: cannot set up libcurl");
        return -1;
    }
    s->priv = r;
    r->body.max = RF_BODY_MAX;
    r->o = env->opts;
    r->cancel = &s->cancel;
    /* scheme://host[:port], and the chassis when the URL names one */
    const char *host = strstr(url, "://") + 3;
    const char *path = strchr(host, '/');
    size_t bl = path ? (size_t)(path - url) : strlen(url);
    snprintf(r->base, sizeof r->base, "%.*s", (int)bl, url);
    char chassis[1024] = "";
    if (path && strcmp(path, "/") && strcmp(path, "/redfish/v1") && strcmp(path, "/redfish/v1/"))
        snprintf(chassis, sizeof chassis, "%s", path);
    s->detail = json_pack("{s:s, s:b}", "bmc", r->base, "tls_verified",
                          !strncmp(url, "https://", 8) && !r->o->bmc_insecure);
    curl_easy_setopt(r->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->h, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
    curl_easy_setopt(r->h, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(r->h, CURLOPT_ERRORBUFFER, r->curl_err);
    curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, buf_curl_write);
    curl_easy_setopt(r->h, CURLOPT_WRITEDATA, &r->body);
    curl_easy_setopt(r->h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(r->h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(r->h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(r->h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(r->h, CURLOPT_XFERINFODATA, r);
    /* Redirects are request()'s to follow, each checked for its origin:
     * libcurl's own would send the X-Auth-Token header to any host. */
    curl_easy_setopt(r->h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(r->h, CURLOPT_PROTOCOLS_STR, strncmp(url, "https://", 8) ? "http" : "https");
    /* A BMC is not a web proxy's business, and secrets must not pass one. */
    curl_easy_setopt(r->h, CURLOPT_NOPROXY, "*");
    if (r->o->bmc_insecure) {
        curl_easy_setopt(r->h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(r->h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (r->o->bmc_cacert[0]) {
        curl_easy_setopt(r->h, CURLOPT_CAINFO, r->o->bmc_cacert);
    }
    set_token_header(r);
    char err[900] = "";
    /* A URL refused anywhere in discovery (even an optional one, a
     * sensor's) fails the source: a BMC that names another origin is not
     * one whose readings are taken. */
    if (rf_discover(s, r, chassis[0] ? chassis : NULL, err, sizeof err) != 0 || r->refused[0]) {
        snprintf(s->reason, sizeof s->reason, "Redfish BMC %.300s: %.700s", r->base,
                 r->refused[0] ? r->refused : err);
        return -1;
    }
    double w;
    if (s->ops->read(s, 0, &w, err, sizeof err) != 0) {
        snprintf(s->reason, sizeof s->reason, "%s", err);
        return -1;
    }
    return 0;
}

static int rf_read(struct power_src *s, double dt, double *watts, char *err, size_t errlen) {
    (void)dt;
    struct rf *r = s->priv;
    char e[700];
    for (int attempt = 0;; attempt++) {
        long code;
        json_t *j = get_json(r, r->resource, &code, e, sizeof e);
        if (!j && (code == 401 || code == 403) && r->token[0] && attempt == 0) {
            /* The session timed out (BMCs end idle ones): log in again once. */
            char coll[sizeof r->sessions];
            snprintf(coll, sizeof coll, "%s", r->sessions);
            r->token[0] = r->session[0] = '\0';
            set_token_header(r);
            if (login(r, coll, e, sizeof e) == 1)
                continue;
        }
        if (!j) {
            snprintf(err, errlen, "Redfish: %s", e);
            return -1;
        }
        int rc = redfish_power_value(j, r->envmetrics, r->member, watts, e, sizeof e);
        json_decref(j);
        if (rc != 0)
            snprintf(err, errlen, "Redfish %s: %s", r->resource, e);
        return rc;
    }
}

static void rf_close(struct power_src *s) {
    struct rf *r = s->priv;
    if (!r)
        return;
    if (r->session[0] && r->h) { /* BMCs have few session slots: give ours back */
        char e[256];
        atomic_store(&s->cancel, 0);
        curl_easy_setopt(r->h, CURLOPT_TIMEOUT_MS, 2000L);
        request(r, "DELETE", r->session, NULL, e, sizeof e);
    }
    curl_slist_free_all(r->hdrs);
    if (r->h)
        curl_easy_cleanup(r->h);
    buf_free(&r->body);
    free(r);
    s->priv = NULL;
}

const struct power_src_ops power_src_redfish = {"redfish", 1, rf_open, rf_read, rf_close};
