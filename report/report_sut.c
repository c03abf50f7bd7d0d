/* report_sut.c -- the system under test and the containers on the topology
 * (see report_sut.h). Each row is one line of text made from result.json's
 * system and config.placement, so a row reads the same in the report, in
 * compare's table and in compare's notes, and two runs differ in a row
 * exactly when its text differs. */
#include "report_sut.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cpulist.h"

/* Append to a row's text. */
static void add(struct sut_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct sut_row *r, const char *fmt, ...) {
    size_t l = strlen(r->value);
    if (l >= sizeof r->value - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->value + l, sizeof r->value - l, fmt, ap);
    va_end(ap);
}

static const char *s_or(const json_t *o, const char *path, const char *dflt) {
    const char *s = jstr(o, path);
    return s && *s ? s : dflt;
}

/* A drive's or NIC's PCIe link and NUMA node, where known. */
static void add_link(struct sut_row *r, const json_t *d) {
    if (jstr(d, "pcie_link_speed"))
        add(r, ", %s x%g", jstr(d, "pcie_link_speed"), jnum(d, "pcie_link_width"));
    if (!isnan(jnum(d, "numa_node")))
        add(r, ", node %g", jnum(d, "numa_node"));
}

static struct sut_row *row(struct sut_row *rows, size_t *n, size_t max, const char *key,
                           const char *label) {
    if (*n >= max)
        return NULL;
    struct sut_row *r = &rows[(*n)++];
    r->key = key;
    r->label = label;
    r->value[0] = 0;
    return r;
}

static void bytes(char *out, size_t len, double v) {
    if (isnan(v))
        snprintf(out, len, "–");
    else
        fmt_bytes(out, len, v, 1);
}

static void numa_text(struct sut_row *r, const json_t *topo) {
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(topo, "numa_nodes"), i, n) {
        char m[32];
        bytes(m, sizeof m, jnum(n, "memory_bytes"));
        const char *cpus = s_or(n, "cpus", "");
        add(r, "%snode %g: %s%s, %s", i ? "; " : "", jnum(n, "id"), *cpus ? "CPUs " : "no CPUs",
            cpus, json_is_true(json_object_get(n, "has_memory")) ? m : "no memory");
    }
    if (json_is_true(json_object_get(topo, "numa_nodes_implicit")))
        add(r, " (no NUMA in the kernel)");
}

static void dimms_text(struct sut_row *r, const json_t *sys) {
    const json_t *d = json_object_get(sys, "memory_dimms");
    if (!json_is_object(d)) {
        add(r, "– (%s)", s_or(sys, "memory_dimms_unavailable", "not read"));
        return;
    }
    add(r, "%g of %g slots", jnum(d, "count"), jnum(d, "slots"));
    /* Each distinct kind once: "16 x 32 GiB DDR5 4800 MT/s (4400 configured)". */
    struct {
        char text[256];
        int n;
    } kinds[16];
    int nk = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(d, "dimms"), i, x) {
        char sz[32], t[256];
        bytes(sz, sizeof sz, jnum(x, "size_bytes"));
        snprintf(t, sizeof t, "%s %s", sz, s_or(x, "type", "?"));
        if (!isnan(jnum(x, "speed_mts")))
            snprintf(t + strlen(t), sizeof t - strlen(t), " %g MT/s", jnum(x, "speed_mts"));
        if (!isnan(jnum(x, "configured_speed_mts")))
            snprintf(t + strlen(t), sizeof t - strlen(t), " (%g configured)",
                     jnum(x, "configured_speed_mts"));
        int k = 0;
        while (k < nk && strcmp(kinds[k].text, t))
            k++;
        if (k == nk && nk < 16)
            snprintf(kinds[nk++].text, sizeof kinds[0].text, "%s", t), kinds[k].n = 0;
        if (k < nk)
            kinds[k].n++;
    }
    for (int k = 0; k < nk; k++)
        add(r, "%s%d x %s", k ? ", " : ": ", kinds[k].n, kinds[k].text);
}

static void list_text(struct sut_row *r, const json_t *a, const char *dflt) {
    size_t i;
    json_t *x;
    if (!json_array_size(a)) {
        add(r, "%s", dflt);
        return;
    }
    json_array_foreach(a, i, x) {
        add(r, "%s%s", i ? ", " : "", json_string_value(x) ? json_string_value(x) : "?");
    }
}

static void khz_text(struct sut_row *r, double khz) {
    if (isnan(khz))
        add(r, "?");
    else
        add(r, "%.2f GHz", khz / 1e6);
}

size_t sut_rows(const json_t *res, struct sut_row *rows, size_t max) {
    const json_t *sys = json_object_get(res, "system");
    const json_t *topo = json_object_get(sys, "topology");
    const json_t *cs = json_object_get(sys, "cpu_settings");
    const json_t *ks = json_object_get(sys, "kernel_settings");
    size_t n = 0;
    struct sut_row *r;
    char t[64];
    if ((r = row(rows, &n, max, "system", "system"))) {
        if (json_object_get(sys, "dmi_unavailable"))
            add(r, "– (%s)", s_or(sys, "dmi_unavailable", ""));
        else
            add(r, "%s %s", s_or(sys, "dmi.system_vendor", "?"),
                s_or(sys, "dmi.product_name", "?"));
    }
    if ((r = row(rows, &n, max, "board", "board"))) {
        if (jstr(sys, "dmi.board_vendor") || jstr(sys, "dmi.board_name"))
            add(r, "%s %s", s_or(sys, "dmi.board_vendor", "?"), s_or(sys, "dmi.board_name", "?"));
        else
            add(r, "–");
    }
    if ((r = row(rows, &n, max, "bios", "BIOS"))) {
        if (jstr(sys, "dmi.bios_version"))
            add(r, "%s %s (%s)", s_or(sys, "dmi.bios_vendor", "?"), jstr(sys, "dmi.bios_version"),
                s_or(sys, "dmi.bios_date", "no date"));
        else
            add(r, "–");
    }
    if ((r = row(rows, &n, max, "cpu", "CPU")))
        add(r, "%s (%s, family %g model %g stepping %g)", s_or(sys, "cpu_model", "?"),
            s_or(sys, "cpu_vendor", "?"), jnum(sys, "cpu_family"), jnum(sys, "cpu_model_number"),
            jnum(sys, "cpu_stepping"));
    if ((r = row(rows, &n, max, "microcode", "microcode")))
        add(r, "%s", s_or(cs, "microcode", "–"));
    if ((r = row(rows, &n, max, "cores", "sockets, cores, threads")))
        add(r, "%g socket%s, %g cores, %g threads (SMT %s)", jnum(sys, "sockets"),
            jnum(sys, "sockets") == 1 ? "" : "s", jnum(sys, "physical_cores"),
            jnum(sys, "logical_cpus"), s_or(sys, "smt", "?"));
    if ((r = row(rows, &n, max, "topology", "topology"))) {
        if (!json_is_object(topo))
            add(r, "– (%s)", s_or(sys, "topology_unavailable", "not read"));
        else {
            char l3[32];
            bytes(l3, sizeof l3, jnum(topo, "l3.0.size_bytes"));
            size_t k[4] = {json_array_size(json_object_get(topo, "packages")),
                           json_array_size(json_object_get(topo, "dies")),
                           json_array_size(json_object_get(topo, "l3")),
                           json_array_size(json_object_get(topo, "numa_nodes"))};
            add(r, "%zu package%s, %zu die%s, %zu L3 domain%s (%s each), %zu NUMA node%s", k[0],
                k[0] == 1 ? "" : "s", k[1], k[1] == 1 ? "" : "s", k[2], k[2] == 1 ? "" : "s", l3,
                k[3], k[3] == 1 ? "" : "s");
        }
    }
    if (json_is_object(topo) && (r = row(rows, &n, max, "numa", "NUMA nodes")))
        numa_text(r, topo);
    if ((r = row(rows, &n, max, "memory", "memory"))) {
        bytes(t, sizeof t, jnum(sys, "memory_bytes"));
        add(r, "%s", t);
    }
    if ((r = row(rows, &n, max, "dimms", "DIMMs")))
        dimms_text(r, sys);
    if ((r = row(rows, &n, max, "frequency", "frequency")) && !jstr(cs, "cpufreq_driver"))
        add(r, "no cpufreq driver (a VM, or none loaded), boost %s", s_or(cs, "boost", "–"));
    else if (r) {
        add(r, "%s, governor ", jstr(cs, "cpufreq_driver"));
        list_text(r, json_object_get(cs, "governors"), "–");
        add(r, ", ");
        khz_text(r, jnum(cs, "scaling_min_khz"));
        add(r, " to ");
        khz_text(r, jnum(cs, "scaling_max_khz"));
        add(r, ", boost %s", s_or(cs, "boost", "–"));
        if (jstr(cs, "intel_pstate"))
            add(r, ", intel_pstate %s", jstr(cs, "intel_pstate"));
    }
    if ((r = row(rows, &n, max, "smt_control", "SMT control")))
        add(r, "%s", s_or(cs, "smt_control", "–"));
    if ((r = row(rows, &n, max, "cstates", "C-states"))) {
        list_text(r, json_object_get(cs, "cstates"), "–");
        add(r, " (%s)", s_or(cs, "cpuidle_driver", "no cpuidle driver"));
    }
    if ((r = row(rows, &n, max, "kernel", "kernel")))
        add(r, "%s, %s", s_or(sys, "kernel", "?"), s_or(sys, "os_release", "?"));
    if ((r = row(rows, &n, max, "cmdline", "kernel command line")))
        add(r, "%s", s_or(ks, "cmdline", "–"));
    if ((r = row(rows, &n, max, "thp", "transparent huge pages")))
        add(r, "enabled %s, defrag %s", s_or(ks, "thp_enabled", "–"), s_or(ks, "thp_defrag", "–"));
    if ((r = row(rows, &n, max, "numa_balancing", "NUMA balancing"))) {
        double v = jnum(ks, "numa_balancing");
        add(r, "%s", isnan(v) ? "–" : v == 0 ? "off" : v == 1 ? "on" : "on (memory tiering)");
    }
    if ((r = row(rows, &n, max, "clocksource", "clocksource")))
        add(r, "%s", s_or(ks, "clocksource", "–"));
    if ((r = row(rows, &n, max, "virtualization", "virtualization"))) {
        const json_t *v = json_object_get(ks, "virtualization");
        if (json_is_true(json_object_get(v, "virtualized")))
            add(r, "%s (%s virtualization)", s_or(v, "hypervisor", "unknown hypervisor"),
                s_or(v, "type", "?"));
        else
            add(r, "%s", v ? "none (bare metal)" : "–");
        if (json_is_true(json_object_get(v, "container")))
            add(r, ", in a container");
    }
    if ((r = row(rows, &n, max, "mitigations", "vulnerabilities"))) {
        const char *k;
        json_t *v;
        int i = 0;
        json_object_foreach((json_t *)json_object_get(ks, "vulnerabilities"), k, v) {
            add(r, "%s%s: %s", i++ ? "; " : "", k,
                json_string_value(v) ? json_string_value(v) : "?");
        }
        if (!i)
            add(r, "–");
    }
    if ((r = row(rows, &n, max, "drives", "drives"))) {
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(sys, "disks"), i, d) {
            char sz[32];
            bytes(sz, sizeof sz, jnum(d, "size_bytes"));
            add(r, "%s%s: %s, firmware %s, %s", i ? "; " : "", s_or(d, "name", "?"),
                s_or(d, "model", "no model"), s_or(d, "firmware", "–"), sz);
            add_link(r, d);
        }
        if (!json_array_size(json_object_get(sys, "disks")))
            add(r, "–");
    }
    if ((r = row(rows, &n, max, "nics", "NICs"))) {
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(sys, "nics"), i, d) {
            add(r, "%s%s: %s", i ? "; " : "", s_or(d, "name", "?"), s_or(d, "driver", "no driver"));
            if (!isnan(jnum(d, "speed_mbps")))
                add(r, ", %g Gb/s", jnum(d, "speed_mbps") / 1000);
            add_link(r, d);
        }
        if (!json_array_size(json_object_get(sys, "nics")))
            add(r, "–");
    }
    if ((r = row(rows, &n, max, "placement", "placement"))) {
        /* What it came to on the machine; a result without it, what was asked. */
        const json_t *p = json_object_get(res, "placement");
        if (!json_is_object(p))
            p = jget(res, "config.placement");
        add(r, "%s", s_or(p, "policy", "none"));
        if (!isnan(jnum(p, "cores_per_container")))
            add(r, ", %g whole core%s per container", jnum(p, "cores_per_container"),
                jnum(p, "cores_per_container") == 1 ? "" : "s");
        if (jstr(p, "server_cpus"))
            add(r, ", servers pinned to CPUs %s", jstr(p, "server_cpus"));
    }
    return n;
}

static const char SUT_CSS[] =
    "<style>table#sut td.t,table#sut-compare td.t{overflow-wrap:anywhere}"
    "table#sut td:first-child{width:24%}"
    "tr.differ td{background:#fff4d6}tr.differ td:first-child{font-weight:600}"
    ".topo{display:flex;flex-wrap:wrap;align-items:flex-start;gap:10px;margin:6px 0 12px}"
    ".topo .pkg,.topo .node,.topo .l3{border:1px solid var(--line);border-radius:6px;"
    "padding:4px 6px}.topo .pkg{background:var(--card)}.topo .node{background:var(--bg);"
    "margin:4px 0}.topo .l3{display:inline-block;margin:3px;vertical-align:top}"
    ".topo .ttl{font-size:.75em;color:var(--mute)}"
    ".topo .core{display:inline-block;min-width:2.2em;margin:2px;padding:2px 3px;"
    "border-radius:4px;text-align:center;font-size:.8em;font-variant-numeric:tabular-nums;"
    "border:1px solid var(--line);background:#eef1f4;color:var(--mute)}"
    ".topo .core.srv{background:repeating-linear-gradient(45deg,#ffe7c2,#ffe7c2 4px,#fff 4px,"
    "#fff 8px);color:#8a4b00}"
    ".topo .k0{background:#2f6fdb30}.topo .k1{background:#e0782f30}.topo .k2{background:#2a9d6f30}"
    ".topo .k3{background:#b03a8c30}.topo .k4{background:#7a5c0030}.topo .k5{background:#5b3fb030}"
    ".topo .k6{background:#0e7c8630}.topo .k7{background:#9b2d2d30}"
    ".topo .core.k0,.topo .core.k1,.topo .core.k2,.topo .core.k3,.topo .core.k4,.topo .core.k5,"
    ".topo .core.k6,.topo .core.k7{color:var(--fg);font-weight:600}</style>\n";

void report_sut_section(struct sbuf *b, const json_t *r) {
    struct sut_row *rows = calloc(SUT_MAX_ROWS, sizeof *rows);
    if (!rows)
        return;
    size_t n = sut_rows(r, rows, SUT_MAX_ROWS);
    sb_puts(b, SUT_CSS);
    sb_puts(b, "<h2>System under test</h2>\n<table id=\"sut\">\n");
    for (size_t i = 0; i < n; i++) {
        sb_puts(b, "<tr data-key=\"sut.");
        sb_esc(b, rows[i].key);
        sb_puts(b, "\"><td>");
        sb_esc(b, rows[i].label);
        sb_puts(b, "</td><td class=\"t\">");
        sb_esc(b, rows[i].value);
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
    free(rows);
}

/* ---- the map ---- */

static int parse_at(const json_t *o, const char *key, struct cpuset *s) {
    const char *l = jstr(o, key);
    cpuset_zero(s);
    return l ? cpuset_parse(l, s) : -1;
}

void report_topology_map(struct sbuf *b, const json_t *r) {
    const json_t *topo = jget(r, "system.topology");
    if (!json_is_object(topo))
        return;
    const json_t *pkgs = json_object_get(topo, "packages"),
                 *nodes = json_object_get(topo, "numa_nodes");
    const json_t *l3s = json_object_get(topo, "l3"), *cores = json_object_get(topo, "smt_siblings");
    size_t np = json_array_size(pkgs), nn = json_array_size(nodes), nl = json_array_size(l3s);
    size_t nc = json_array_size(cores);
    /* Which container has each CPU (-1 none), and the servers' cores. */
    int *owner = malloc(CPUSET_MAX * sizeof *owner);
    struct cpuset *core_set = calloc(nc + 1, sizeof *core_set);
    struct cpuset srv, s;
    if (!owner || !core_set) {
        free(owner);
        free(core_set);
        return;
    }
    for (int c = 0; c < CPUSET_MAX; c++)
        owner[c] = -1;
    size_t i, j, k;
    json_t *x;
    int placed = 0;
    json_array_foreach(json_object_get(r, "containers"), i, x) {
        if (parse_at(x, "cpus", &s) != 0)
            continue;
        placed = 1;
        for (int c = cpuset_first(&s); c >= 0; c = cpuset_next(&s, c))
            owner[c] = (int)jnum(x, "id");
    }
    parse_at(json_object_get(r, "placement"), "server_core_cpus", &srv);
    for (k = 0; k < nc; k++)
        if (cpuset_parse(json_string_value(json_array_get(cores, k)) ?: "", &core_set[k]) != 0)
            cpuset_zero(&core_set[k]);
    sb_puts(b, "<h2>Containers on the topology</h2>\n<p class=\"sub\">");
    sb_puts(b, placed ? "Each box is a core (its CPUs in the tooltip) with the container that has "
                        "it; striped: the servers' (--server-cpus); grey: nobody's."
                      : "No placement (--placement none): every container may run on any core "
                        "and use any node's memory.");
    sb_puts(b, "</p>\n<div class=\"topo\" id=\"topology-map\">\n");
    for (i = 0; i < np; i++) {
        struct cpuset pk;
        parse_at(json_array_get(pkgs, i), "cpus", &pk);
        sb_printf(b,
                  "<div class=\"pkg\" data-package=\"%zu\"><div class=\"ttl\">package %g</div>\n",
                  i, jnum(json_array_get(pkgs, i), "id"));
        for (j = 0; j < nn; j++) {
            const json_t *nd = json_array_get(nodes, j);
            struct cpuset ns;
            parse_at(nd, "cpus", &ns);
            if (!cpuset_intersects(&ns, &pk))
                continue;
            char m[32];
            bytes(m, sizeof m, jnum(nd, "memory_bytes"));
            sb_printf(
                b,
                "<div class=\"node\" data-node=\"%g\"><div class=\"ttl\">NUMA node %g · %s</div>",
                jnum(nd, "id"), jnum(nd, "id"),
                json_is_true(json_object_get(nd, "has_memory")) ? m : "no memory");
            for (size_t l = 0; l <= nl; l++) { /* the L3 domains, then cores without one */
                struct cpuset ls;
                if (l < nl)
                    parse_at(json_array_get(l3s, l), "cpus", &ls);
                else {
                    ls = ns;
                    for (size_t q = 0; q < nl; q++) {
                        struct cpuset o;
                        parse_at(json_array_get(l3s, q), "cpus", &o);
                        cpuset_andnot(&ls, &o);
                    }
                }
                struct cpuset here = ls;
                struct cpuset notn = here;
                cpuset_andnot(&notn, &ns);
                cpuset_andnot(&here, &notn);
                struct cpuset notp = here;
                cpuset_andnot(&notp, &pk);
                cpuset_andnot(&here, &notp);
                if (cpuset_empty(&here))
                    continue;
                if (l < nl)
                    sb_printf(b, "<div class=\"l3\"><div class=\"ttl\">L3 %zu</div>", l);
                else
                    sb_puts(b, "<div class=\"l3\"><div class=\"ttl\">no L3 listed</div>");
                for (k = 0; k < nc; k++) {
                    int f = cpuset_first(&core_set[k]);
                    if (f < 0 || !cpuset_has(&here, f))
                        continue;
                    char cl[512];
                    cpuset_format(&core_set[k], cl, sizeof cl);
                    int who = f < CPUSET_MAX ? owner[f] : -1;
                    if (who >= 0)
                        sb_printf(b,
                                  "<span class=\"core k%d\" data-container=\"%d\" title=\"CPUs %s: "
                                  "container %d\">%d</span>",
                                  who % 8, who, cl, who, who);
                    else if (cpuset_intersects(&core_set[k], &srv))
                        sb_printf(
                            b, "<span class=\"core srv\" title=\"CPUs %s: the servers'\">S</span>",
                            cl);
                    else
                        sb_printf(b, "<span class=\"core\" title=\"CPUs %s: nobody's\">·</span>",
                                  cl);
                }
                sb_puts(b, "</div>");
            }
            sb_puts(b, "</div>\n");
        }
        sb_puts(b, "</div>\n");
    }
    /* Nodes with memory and no CPU belong to no package. */
    for (j = 0; j < nn; j++) {
        const json_t *nd = json_array_get(nodes, j);
        struct cpuset ns;
        parse_at(nd, "cpus", &ns);
        if (!cpuset_empty(&ns))
            continue;
        char m[32];
        bytes(m, sizeof m, jnum(nd, "memory_bytes"));
        sb_printf(b,
                  "<div class=\"node\" data-node=\"%g\"><div class=\"ttl\">NUMA node %g · %s · no "
                  "CPUs</div></div>\n",
                  jnum(nd, "id"), jnum(nd, "id"), m);
    }
    sb_puts(b, "</div>\n");
    free(owner);
    free(core_set);
}

/* ---- compare ---- */

void compare_sut_table(struct sbuf *b, const json_t *const *runs, const char *const *labels,
                       int n) {
    struct sut_row *rows = calloc((size_t)n * SUT_MAX_ROWS, sizeof *rows);
    size_t *nr = calloc((size_t)n, sizeof *nr);
    if (!rows || !nr) {
        free(rows);
        free(nr);
        return;
    }
    for (int i = 0; i < n; i++)
        nr[i] = sut_rows(runs[i], rows + (size_t)i * SUT_MAX_ROWS, SUT_MAX_ROWS);
    sb_puts(b, SUT_CSS);
    sb_puts(b, "<h2>System under test</h2>\n<table id=\"sut-compare\"><tr><th>setting</th>");
    for (int i = 0; i < n; i++)
        sb_printf(b, "<th class=\"t\">%s</th>", labels[i]);
    sb_puts(b, "</tr>\n");
    for (size_t k = 0; k < nr[0]; k++) {
        int differ = 0;
        for (int i = 1; i < n; i++)
            differ |= k >= nr[i] || strcmp(rows[k].value, rows[(size_t)i * SUT_MAX_ROWS + k].value);
        sb_printf(b, "<tr data-key=\"sut.%s\"%s><td>", rows[k].key,
                  differ ? " class=\"differ\"" : "");
        sb_esc(b, rows[k].label);
        sb_puts(b, "</td>");
        for (int i = 0; i < n; i++) {
            sb_puts(b, "<td class=\"t\">");
            if (k < nr[i])
                sb_esc(b, rows[(size_t)i * SUT_MAX_ROWS + k].value);
            sb_puts(b, "</td>");
        }
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
    free(rows);
    free(nr);
}

void compare_sut_notes(const json_t *const *runs, const char *const *labels, int n, json_t *notes) {
    struct sut_row *rows = calloc((size_t)n * SUT_MAX_ROWS, sizeof *rows);
    size_t *nr = calloc((size_t)n, sizeof *nr);
    if (!rows || !nr) {
        free(rows);
        free(nr);
        return;
    }
    for (int i = 0; i < n; i++)
        nr[i] = sut_rows(runs[i], rows + (size_t)i * SUT_MAX_ROWS, SUT_MAX_ROWS);
    for (size_t k = 0; k < nr[0]; k++) {
        int differ = 0;
        for (int i = 1; i < n; i++)
            differ |= k >= nr[i] || strcmp(rows[k].value, rows[(size_t)i * SUT_MAX_ROWS + k].value);
        /* compare's own lines already name CPU model, cores, SMT and memory. */
        if (!differ || !strcmp(rows[k].key, "cpu") || !strcmp(rows[k].key, "cores") ||
            !strcmp(rows[k].key, "memory"))
            continue;
        char line[8192];
        size_t o = (size_t)snprintf(line, sizeof line, "%s:", rows[k].label);
        if (!strcmp(rows[k].key, "mitigations")) { /* name the ones that differ, not all */
            json_t *names = json_array();
            for (int i = 0; i < n; i++) {
                const char *vk;
                json_t *v;
                json_object_foreach(
                    (json_t *)jget(runs[i], "system.kernel_settings.vulnerabilities"), vk, v) {
                    int same = 1;
                    for (int q = 0; q < n; q++) {
                        const char *a = json_string_value(v),
                                   *b2 = jstr(
                                       jget(runs[q], "system.kernel_settings.vulnerabilities"), vk);
                        same &= a && b2 && !strcmp(a, b2);
                    }
                    json_t *nm = json_string(vk);
                    size_t z;
                    json_t *e;
                    int seen = 0;
                    json_array_foreach(names, z, e) seen |= json_equal(e, nm);
                    if (!same && !seen)
                        json_array_append(names, nm);
                    json_decref(nm);
                }
            }
            size_t z;
            json_t *e;
            json_array_foreach(names, z, e) {
                o += (size_t)snprintf(line + o, sizeof line - o, "%s %s", z ? "," : "",
                                      json_string_value(e));
                if (o >= sizeof line)
                    break;
            }
            json_decref(names);
            json_array_append_new(notes, json_string(line));
            continue;
        }
        for (int i = 0; i < n && o < sizeof line; i++)
            o += (size_t)snprintf(line + o, sizeof line - o, "%s %s %s", i ? ";" : "", labels[i],
                                  k < nr[i] ? rows[(size_t)i * SUT_MAX_ROWS + k].value : "–");
        json_array_append_new(notes, json_string(line));
    }
    free(rows);
    free(nr);
}
