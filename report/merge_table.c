/* merge_table.c -- the per-host table of a merged result in `harness
 * report`: one row per shard (the text table of the summary and `harness
 * compare` is result/summary.c's). A result without "shards" (one
 * host) gets nothing. */
#include "merge_table.h"
#include "../common/json.h"

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
