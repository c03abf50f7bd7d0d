/* prepare_plan.c -- the arithmetic and the words of prepare's plan (see
 * prepare_plan.h). Nothing here asks a server or touches a file: the
 * figures come in a struct wl_plan from each workload's plan hook. */
#include "prepare_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double plan_on_drives(double bytes, unsigned data, unsigned parity) {
    if (data == 0)
        data = 1, parity = 0;
    return bytes * (double)(data + parity) / (double)data;
}

double plan_margin(double on_drives) {
    double m = on_drives * PLAN_MARGIN_SHARE;
    return m > PLAN_MARGIN_MIN ? m : PLAN_MARGIN_MIN;
}

void plan_totals(const struct wl_plan *p, struct plan_totals *t) {
    memset(t, 0, sizeof *t);
    t->free = -1;
    if (!p->writes || p->bytes < 0)
        return;
    t->write = p->bytes - p->present > 0 ? p->bytes - p->present : 0;
    if (t->write == 0)
        return; /* all there: nothing to write, nothing to check */
    t->parity = plan_on_drives(t->write, p->data_shards, p->parity_shards) - t->write;
    t->margin = plan_margin(t->write + t->parity);
    t->need = t->write + t->parity + t->margin;
    if (!p->space_known) {
        t->verdict = PLAN_UNKNOWN;
        return;
    }
    t->free = p->free_bytes;
    t->verdict = t->need <= t->free ? PLAN_FITS : PLAN_TOO_BIG;
    if (t->verdict == PLAN_TOO_BIG)
        t->shortfall = t->need - t->free;
}

void plan_size(char *buf, size_t len, double b) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    if (!(b > 0)) {
        snprintf(buf, len, "0 B");
        return;
    }
    while (b >= 1024 && u < 5)
        b /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%.0f B", b);
    else
        snprintf(buf, len, "%.*f %s", b >= 100 ? 0 : b >= 10 ? 1 : 2, b, unit[u]);
}

void plan_duration(char *buf, size_t len, double s) {
    if (!(s >= 0) || isinf(s)) {
        snprintf(buf, len, "unknown");
        return;
    }
    double r = floor(s + 0.5);
    if (r < 60)
        snprintf(buf, len, "about %.0f s", r < 1 ? 1 : r);
    else if (r < 3600)
        snprintf(buf, len, "about %.0f min", floor(r / 60 + 0.5));
    else if (r < 86400 * 2)
        snprintf(buf, len, "about %.0f h %.0f min", floor(r / 3600),
                 floor(fmod(r, 3600) / 60 + 0.5) >= 60 ? 59 : floor(fmod(r, 3600) / 60 + 0.5));
    else
        snprintf(buf, len, "about %.1f days", r / 86400);
}

/* "304640" -> "304,640" */
static void thousands(char *buf, size_t len, unsigned long long v) {
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%llu", v), o = 0;
    for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = 0;
}

void plan_print(FILE *f, const char *const names[], const struct wl_plan *plans,
                const struct plan_totals *totals, unsigned n, double rate, const char *rate_src,
                int no_space_check) {
    double write = 0;
    fprintf(f, "harness prepare will:\n");
    for (unsigned i = 0; i < n; i++) {
        const struct wl_plan *p = &plans[i];
        const struct plan_totals *t = &totals[i];
        char items[32], size[32], a[32], b[32], c[32], d[32];
        thousands(items, sizeof items, (unsigned long long)p->items);
        plan_size(size, sizeof size, p->bytes);
        fprintf(f, "  %-7s %s %s %s%s%s%s%s%s\n", names[i], p->writes ? "write" : "check", items,
                p->unit, p->bytes >= 0 ? ", " : "", p->bytes >= 0 ? size : "",
                p->detail[0] ? " (" : "", p->detail, p->detail[0] ? ")" : "");
        fprintf(f, "          %s\n", p->where);
        if (!p->writes || p->bytes < 0)
            continue;
        plan_size(a, sizeof a, p->present);
        plan_size(b, sizeof b, t->write);
        if (p->present > 0)
            fprintf(f, "          %s already there from an earlier prepare: %s to write\n", a, b);
        if (t->write == 0)
            continue;
        write += t->write;
        plan_size(a, sizeof a, t->parity);
        plan_size(c, sizeof c, t->margin);
        plan_size(d, sizeof d, t->need);
        if (p->layout[0])
            fprintf(f, "          + %s parity: %s\n", a, p->layout);
        else
            fprintf(f, "          + parity unknown: %s\n", p->space_src);
        fprintf(f, "          + %s margin (5 %% or 1 GiB, the larger) = %s needed\n", c, d);
        if (t->verdict == PLAN_UNKNOWN)
            fprintf(f, "          drives' free space: unknown (%s)\n", p->space_src);
        else {
            plan_size(a, sizeof a, t->free);
            fprintf(f, "          drives' free space: %s (%s)%s", a, p->space_src,
                    t->verdict == PLAN_FITS ? ": fits\n" : "");
            if (t->verdict == PLAN_TOO_BIG) {
                plan_size(b, sizeof b, t->shortfall);
                fprintf(f, ": %s short\n", b);
            }
        }
    }
    char dur[64], r[32];
    if (write > 0 && rate > 0) {
        plan_duration(dur, sizeof dur, write / rate);
        plan_size(r, sizeof r, rate);
        fprintf(f, "  time    %s at this machine's measured upload rate (%s/s, %s)\n", dur, r,
                rate_src);
    } else if (write > 0)
        fprintf(f, "  time    unknown (%s)\n", rate_src);
    if (no_space_check)
        fprintf(f, "  --no-space-check: written even if it does not fit (recorded)\n");
    fflush(f);
}

void plan_refusal(char *buf, size_t len, const char *name, const struct wl_plan *p,
                  const struct plan_totals *t) {
    char need[32], w[32], par[32], m[32], fr[32], sh[32];
    plan_size(need, sizeof need, t->need);
    plan_size(w, sizeof w, t->write);
    plan_size(par, sizeof par, t->parity);
    plan_size(m, sizeof m, t->margin);
    plan_size(fr, sizeof fr, t->free);
    plan_size(sh, sizeof sh, t->shortfall);
    snprintf(buf, len,
             "%s: %s do not fit: %s needed (%s of %s + %s parity + %s margin), the drives have "
             "%s free, %s short; nothing written (--profile small, --dataset shared or fewer "
             "--containers need less; --no-space-check writes anyway)",
             name, p->unit, need, w, p->unit, par, m, fr, sh);
}
