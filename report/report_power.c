/* report_power.c -- see report_power.h. telemetry.power is one entry per
 * source ({source, scope, mean_w, peak_w, reason, series, ...}); figures
 * carry the entry's index in their data-key, as result.json has them. */
#include "report_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first entry of a scope: the one its AOPS per watt uses. -1: none. */
static int entry_of(const json_t *r, const char *scope) {
    json_t *pw = jget(r, "telemetry.power");
    for (size_t i = 0; i < json_array_size(pw); i++) {
        const char *s = json_string_value(json_object_get(json_array_get(pw, i), "scope"));
        if (s && !strcmp(s, scope))
            return (int)i;
    }
    return -1;
}

static void card(struct sbuf *b, const json_t *r, const char *scope, const char *label,
                 const char *total, const char *id) {
    int i = entry_of(r, scope);
    char k[96];
    sb_printf(b, "<div class=\"card\"><div class=\"label\">%s</div><div class=\"big\">", label);
    double apw = jnum(r, total);
    if (isfinite(apw)) {
        sb_num(b, total, apw, 3);
        snprintf(k, sizeof k, "telemetry.power.%d.mean_w", i);
        sb_printf(b, "</div><div class=\"note\">mean %s power ", scope);
        sb_num(b, k, jnum(r, k), 1);
        snprintf(k, sizeof k, "telemetry.power.%d.source", i);
        sb_puts(b, " W (");
        sb_esc(b, jstr(r, k));
        sb_puts(b, ")</div></div>\n");
        return;
    }
    snprintf(k, sizeof k, "telemetry.power.%d.reason", i);
    const char *why = i >= 0 ? jstr(r, k) : NULL;
    sb_printf(b, "<span id=\"%s\">unavailable</span></div><div class=\"note\">", id);
    sb_esc(b, why ? why : "no power source of this scope");
    sb_puts(b, "</div></div>\n");
}

void report_power_cards(struct sbuf *b, const json_t *r) {
    card(b, r, "package", "AOPS per watt (CPU package)", "totals.aops_per_watt",
         "aops-per-watt-unavailable");
    card(b, r, "platform", "AOPS per watt (platform, at the wall)", "totals.aops_per_watt_platform",
         "aops-per-watt-platform-unavailable");
}

void report_power_rows(struct sbuf *b, const json_t *r) {
    json_t *pw = jget(r, "telemetry.power");
    for (size_t i = 0; i < json_array_size(pw); i++) {
        json_t *e = json_array_get(pw, i);
        const char *src = json_string_value(json_object_get(e, "source"));
        char k[96];
        sb_puts(b, "<tr><td>");
        sb_esc(b, json_string_value(json_object_get(e, "scope")));
        sb_puts(b, " power");
        if (src) {
            sb_puts(b, ", ");
            sb_esc(b, src);
        }
        sb_puts(b, " (W)");
        const char *why = json_string_value(json_object_get(e, "reason"));
        const char *note = json_string_value(json_object_get(e, "note"));
        if (why || note) {
            sb_puts(b, "<div class=\"note\">");
            sb_esc(b, why ? why : note);
            sb_puts(b, "</div>");
        }
        sb_puts(b, "</td><td>");
        snprintf(k, sizeof k, "telemetry.power.%zu.mean_w", i);
        sb_num(b, k, jnum(r, k), 1);
        sb_puts(b, "</td><td>");
        snprintf(k, sizeof k, "telemetry.power.%zu.peak_w", i);
        sb_num(b, k, jnum(r, k), 1);
        sb_puts(b, "</td></tr>\n");
    }
}

void report_power_chart(struct sbuf *b, const json_t *r, const double *t, size_t n,
                        const struct chart_span *spans, size_t nspans) {
    json_t *pw = jget(r, "telemetry.power"), *series = jget(r, "telemetry.series");
    struct chart_series s[8];
    char names[8][96];
    double *y[8] = {0};
    size_t ns = 0;
    for (size_t i = 0; i < json_array_size(pw) && ns < 8; i++) {
        json_t *e = json_array_get(pw, i);
        const char *col = json_string_value(json_object_get(e, "series"));
        if (!col || !(y[ns] = calloc(n + 1, sizeof *y[ns])))
            continue;
        size_t finite = 0;
        for (size_t j = 0; j < n; j++)
            finite += isfinite(y[ns][j] = jnum(json_array_get(series, j), col)) != 0;
        if (!finite) {
            free(y[ns]);
            y[ns] = NULL;
            continue;
        }
        snprintf(names[ns], sizeof names[ns], "%s (%s)",
                 json_string_value(json_object_get(e, "scope")),
                 json_string_value(json_object_get(e, "source")));
        s[ns] = (struct chart_series){names[ns], t, y[ns], n};
        ns++;
    }
    if (ns) {
        svg_line_chart(b, "power", "power by source and scope", "seconds since start", "W", s, ns,
                       spans, nspans, 0);
    } else { /* say so instead of drawing a flat line of zeros */
        const char *why = jstr(r, "telemetry.power_unavailable_reason");
        sb_puts(b, "<figure><div class=\"unavail\" id=\"power-unavailable\"><b>Power: "
                   "unavailable.</b> ");
        sb_esc(b, why ? why : "no power source was found");
        sb_puts(b, "</div></figure>\n");
    }
    for (size_t i = 0; i < ns; i++)
        free(y[i]);
}
