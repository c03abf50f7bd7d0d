/* power_set.c -- the power sources of a run (see power_set.h).
 *
 * The table below is the order of preference within a scope: a BMC the user
 * named before the machine's own meters, the ACPI power meter before IPMI
 * in band (the two are often the same meter read two ways). Inline sources
 * (RAPL, hwmon) are one pread at each sample; polled ones (a BMC) read on a
 * thread of their own into a growing array of readings, each with the time
 * it arrived and how long it took, so a BMC that takes a second to answer
 * never holds up the sampling loop, and its readings can be audited. */
#include "power_set.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

static const struct power_src_ops *const table[] = {
    &power_src_package,        &power_src_redfish, &power_src_ipmi_lan,
    &power_src_hwmon_platform, &power_src_ipmi,    &power_src_hwmon_socket,
};
#define NTABLE (sizeof table / sizeof table[0])

struct reading {
    double t;      /* seconds since t0 when it arrived */
    double w;      /* NAN: the read failed */
    double lat_ms; /* how long it took */
};

struct slot {
    struct power_src src;
    int ok;      /* open() said it measures */
    int col;     /* its series column, -1 when none */
    int primary; /* the first measuring source of its scope: the per-watt figure's */
    /* reads so far: the sampler's for inline sources, under mu for polled */
    uint64_t nread, nerr;
    double lat_sum, lat_max;
    char last_error[256];
    int64_t prev_ns;
    /* polled sources */
    pthread_t th;
    int running, stop, mu_ok;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct reading *r;
    size_t n, cap;
    int64_t t0, interval_ns;
    size_t taken; /* sampler only: readings already put in the series */
    double held;  /* sampler only: the last reading, held until the next */
};

struct power_set {
    struct slot s[NTABLE];
    unsigned n;
    char colname[POWER_MAX_COLS][48];
    int colslot[POWER_MAX_COLS]; /* -1: column 0 without a package source */
    unsigned ncols;
    char absent[PSCOPE_COUNT][1024]; /* what was looked for and not found */
    double sample_interval, bmc_interval;
    uint64_t nsamples; /* the sampler's intervals, for inline sources */
    double dt_sum, dt_max;
    int64_t t0;
    int begun, ended;
};

const char *power_scope_name(enum power_scope s) {
    return s == PSCOPE_PACKAGE ? "package" : s == PSCOPE_SOCKET ? "socket" : "platform";
}

static void append_note(char *buf, size_t len, const char *text) {
    size_t n = strlen(buf), k = strlen(text);
    if (!k || n + 3 >= len)
        return;
    if (n)
        memcpy(buf + n, "; ", 2), n += 2;
    if (k > len - n - 1)
        k = len - n - 1;
    memcpy(buf + n, text, k);
    buf[n + k] = '\0';
}

struct power_set *power_set_open(const struct power_env *env) {
    struct power_set *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->sample_interval = env->sample_interval;
    ps->bmc_interval = env->opts && env->opts->bmc_interval > 0 ? env->opts->bmc_interval : 1;
    for (size_t i = 0; i < NTABLE; i++) {
        struct slot *sl = &ps->s[ps->n];
        memset(sl, 0, sizeof *sl);
        sl->src.ops = table[i];
        sl->src.device_interval_s = NAN;
        sl->col = -1;
        snprintf(sl->src.name, sizeof sl->src.name, "%s", table[i]->name);
        int rc = table[i]->open(&sl->src, env);
        if (rc > 0) { /* not on this machine: said only if its scope has nothing */
            append_note(ps->absent[sl->src.scope], sizeof ps->absent[0], sl->src.reason);
            table[i]->close(&sl->src);
            json_decref(sl->src.detail);
            continue;
        }
        sl->ok = rc == 0;
        if (!sl->ok && !sl->src.reason[0])
            snprintf(sl->src.reason, sizeof sl->src.reason, "%s: no reading", table[i]->name);
        if (sl->ok)
            sl->src.reason[0] = '\0';
        ps->n++;
    }
    /* Columns: the package's is power_w whether it measures or not (the
     * series always had it); each scope's first measuring source takes the
     * scope's column, more of one scope a column of their own. */
    snprintf(ps->colname[0], sizeof ps->colname[0], "power_w");
    ps->colslot[0] = -1;
    ps->ncols = 1;
    int have[PSCOPE_COUNT] = {0};
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (!sl->ok)
            continue;
        enum power_scope sc = sl->src.scope;
        sl->primary = !have[sc];
        have[sc] = 1;
        if (sc == PSCOPE_PACKAGE && sl->primary) {
            sl->col = 0;
            ps->colslot[0] = (int)i;
            continue;
        }
        if (ps->ncols == POWER_MAX_COLS)
            continue;
        sl->col = (int)ps->ncols;
        if (sl->primary)
            snprintf(ps->colname[ps->ncols], sizeof ps->colname[0], "power_%s_w",
                     power_scope_name(sc));
        else {
            char name[sizeof sl->src.name];
            memcpy(name, sl->src.name, sizeof name);
            snprintf(ps->colname[ps->ncols], sizeof ps->colname[0], "power_%s_w", name);
        }
        ps->colslot[ps->ncols++] = (int)i;
    }
    return ps;
}

unsigned power_set_ncols(const struct power_set *ps) {
    return ps ? ps->ncols : 1;
}

const char *power_set_col(const struct power_set *ps, unsigned k) {
    return ps && k < ps->ncols ? ps->colname[k] : "power_w";
}

int power_set_col_source(const struct power_set *ps, unsigned k, const char **source,
                         const char **scope) {
    if (!ps || k >= ps->ncols || ps->colslot[k] < 0)
        return -1;
    const struct slot *sl = &ps->s[ps->colslot[k]];
    *source = sl->src.name;
    *scope = power_scope_name(sl->src.scope);
    return 0;
}

/* The reader thread of a polled source: a reading every interval (never two
 * at once: a slow answer pushes the next one back), until stop. */
static void *poll_main(void *arg) {
    struct slot *sl = arg;
    pthread_mutex_lock(&sl->mu);
    int64_t prev = sl->t0;
    while (!sl->stop) {
        pthread_mutex_unlock(&sl->mu);
        double w = NAN;
        char err[256] = "";
        int64_t a = now_ns();
        int rc = sl->src.ops->read(&sl->src, (double)(a - prev) / 1e9, &w, err, sizeof err);
        int64_t b = now_ns();
        prev = a;
        pthread_mutex_lock(&sl->mu);
        if (rc != 0 && !err[0])
            snprintf(err, sizeof err, "no reading");
        if (sl->n == sl->cap) {
            size_t cap = sl->cap ? sl->cap * 2 : 1024;
            struct reading *nr = realloc(sl->r, cap * sizeof *nr);
            if (nr)
                sl->r = nr, sl->cap = cap;
        }
        if (sl->n < sl->cap) {
            double lat = (double)(b - a) / 1e6;
            sl->r[sl->n++] = (struct reading){(double)(b - sl->t0) / 1e9, rc == 0 ? w : NAN, lat};
            sl->nread++;
            sl->lat_sum += lat;
            if (lat > sl->lat_max)
                sl->lat_max = lat;
            if (rc != 0) {
                sl->nerr++;
                snprintf(sl->last_error, sizeof sl->last_error, "%s", err);
            }
        }
        int64_t next = a + sl->interval_ns;
        while (!sl->stop && now_ns() < next) {
            struct timespec ts = {(time_t)(next / 1000000000), (long)(next % 1000000000)};
            if (pthread_cond_timedwait(&sl->cv, &sl->mu, &ts) == ETIMEDOUT)
                break;
        }
    }
    pthread_mutex_unlock(&sl->mu);
    return NULL;
}

void power_set_rebase(struct power_set *ps, int64_t t0_ns) {
    if (!ps || !ps->begun)
        return;
    double shift = (double)(ps->t0 - t0_ns) / 1e9;
    ps->t0 = t0_ns;
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (!sl->ok || !sl->src.ops->polled || !sl->mu_ok)
            continue;
        pthread_mutex_lock(&sl->mu);
        for (size_t k = 0; k < sl->n; k++)
            sl->r[k].t += shift; /* read before the release: negative, outside the run */
        sl->t0 = t0_ns;
        pthread_mutex_unlock(&sl->mu);
    }
}

void power_set_begin(struct power_set *ps, int64_t t0_ns) {
    if (!ps)
        return;
    ps->t0 = t0_ns;
    ps->begun = 1;
    ps->nsamples = 0;
    ps->dt_sum = ps->dt_max = 0;
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (!sl->ok)
            continue;
        sl->prev_ns = t0_ns;
        sl->held = NAN;
        if (!sl->src.ops->polled) {
            double w;
            char err[64];
            sl->src.ops->read(&sl->src, 0, &w, err, sizeof err); /* the baseline */
            continue;
        }
        sl->t0 = t0_ns;
        sl->interval_ns = (int64_t)(ps->bmc_interval * 1e9);
        pthread_condattr_t ca;
        int err = pthread_condattr_init(&ca);
        if (!err)
            err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        if (!err)
            err = pthread_cond_init(&sl->cv, &ca);
        pthread_condattr_destroy(&ca);
        if (!err) {
            err = pthread_mutex_init(&sl->mu, NULL);
            sl->mu_ok = !err;
        }
        if (!err)
            err = pthread_create(&sl->th, NULL, poll_main, sl);
        if (err) {
            sl->ok = 0;
            char name[sizeof sl->src.name];
            memcpy(name, sl->src.name, sizeof name);
            snprintf(sl->src.reason, sizeof sl->src.reason, "%s: cannot start its reader: %s", name,
                     strerror(err));
            continue;
        }
        sl->running = 1;
    }
}

void power_set_sample(struct power_set *ps, int64_t t_ns, double dt, double *cols) {
    if (!ps)
        return;
    for (unsigned k = 0; k < ps->ncols; k++)
        cols[k] = NAN;
    ps->nsamples++;
    ps->dt_sum += dt;
    if (dt > ps->dt_max)
        ps->dt_max = dt;
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (!sl->ok || sl->col < 0)
            continue;
        double w = NAN;
        if (!sl->src.ops->polled) {
            char err[256] = "";
            int64_t a = now_ns();
            int rc = sl->src.ops->read(&sl->src, (double)(t_ns - sl->prev_ns) / 1e9, &w, err,
                                       sizeof err);
            double lat = (double)(now_ns() - a) / 1e6;
            sl->prev_ns = t_ns;
            sl->nread++;
            sl->lat_sum += lat;
            if (lat > sl->lat_max)
                sl->lat_max = lat;
            if (rc != 0) {
                w = NAN;
                sl->nerr++;
                if (err[0])
                    snprintf(sl->last_error, sizeof sl->last_error, "%s", err);
            }
        } else if (sl->running) {
            double sum = 0;
            unsigned got = 0;
            pthread_mutex_lock(&sl->mu);
            for (; sl->taken < sl->n; sl->taken++)
                if (!isnan(sl->r[sl->taken].w))
                    sum += sl->r[sl->taken].w, got++;
            pthread_mutex_unlock(&sl->mu);
            if (got)
                sl->held = sum / got;
            w = sl->held;
        }
        cols[sl->col] = w;
    }
}

void power_set_end(struct power_set *ps) {
    if (!ps || ps->ended)
        return;
    ps->ended = 1;
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (!sl->running)
            continue;
        atomic_store(&sl->src.cancel, 1);
        pthread_mutex_lock(&sl->mu);
        sl->stop = 1;
        pthread_cond_signal(&sl->cv);
        pthread_mutex_unlock(&sl->mu);
        pthread_join(sl->th, NULL);
        sl->running = 0;
    }
    for (unsigned i = 0; i < ps->n; i++)
        ps->s[i].src.ops->close(&ps->s[i].src);
}

size_t power_readings_stat(const double *t, const double *w, size_t n, double a, double b,
                           double *mean, double *peak) {
    double sum = 0, pk = -INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(w[i]) || t[i] < a || t[i] > b)
            continue;
        sum += w[i];
        pk = fmax(pk, w[i]);
        k++;
    }
    *mean = k ? sum / (double)k : NAN;
    *peak = k ? pk : NAN;
    return k;
}

double power_update_interval(const double *t, const double *w, size_t n) {
    double first = NAN, last = NAN, prev = NAN;
    size_t changes = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(w[i]))
            continue;
        if (!isnan(prev) && w[i] != prev) {
            if (!changes)
                first = t[i];
            last = t[i];
            changes++;
        }
        prev = w[i];
    }
    return changes >= 2 ? (last - first) / (double)(changes - 1) : NAN;
}

/* A polled source's readings as arrays (the JSON path may allocate). */
static size_t readings_copy(const struct slot *sl, double **t, double **w, double **lat) {
    struct slot *m = (struct slot *)sl; /* the mutex only */
    if (m->mu_ok)
        pthread_mutex_lock(&m->mu);
    size_t n = sl->n;
    *t = malloc((n ? n : 1) * sizeof **t);
    *w = malloc((n ? n : 1) * sizeof **w);
    *lat = malloc((n ? n : 1) * sizeof **lat);
    if (!*t || !*w || !*lat)
        n = 0;
    for (size_t i = 0; i < n; i++)
        (*t)[i] = sl->r[i].t, (*w)[i] = sl->r[i].w, (*lat)[i] = sl->r[i].lat_ms;
    if (m->mu_ok)
        pthread_mutex_unlock(&m->mu);
    return n;
}

static json_t *num(double v) {
    return isfinite(v) ? json_real(round(v * 1000.0) / 1000.0) : json_null();
}

/* What one source measured over [a, b]. */
struct figures {
    double mean, peak, gap_mean, gap_max, update;
    size_t nin;
};

static void figures_of(const struct power_set *ps, const struct slot *sl, double a, double b,
                       power_colstat_fn stat, const void *ctx, struct figures *f) {
    *f = (struct figures){NAN, NAN, NAN, NAN, NAN, 0};
    if (!sl->ok && !sl->n)
        return;
    if (sl->src.ops->polled) {
        double *t, *w, *lat;
        size_t n = readings_copy(sl, &t, &w, &lat);
        f->nin = power_readings_stat(t, w, n, a, b, &f->mean, &f->peak);
        double gsum = 0, gmax = 0;
        for (size_t i = 1; i < n; i++) {
            gsum += t[i] - t[i - 1];
            gmax = fmax(gmax, t[i] - t[i - 1]);
        }
        if (n >= 2)
            f->gap_mean = gsum / (double)(n - 1), f->gap_max = gmax;
        f->update = power_update_interval(t, w, n);
        free(t), free(w), free(lat);
        return;
    }
    if (sl->col >= 0 && stat)
        stat(ctx, (unsigned)sl->col, a, b, &f->mean, &f->peak);
    f->nin = (size_t)ps->nsamples;
    if (ps->nsamples)
        f->gap_mean = ps->dt_sum / (double)ps->nsamples, f->gap_max = ps->dt_max;
}

/* Slower than the samples: readings further apart than the sample interval,
 * or a device that says it averages (or is seen to update) over longer. */
static int slower(const struct power_set *ps, const struct slot *sl, const struct figures *f,
                  char *note, size_t len) {
    double si = ps->sample_interval, tol = 1.1 * si;
    int by_gap = sl->src.ops->polled && f->gap_mean > tol;
    int by_dev = isfinite(sl->src.device_interval_s) && sl->src.device_interval_s > si;
    int by_upd = isfinite(f->update) && f->update > tol;
    if (!(by_gap || by_dev || by_upd)) {
        if (note)
            note[0] = '\0';
        return 0;
    }
    if (note) {
        char what[256] = "";
        if (by_gap || by_upd)
            snprintf(what, sizeof what, "readings every %.2f s", by_upd ? f->update : f->gap_mean);
        if (by_dev) {
            size_t n = strlen(what);
            snprintf(what + n, sizeof what - n, "%s%s says it averages over %.2f s",
                     n ? ", and " : "", sl->src.device_interval_from, sl->src.device_interval_s);
        }
        snprintf(note, len,
                 "%s power from %s is slower than the %.2f s sample interval (%s): its mean is "
                 "over its %zu readings inside the run, and it lags load changes",
                 power_scope_name(sl->src.scope), sl->src.name, si, what, f->nin);
    }
    return 1;
}

static json_t *entry_json(const struct power_set *ps, const struct slot *sl, double a, double b,
                          power_colstat_fn stat, const void *ctx) {
    struct figures f;
    figures_of(ps, sl, a, b, stat, ctx, &f);
    /* A reader thread may still be counting: its figures as of now. */
    struct {
        uint64_t nread, nerr;
        double lat_sum, lat_max;
        char last_error[sizeof sl->last_error];
    } st;
    struct slot *m = (struct slot *)sl; /* the mutex only */
    if (m->mu_ok)
        pthread_mutex_lock(&m->mu);
    st.nread = sl->nread, st.nerr = sl->nerr, st.lat_sum = sl->lat_sum, st.lat_max = sl->lat_max;
    memcpy(st.last_error, sl->last_error, sizeof st.last_error);
    if (m->mu_ok)
        pthread_mutex_unlock(&m->mu);
    json_t *e = json_object();
    json_object_set_new(e, "source", json_string(sl->src.name));
    json_object_set_new(e, "scope", json_string(power_scope_name(sl->src.scope)));
    json_object_set_new(e, "series",
                        sl->col >= 0 ? json_string(ps->colname[sl->col]) : json_null());
    json_object_set_new(e, "mean_w", num(f.mean));
    json_object_set_new(e, "peak_w", num(f.peak));
    const char *reason = sl->ok ? NULL : sl->src.reason;
    char why[512];
    if (!reason && !isfinite(f.mean)) {
        if (st.nerr && st.nerr == st.nread)
            snprintf(why, sizeof why, "%s: every reading failed (%llu), the last: %s", sl->src.name,
                     (unsigned long long)st.nerr, st.last_error);
        else
            snprintf(why, sizeof why, "%s: no reading inside the run (%llu in all)", sl->src.name,
                     (unsigned long long)st.nread);
        reason = why;
    }
    json_object_set_new(e, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(e, "used_for_per_watt", json_boolean(sl->primary && sl->ok));
    json_object_set_new(e, "polled", json_boolean(sl->src.ops->polled));
    json_object_set_new(e, "n_readings", json_integer((json_int_t)f.nin));
    json_object_set_new(e, "errors", json_integer((json_int_t)st.nerr));
    if (st.last_error[0])
        json_object_set_new(e, "last_error", json_string(st.last_error));
    json_object_set_new(e, "interval_s",
                        json_pack("{s:o, s:o}", "mean", num(f.gap_mean), "max", num(f.gap_max)));
    double lmean = st.nread ? st.lat_sum / (double)st.nread : NAN;
    json_object_set_new(
        e, "latency_ms",
        json_pack("{s:o, s:o}", "mean", num(lmean), "max", num(st.nread ? st.lat_max : NAN)));
    json_object_set_new(e, "device_interval_s", num(sl->src.device_interval_s));
    if (sl->src.device_interval_from[0])
        json_object_set_new(e, "device_interval_from", json_string(sl->src.device_interval_from));
    if (sl->src.ops->polled)
        json_object_set_new(e, "update_interval_s", num(f.update));
    char note[768];
    int slow = sl->ok && slower(ps, sl, &f, note, sizeof note);
    json_object_set_new(e, "slower_than_sample", json_boolean(slow));
    if (slow)
        json_object_set_new(e, "note", json_string(note));
    if (sl->src.detail)
        json_object_update(e, sl->src.detail);
    if (sl->src.ops->polled && sl->ok) {
        double *t, *w, *lat;
        size_t n = readings_copy(sl, &t, &w, &lat);
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, json_pack("{s:o, s:o, s:o}", "t", num(t[i]), "w", num(w[i]),
                                                 "latency_ms", num(lat[i])));
        json_object_set_new(e, "readings", arr);
        free(t), free(w), free(lat);
    }
    return e;
}

static const struct slot *primary_of(const struct power_set *ps, enum power_scope sc) {
    for (unsigned i = 0; ps && i < ps->n; i++)
        if (ps->s[i].primary && ps->s[i].ok && ps->s[i].src.scope == sc)
            return &ps->s[i];
    return NULL;
}

double power_set_mean(const struct power_set *ps, enum power_scope scope, double a, double b,
                      power_colstat_fn stat, const void *ctx) {
    const struct slot *sl = primary_of(ps, scope);
    if (!sl)
        return NAN;
    struct figures f;
    figures_of(ps, sl, a, b, stat, ctx, &f);
    return f.mean;
}

const char *power_set_reason(const struct power_set *ps, enum power_scope scope) {
    static const char none[] = "no power source";
    if (!ps)
        return none;
    if (primary_of(ps, scope))
        return "";
    for (unsigned i = 0; i < ps->n; i++)
        if (ps->s[i].src.scope == scope && ps->s[i].src.reason[0])
            return ps->s[i].src.reason;
    return ps->absent[scope][0] ? ps->absent[scope] : none;
}

json_t *power_set_json(const struct power_set *ps, double a, double b, power_colstat_fn stat,
                       const void *ctx) {
    json_t *arr = json_array();
    if (!ps)
        return arr;
    /* Scope by scope: the measuring sources first (the per-watt one at the
     * head), then those that could not measure. A scope with nothing at
     * all still gets an entry for the package and the platform, so a
     * reader finds the reason where the figure would be. */
    for (int sc = 0; sc < PSCOPE_COUNT; sc++) {
        static const enum power_scope order[] = {PSCOPE_PACKAGE, PSCOPE_PLATFORM, PSCOPE_SOCKET};
        enum power_scope s = order[sc];
        size_t before = json_array_size(arr);
        for (int pass = 0; pass < 2; pass++)
            for (unsigned i = 0; i < ps->n; i++)
                if (ps->s[i].src.scope == s && ps->s[i].ok == !pass)
                    json_array_append_new(arr, entry_json(ps, &ps->s[i], a, b, stat, ctx));
        if (json_array_size(arr) == before && s != PSCOPE_SOCKET)
            json_array_append_new(
                arr, json_pack("{s:n, s:s, s:n, s:n, s:n, s:s, s:b}", "source", "scope",
                               power_scope_name(s), "series", "mean_w", "peak_w", "reason",
                               ps->absent[s][0] ? ps->absent[s] : "no power source",
                               "used_for_per_watt", 0));
    }
    return arr;
}

void power_set_say(const struct power_set *ps, FILE *f) {
    for (unsigned i = 0; ps && i < ps->n; i++) {
        const struct slot *sl = &ps->s[i];
        /* No package power is the usual case in a VM and said in the result. */
        if (sl->ok || (sl->src.scope == PSCOPE_PACKAGE && !sl->src.asked))
            continue;
        fprintf(f, "harness: warning: %s power: %s; it is null in the result\n",
                power_scope_name(sl->src.scope), sl->src.reason);
    }
}

void power_set_warnings(const struct power_set *ps, double a, double b, json_t *warnings) {
    for (unsigned i = 0; ps && i < ps->n; i++) {
        const struct slot *sl = &ps->s[i];
        struct figures f;
        char note[768];
        if (!sl->ok)
            continue;
        figures_of(ps, sl, a, b, NULL, NULL, &f);
        if (slower(ps, sl, &f, note, sizeof note))
            json_array_append_new(warnings, json_string(note));
    }
}

void power_set_free(struct power_set *ps) {
    if (!ps)
        return;
    power_set_end(ps);
    for (unsigned i = 0; i < ps->n; i++) {
        struct slot *sl = &ps->s[i];
        if (sl->mu_ok) {
            pthread_mutex_destroy(&sl->mu);
            pthread_cond_destroy(&sl->cv);
        }
        free(sl->r);
        json_decref(sl->src.detail);
    }
    free(ps);
}
