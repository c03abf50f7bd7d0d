/* test_report.c -- unit checks of the report building blocks: escaping (a
 * run directory is untrusted data), number formatting, dotted JSON paths,
 * charts that draw a gap for null rather than a zero, and the CSV export. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "report_html.h"
#include "unit.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(void) {
    struct sbuf b = {0};
    char t[64];

    sb_esc(&b, "<img src=x onerror='a'>&\"");
    CHECKF(!strcmp(b.b.p, "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;"), "%s", b.b.p);
    sb_free(&b);

    CHECK(!strcmp(fmt_num(t, sizeof t, 1234567.891, 1), "1,234,567.9"));
    CHECK(!strcmp(fmt_num(t, sizeof t, 999, 0), "999"));
    CHECK(!strcmp(fmt_num(t, sizeof t, -1234.5, 2), "-1,234.50"));
    CHECK(!strcmp(fmt_num(t, sizeof t, NAN, 2), "–"));
    CHECK(!strcmp(fmt_exact(t, sizeof t, 11.2), "11.2"));
    CHECK(strtod(fmt_exact(t, sizeof t, 1.0 / 3), NULL) == 1.0 / 3);
    CHECK(!strcmp(fmt_bytes(t, sizeof t, 150e6, 0), "150.0 MB"));
    CHECK(!strcmp(fmt_bytes(t, sizeof t, 68719476736.0, 1), "64.00 GiB"));

    json_error_t je;
    json_t *r =
        json_loads("{\"totals\":{\"aops\":12.5,\"aops_per_watt\":null},"
                   "\"containers\":[{\"ops\":3},{\"ops\":4}],\"config\":{\"profile\":\"tiny\"},"
                   "\"telemetry\":{\"series\":[{\"t\":0,\"cpu_util\":5,\"power_w\":null},"
                   "{\"t\":1,\"cpu_util\":7.25,\"power_w\":null}]}}",
                   0, &je);
    CHECK(r != NULL);
    CHECK(jnum(r, "totals.aops") == 12.5);
    CHECK(isnan(jnum(r, "totals.aops_per_watt")));
    CHECK(isnan(jnum(r, "totals.missing.deeper")));
    CHECK(jnum(r, "containers.1.ops") == 4);
    CHECK(isnan(jnum(r, "containers.2.ops")));
    CHECK(!strcmp(jstr(r, "config.profile"), "tiny"));

    sb_num(&b, "totals.aops", 12.5, 1);
    CHECKF(strstr(b.b.p, "data-value=\"12.5\">12.5<") != NULL, "%s", b.b.p);
    sb_free(&b);
    sb_num(&b, "totals.aops_per_watt", NAN, 1);
    CHECK(strstr(b.b.p, "data-value=\"null\"") != NULL);
    sb_free(&b);

    /* A null in the middle splits the line; an all-null series draws nothing. */
    double x[] = {0, 1, 2, 3, 4}, y[] = {1, 2, NAN, 3, 4}, z[] = {NAN, NAN, NAN, NAN, NAN};
    struct chart_series s = {"s", x, y, 5};
    svg_line_chart(&b, "c", "title <x>", "t", "u", &s, 1, NULL, 0, 0);
    CHECK(strstr(b.b.p, "data-marks=\"4\"") != NULL);
    CHECK(strstr(b.b.p, "<polyline") && strstr(strstr(b.b.p, "<polyline") + 1, "<polyline"));
    CHECK(strstr(b.b.p, "title &lt;x&gt;") != NULL);
    sb_free(&b);
    s.y = z;
    svg_line_chart(&b, "c", "empty", "t", "u", &s, 1, NULL, 0, 0);
    CHECK(strstr(b.b.p, "data-marks=\"0\"") && !strstr(b.b.p, "<polyline"));
    sb_free(&b);
    const char *labels[] = {"a", "b"};
    double v[] = {1, 2};
    svg_bar_chart(&b, "bars", "bars", "", labels, v, 2);
    CHECK(strstr(b.b.p, "class=\"bar") != NULL);
    sb_free(&b);

    char dir[] = "/tmp/aops-unit-csv.XXXXXX", err[256];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(csv_export(r, dir, err, sizeof err) == 0);
    char path[128];
    snprintf(path, sizeof path, "%s/containers.csv", dir);
    char *c = slurp(path);
    CHECKF(c && strstr(c, "\n,4,") != NULL, "%s", c ? c : "(none)");
    snprintf(path, sizeof path, "%s/series.csv", dir);
    c = slurp(path);
    CHECKF(c && !strcmp(c, "t,cpu_util,read_Bps,read_iops,write_Bps,write_iops,power_w\n"
                           "0,5,,,,,\n1,7.25,,,,,\n"),
           "%s", c ? c : "(none)");
    CHECK(csv_export(r, "/proc/nonexistent/x", err, sizeof err) == -1 && err[0]);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    CHECK(system(path) == 0);
    json_decref(r);
    return unit_done("test_report");
}
