/* merge_table.c -- the per-host table of a merged result: one row per
 * shard, in the summary and `harness compare` (text) and in `harness
 * report` (HTML). A result without "shards" (one host) gets nothing. */
#include <math.h>
#include <stdio.h>

#include "../common/json.h"
#include "../coordinator/merge.h"
#include "report_html.h"

static const char *num(char *buf, size_t len, const char *f, double x) {
    if (isnan(x))
        return "-";
    snprintf(buf, len, f, x);
    return buf;
}

void shards_print(const json_t *res, FILE *f) {
    const json_t *shards = json_object_get(res, "shards");
    if (!json_is_array(shards) || !json_array_size(shards))
        return;
    fprintf(f, "  per host (%zu shards on %.0f machine(s)):\n", json_array_size(shards),
            jnum(res, "system.hosts"));
    fprintf(f, "  %5s  %-20s %10s %10s %7s %10s %9s %20s %6s\n", "shard", "host", "containers",
            "ops", "errors", "AOPS", "wall s", "clock offset ms", "valid");
    size_t i;
    const json_t *s;
    json_array_foreach(shards, i, s) {
        char b[7][48];
        double off = jnum(s, "clock_offset_s"), unc = jnum(s, "clock_uncertainty_s");
        if (!isnan(off))
            snprintf(b[5], sizeof b[5], "%+.1f +- %.1f", off * 1000, isnan(unc) ? 0 : unc * 1000);
        else
            snprintf(b[5], sizeof b[5], "-");
        fprintf(f, "  %5s  %-20.20s %10s %10s %7s %10s %9s %20s %6s\n",
                num(b[0], 48, "%.0f", jnum(s, "shard")), jstr(s, "host") ? jstr(s, "host") : "?",
                num(b[1], 48, "%.0f", jnum(s, "containers")), num(b[2], 48, "%.0f", jnum(s, "ops")),
                num(b[3], 48, "%.0f", jnum(s, "errors")), num(b[4], 48, "%.2f", jnum(s, "aops")),
                num(b[6], 48, "%.3f", jnum(s, "wall_seconds")), b[5],
                json_is_true(json_object_get(s, "valid")) ? "yes" : "NO");
    }
}

void shards_html(struct sbuf *b, const json_t *res) {
    const json_t *shards = json_object_get(res, "shards");
    if (!json_is_array(shards) || !json_array_size(shards))
        return;
    sb_printf(b,
              "<h2>Hosts</h2>\n<p class=\"sub\">%zu shards on %.0f machine(s), released "
              "together; each host's telemetry, windows and inventory are in its "
              "shards[] entry of result.json.</p>\n",
              json_array_size(shards), jnum(res, "system.hosts"));
    sb_puts(b, "<table id=\"shards\"><tr><th>shard</th><th>host</th><th>containers</th>"
               "<th>ops</th><th>errors</th><th>AOPS</th><th>wall s</th><th>clock offset s</th>"
               "<th>CPU util %</th><th>power W</th><th>valid</th></tr>\n");
    static const struct {
        const char *key;
        int dec;
        double scale;
    } cols[] = {{"containers", 0, 1},    {"ops", 0, 1},          {"errors", 0, 1},
                {"aops", 2, 1},          {"wall_seconds", 3, 1}, {"clock_offset_s", 4, 1},
                {"cpu_util_mean", 1, 1}, {"power_w", 1, 1}};
    size_t i;
    const json_t *s;
    json_array_foreach(shards, i, s) {
        char k[96];
        sb_printf(b, "<tr><td>%.0f</td><td>", jnum(s, "shard"));
        sb_esc(b, jstr(s, "host"));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            snprintf(k, sizeof k, "shards.%zu.%s", i, cols[c].key);
            sb_puts(b, "</td><td>");
            sb_num(b, k, jnum(s, cols[c].key) * cols[c].scale, cols[c].dec);
        }
        sb_printf(b, "</td><td>%s</td></tr>\n",
                  json_is_true(json_object_get(s, "valid")) ? "yes" : "<b>no</b>");
    }
    sb_puts(b, "</table>\n");
}
