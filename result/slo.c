/* slo.c -- an SLO's parser and a result's verdict against it (see slo.h).
 *
 * The grammar, one term per comma:  WORKLOAD[.CLASS].pP<=N(us|ms|s)
 * P is a percentile in (0, 100] with up to 6 decimals (p100 is the
 * maximum), N a decimal in (0 s, 1 day]. Spaces around a term and around
 * its "<=" are allowed, nothing else: a bound is a contract, so anything the
 * parser would have to guess at is refused instead. */
#include "slo.h"

#include <math.h>
#include <string.h>

#include "../workloads/workload.h"
#include "hist.h"
#include "histjson.h"

#define DAY_NS 86400000000000ULL

_Static_assert(sizeof(((struct config *)0)->slo) == SLO_SPEC_MAX, "config.slo holds a spec");

/* The term as it can be shown in one line: printable ASCII, at most 60
 * bytes (a hostile spec's control characters never reach a terminal). */
static void shown(const char *p, size_t len, char *out, size_t outlen) {
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < outlen && i < 60; i++)
        out[o++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
    if (len > 60 && o + 4 < outlen)
        out[o++] = '.', out[o++] = '.', out[o++] = '.';
    out[o] = 0;
}

static int is_space(char c) {
    return c == ' ' || c == '\t';
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

/* A name of [A-Za-z0-9_-], 1..SLO_NAME_MAX-1 bytes, into out. */
static const char *take_name(const char *p, size_t len, char *out, const char *what) {
    if (!len)
        return what[0] == 'w' ? "no workload name before the first '.'" : "an empty class name";
    if (len >= SLO_NAME_MAX)
        return what[0] == 'w' ? "the workload name is too long" : "the class name is too long";
    for (size_t i = 0; i < len; i++)
        if (!is_name_char(p[i]))
            return what[0] == 'w' ? "the workload name holds a character other than "
                                    "letters, digits, '_' and '-'"
                                  : "the class name holds a character other than letters, "
                                    "digits, '_' and '-'";
    memcpy(out, p, len);
    out[len] = 0;
    return NULL;
}

/* Digits, then optionally '.' and digits: the integer and fraction parts'
 * extents. NULL, or why not. */
static const char *take_decimal(const char *p, size_t len, size_t maxint, size_t maxfrac,
                                size_t *nint, size_t *nfrac) {
    size_t i = 0;
    while (i < len && is_digit(p[i]))
        i++;
    *nint = i;
    *nfrac = 0;
    if (!i)
        return "a number is missing";
    if (i > maxint)
        return "the number has too many digits";
    if (i < len && p[i] == '.') {
        size_t f = ++i;
        while (i < len && is_digit(p[i]))
            i++;
        *nfrac = i - f;
        if (!*nfrac)
            return "no digit after the decimal point";
        if (*nfrac > maxfrac)
            return "the number has too many decimals";
    }
    return NULL;
}

/* The decimal of nint + nfrac digits at p (a '.' between) as a double:
 * digit by digit, so no locale and no exponent can change what it means. */
static double decimal_value(const char *p, size_t nint, size_t nfrac) {
    double v = 0, scale = 1;
    for (size_t i = 0; i < nint; i++)
        v = v * 10 + (p[i] - '0');
    for (size_t i = 0; i < nfrac; i++) {
        scale /= 10;
        v += (p[nint + 1 + i] - '0') * scale;
    }
    return v;
}

/* pP: the percentile, its fraction and its reported name. */
static const char *take_pct(const char *p, size_t len, struct slo_term *t) {
    if (!len || p[0] != 'p')
        return "no percentile: write it as p50, p99, p99.9 after the workload";
    size_t ni, nf;
    const char *why = take_decimal(p + 1, len - 1, 3, 6, &ni, &nf);
    if (why)
        return ni ? why : "no number after 'p' (p50, p99, p99.9)";
    if (1 + ni + (nf ? 1 + nf : 0) != len)
        return "the percentile is not of the form pN or pN.N (p50, p99, p99.9)";
    double v = decimal_value(p + 1, ni, nf);
    if (!(v > 0) || v > 100)
        return "a percentile is above 0 and at most 100";
    t->q = v / 100;
    /* Reported as written, without leading or trailing zeros. */
    size_t s = 0;
    while (s + 1 < ni && p[1 + s] == '0')
        s++;
    while (nf && p[1 + ni + nf] == '0')
        nf--;
    snprintf(t->pct, sizeof t->pct, "p%.*s%s%.*s", (int)(ni - s), p + 1 + s, nf ? "." : "", (int)nf,
             p + 2 + ni);
    return NULL;
}

/* N(us|ms|s) into t->bound_ns. */
static const char *take_bound(const char *p, size_t len, struct slo_term *t) {
    size_t ni, nf;
    const char *why = take_decimal(p, len, 12, 9, &ni, &nf);
    if (why)
        return ni ? why : "no bound after '<=' (250ms, 3s, 800us)";
    size_t used = ni + (nf ? 1 + nf : 0);
    const char *u = p + used;
    size_t ul = len - used;
    double scale;
    if (ul == 2 && !memcmp(u, "us", 2))
        scale = 1e3;
    else if (ul == 2 && !memcmp(u, "ms", 2))
        scale = 1e6;
    else if (ul == 1 && u[0] == 's')
        scale = 1e9;
    else
        return ul ? "the unit is not us, ms or s" : "no unit after the bound (us, ms or s)";
    double ns = decimal_value(p, ni, nf) * scale;
    if (!(ns >= 0.5))
        return "a bound is above 0 (and at least 1 ns)";
    if (ns > (double)DAY_NS)
        return "a bound is at most a day (86400s)";
    t->bound_ns = (uint64_t)llround(ns);
    return NULL;
}

static void trim(const char **p, size_t *len) {
    while (*len && is_space(**p))
        (*p)++, (*len)--;
    while (*len && is_space((*p)[*len - 1]))
        (*len)--;
}

static const char *parse_term(const char *p, size_t len, struct slo_term *t) {
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7f)
            return "a character that is not printable ASCII";
    const char *op = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (p[i] == '<' && p[i + 1] == '=') {
            if (op)
                return "two '<=' in one term (separate terms with ',')";
            op = p + i;
        }
    if (!op)
        return memchr(p, '<', len) || memchr(p, '>', len) || memchr(p, '=', len)
                   ? "the operator is '<=': a bound is the most a percentile may be"
                   : "no '<=' (workload.p99<=250ms)";
    const char *l = p, *r = op + 2;
    size_t ll = (size_t)(op - p), rl = len - (size_t)(r - p);
    trim(&l, &ll);
    trim(&r, &rl);
    const char *dot = memchr(l, '.', ll);
    if (!dot)
        return "no percentile: write it as workload.p99 (or workload.class.p99)";
    const char *why = take_name(l, (size_t)(dot - l), t->workload, "workload");
    if (why)
        return why;
    const char *rest = dot + 1;
    size_t rlen = ll - (size_t)(rest - l);
    if (!(rlen >= 2 && rest[0] == 'p' && is_digit(rest[1]))) {
        const char *d2 = memchr(rest, '.', rlen);
        if (!d2)
            return "no percentile after the class (workload.class.p99)";
        if ((why = take_name(rest, (size_t)(d2 - rest), t->klass, "class")))
            return why;
        rlen -= (size_t)(d2 + 1 - rest);
        rest = d2 + 1;
    }
    if ((why = take_pct(rest, rlen, t)))
        return why;
    return take_bound(r, rl, t);
}

/* The bound as a term writes it, exactly: the largest unit that holds it. */
static void bound_text(uint64_t ns, char *out, size_t len) {
    if (ns % 1000000000ULL == 0)
        snprintf(out, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
    else if (ns % 1000000ULL == 0)
        snprintf(out, len, "%llums", (unsigned long long)(ns / 1000000ULL));
    else if (ns % 1000ULL == 0)
        snprintf(out, len, "%lluus", (unsigned long long)(ns / 1000ULL));
    else
        snprintf(out, len, "%.3fus", (double)ns / 1e3);
}

/* s->spec from its terms. */
static void spell(struct slo *s) {
    size_t o = 0;
    s->spec[0] = 0;
    for (unsigned i = 0; i < s->n && o < sizeof s->spec; i++) {
        const struct slo_term *t = &s->t[i];
        char b[48];
        bound_text(t->bound_ns, b, sizeof b);
        o += (size_t)snprintf(s->spec + o, sizeof s->spec - o, "%s%s%s%s.%s<=%s", i ? "," : "",
                              t->workload, t->klass[0] ? "." : "", t->klass, t->pct, b);
    }
}

int slo_parse(const char *spec, struct slo *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!spec || !spec[0] || !strcmp(spec, "default")) {
        int rc = slo_parse(SLO_DEFAULT_SPEC, out, err, errlen);
        out->is_default = 1;
        return rc;
    }
    size_t total = strnlen(spec, SLO_SPEC_MAX);
    if (total >= SLO_SPEC_MAX) {
        snprintf(err, errlen, "the SLO is longer than %d bytes", SLO_SPEC_MAX - 1);
        return -1;
    }
    struct slo s;
    memset(&s, 0, sizeof s);
    unsigned k = 0;
    for (const char *p = spec;; k++) {
        const char *comma = memchr(p, ',', total - (size_t)(p - spec));
        const char *tp = p;
        size_t len = comma ? (size_t)(comma - p) : total - (size_t)(p - spec);
        trim(&tp, &len);
        char show[80];
        shown(tp, len, show, sizeof show);
        const char *why = NULL;
        if (!len)
            why = "an empty term (two commas, or one at an end)";
        else if (k >= SLO_MAX_TERMS)
            why = "more than 16 terms";
        else if (!(why = parse_term(tp, len, &s.t[k])))
            for (unsigned j = 0; j < k && !why; j++)
                if (!strcmp(s.t[j].workload, s.t[k].workload) &&
                    !strcmp(s.t[j].klass, s.t[k].klass) && s.t[j].q == s.t[k].q)
                    why = "a second bound on the same percentile";
        if (why) {
            snprintf(err, errlen, "SLO term %u '%s': %s", k + 1, show, why);
            return -1;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    s.n = k + 1;
    spell(&s);
    *out = s;
    return 0;
}

int slo_check_names(const struct slo *s, char *err, size_t errlen) {
    for (unsigned i = 0; i < s->n; i++) {
        const struct slo_term *t = &s->t[i];
        const struct workload *wl = workload_find(t->workload);
        if (!wl) {
            char names[256] = "";
            size_t o = 0;
            for (int k = 0; workload_table[k] && o < sizeof names; k++)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                      workload_table[k]->name);
            snprintf(err, errlen, "SLO term %u: no workload '%s' (there are %s)", i + 1,
                     t->workload, names);
            return -1;
        }
        if (!t->klass[0])
            continue;
        unsigned c = 0;
        while (c < wl->nclasses && strcmp(wl->class_names[c], t->klass))
            c++;
        if (c == wl->nclasses) {
            char names[256] = "";
            size_t o = 0;
            for (unsigned k = 0; k < wl->nclasses && o < sizeof names; k++)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                      wl->class_names[k]);
            snprintf(err, errlen, "SLO term %u: workload %s has no class '%s' (%s%s)", i + 1,
                     t->workload, t->klass, wl->nclasses ? "its classes: " : "it has none", names);
            return -1;
        }
    }
    return 0;
}

int slo_from_config(const struct config *cfg, struct slo *out, char *err, size_t errlen) {
    if (slo_parse(cfg->slo, out, err, errlen) != 0 || slo_check_names(out, err, errlen) != 0)
        return -1;
    unsigned kept = 0;
    for (unsigned i = 0; i < out->n; i++) {
        int idx = workload_index(workload_find(out->t[i].workload));
        int runs = idx >= 0 && (cfg->wl_mask >> idx & 1);
        if (!runs && !out->is_default) {
            snprintf(err, errlen,
                     "SLO term %u: this run does not run workload %s (--workloads %s): a bound "
                     "on it could never be met",
                     i + 1, out->t[i].workload, cfg->workloads[0] ? cfg->workloads : "all");
            return -1;
        }
        if (runs)
            out->t[kept++] = out->t[i];
    }
    out->n = kept;
    spell(out);
    return 0;
}

/* One term against the result. */
static json_t *check_term(const struct slo_term *t, const json_t *res) {
    const json_t *hists = json_object_get(res, "histograms");
    const json_t *wl = json_object_get(json_object_get(res, "workloads"), t->workload);
    const json_t *hw = json_object_get(json_object_get(hists, "workloads"), t->workload);
    const struct workload *desc = workload_find(t->workload);
    json_t *c = json_pack("{s:s}", "workload", t->workload);
    if (t->klass[0])
        json_object_set_new(c, "class", json_string(t->klass));
    json_object_set_new(c, "percentile", json_string(t->pct));
    json_object_set_new(c, "bound_ms", json_real((double)t->bound_ns / 1e6));
    char why[256] = "";
    if (!json_is_object(wl) || !json_is_object(hw))
        snprintf(why, sizeof why, "the result holds no workload %s", t->workload);
    else if (t->klass[0]) {
        const char *key = desc && desc->classes_key ? desc->classes_key : "classes";
        wl = json_object_get(json_object_get(wl, key), t->klass);
        hw = json_object_get(json_object_get(hw, key), t->klass);
        if (!json_is_object(wl) || !json_is_object(hw))
            snprintf(why, sizeof why, "the result holds no class %s of %s", t->klass, t->workload);
    } else
        hw = json_object_get(hw, "latency_ms");
    json_t *errors = json_object_get(wl, "errors");
    struct hist h;
    hist_init(&h);
    if (!why[0] && (!json_is_integer(errors) || json_integer_value(errors) < 0))
        snprintf(why, sizeof why, "the result holds no error count for it");
    if (!why[0] && !hists_format_ok(hists))
        snprintf(why, sizeof why, "the histograms are of another bucket layout");
    char herr[160];
    if (!why[0] && hist_from_json(hw, &h, herr, sizeof herr) != 0)
        snprintf(why, sizeof why, "its histogram: %s", herr);
    if (!why[0] && !h.count)
        snprintf(why, sizeof why, "no operation of it completed");
    json_int_t nerr = json_is_integer(errors) ? json_integer_value(errors) : 0;
    json_object_set_new(c, "measured_ms",
                        why[0] ? json_null() : json_real((double)hist_quantile(&h, t->q) / 1e6));
    json_object_set_new(c, "errors", json_is_integer(errors) ? json_integer(nerr) : json_null());
    if (!why[0] && nerr > 0)
        snprintf(why, sizeof why, "%lld operation%s failed: an SLO allows no errors",
                 (long long)nerr, nerr == 1 ? "" : "s");
    int met = !why[0] && hist_quantile(&h, t->q) <= t->bound_ns;
    json_object_set_new(c, "met", json_boolean(met));
    json_object_set_new(c, "reason", why[0] ? json_string(why) : json_null());
    return c;
}

json_t *slo_verdict(const struct slo *s, const json_t *res) {
    json_t *checks = json_array();
    int met = 1;
    for (unsigned i = 0; i < s->n; i++) {
        json_t *c = check_term(&s->t[i], res);
        met &= json_is_true(json_object_get(c, "met"));
        json_array_append_new(checks, c);
    }
    return json_pack(
        "{s:s, s:s, s:o, s:o, s:o}", "spec", s->spec, "source", s->is_default ? "default" : "given",
        "met", s->n ? json_boolean(met) : json_null(), "reason",
        s->n ? json_null() : json_string("no term of the SLO names a workload this result holds"),
        "checks", checks);
}

json_t *slo_unjudged(const char *spec, const char *why) {
    char show[80];
    shown(spec ? spec : "", spec ? strnlen(spec, SLO_SPEC_MAX) : 0, show, sizeof show);
    return json_pack("{s:s, s:s, s:n, s:s, s:[]}", "spec", show, "source", "given", "met", "reason",
                     why, "checks");
}

json_t *slo_judge_run(const struct config *cfg, const json_t *res) {
    struct slo s;
    char err[512];
    if (slo_from_config(cfg, &s, err, sizeof err) != 0)
        return slo_unjudged(cfg->slo, err);
    return slo_verdict(&s, res);
}

void slo_line(const json_t *slo, char *buf, size_t len) {
    size_t o = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (o < len)                                                                               \
            o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                                  \
    } while (0)
    buf[0] = 0;
    const json_t *met = json_object_get(slo, "met");
    const char *src = json_string_value(json_object_get(slo, "source"));
    if (!json_is_boolean(met)) {
        PUT("not judged: %s",
            json_is_object(slo) && json_string_value(json_object_get(slo, "reason"))
                ? json_string_value(json_object_get(slo, "reason"))
                : "no verdict");
        return;
    }
    PUT("%s%s:", json_is_true(met) ? "met" : "NOT met",
        src && !strcmp(src, "default") ? " (the default SLO)" : "");
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(slo, "checks"), i, c) {
        const char *cls = json_string_value(json_object_get(c, "class"));
        const char *why = json_string_value(json_object_get(c, "reason"));
        const char *wl = json_string_value(json_object_get(c, "workload"));
        const char *pct = json_string_value(json_object_get(c, "percentile"));
        PUT("%s %s%s%s.%s ", i ? "," : "", wl ? wl : "?", cls ? "." : "", cls ? cls : "",
            pct ? pct : "?");
        double b = json_number_value(json_object_get(c, "bound_ms"));
        char bound[48]; /* in the unit a person would write it in */
        if (b >= 1000)
            snprintf(bound, sizeof bound, "%g s", b / 1000);
        else if (b >= 1)
            snprintf(bound, sizeof bound, "%g ms", b);
        else
            snprintf(bound, sizeof bound, "%g us", b * 1000);
        if (why)
            PUT("(<= %s) NOT met: %s", bound, why);
        else
            PUT("%.3f ms %s %s", json_number_value(json_object_get(c, "measured_ms")),
                json_is_true(json_object_get(c, "met")) ? "<=" : ">", bound);
    }
#undef PUT
}

void slo_print(const json_t *slo, FILE *f) {
    if (!json_is_object(slo))
        return;
    char line[2048];
    slo_line(slo, line, sizeof line);
    fprintf(f, "  SLO         %s\n", line);
}
