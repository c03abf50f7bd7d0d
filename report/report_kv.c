/* report_kv.c -- nested key/value tables for config and system (see
 * report_kv.h). Layout is left to CSS (table.kv: fixed columns, values
 * wrapped anywhere); this file decides what each value reads as. */
#include "report_kv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PATH_MAX_SHOWN 40
#define MAX_DEPTH 4

/* A path: no blank in it and at least two '/' ("/a/b", "http://h/x"). */
static int path_like(const char *s) {
    int slashes = 0;
    for (const char *p = s; *p; p++) {
        if (isspace((unsigned char)*p))
            return 0;
        slashes += *p == '/';
    }
    return slashes >= 2;
}

int path_shorten(const char *s, char *out, size_t len, size_t max) {
    size_t n = strlen(s);
    snprintf(out, len, "%s", s);
    if (n <= max || !path_like(s))
        return 0;
    /* The head up to a '/' within the first 40 %, the tail from a '/'
     * within the last 55 %: the root a reader recognises and the file. */
    size_t head = 0, tail = n;
    for (size_t i = 1; i < n && i <= max * 2 / 5; i++)
        if (s[i] == '/')
            head = i;
    for (size_t i = n - 1; i > head && n - i <= max * 11 / 20; i--)
        if (s[i] == '/')
            tail = i;
    if (tail == n) { /* the last component alone is too long: cut it by characters */
        size_t keep = max / 2, from = n - (max - keep);
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) /* whole UTF-8 characters */
            keep--;
        while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
        snprintf(out, len, "%.*s…%s", (int)keep, s, s + from);
        return 1;
    }
    if (head == 0) /* no '/' early on: keep the first characters */
        head = max * 2 / 5;
    if (head >= tail)
        return 0;
    snprintf(out, len, "%.*s/…%s", (int)head, s, s + tail);
    return 1;
}

static int skipped(const char *k, const char *const *skip) {
    for (size_t i = 0; skip && skip[i]; i++)
        if (!strcmp(k, skip[i]))
            return 1;
    return 0;
}

static int bytes_key(const char *k) {
    return strstr(k, "bytes") != NULL;
}

/* A scalar as the cell shows it. */
static void scalar(struct sbuf *b, const json_t *v, const char *name, const char *key) {
    if (json_is_number(v)) {
        double x = json_number_value(v);
        char t[64], e[40];
        if (bytes_key(name)) { /* exact in data-value, readable in the text */
            sb_puts(b, "<span class=\"num\" data-key=\"");
            sb_esc(b, key);
            sb_printf(b, "\" data-value=\"%s\">", fmt_exact(e, sizeof e, x));
            sb_esc(b, fmt_bytes(t, sizeof t, x, 1));
            sb_puts(b, "</span>");
        } else { /* as written: a port or a seed is no quantity to group by thousands */
            sb_puts(b, "<span class=\"num\" data-key=\"");
            sb_esc(b, key);
            sb_printf(b, "\" data-value=\"%s\">%s</span>", fmt_exact(e, sizeof e, x), e);
        }
    } else if (json_is_string(v) && !*json_string_value(v)) {
        sb_puts(b, "(empty)");
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char shortp[PATH_MAX_SHOWN * 2];
        if (path_shorten(s, shortp, sizeof shortp, PATH_MAX_SHOWN)) {
            sb_puts(b, "<span class=\"path\" title=\"");
            sb_esc(b, s);
            sb_puts(b, "\">");
            sb_esc(b, shortp);
            sb_puts(b, "</span>");
        } else
            sb_esc(b, s);
    } else if (json_is_true(v))
        sb_puts(b, "yes");
    else if (json_is_false(v))
        sb_puts(b, "no");
    else
        sb_puts(b, "–");
}

static int all_scalars(const json_t *a) {
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (json_is_object(v) || json_is_array(v))
            return 0;
    }
    return 1;
}

static void row_key(struct sbuf *b, const char *name, int depth, int group) {
    sb_printf(b, "<tr%s><td", group ? " class=\"grp\"" : "");
    if (depth)
        sb_printf(b, " class=\"d%d\"", depth < MAX_DEPTH ? depth : MAX_DEPTH);
    sb_puts(b, group ? " colspan=\"2\">" : ">");
    sb_esc(b, name);
    sb_puts(b, group ? "</td></tr>\n" : "</td><td class=\"t\">");
}

static void rows(struct sbuf *b, const char *name, const json_t *v, const char *key, int depth);

static void object_rows(struct sbuf *b, const json_t *obj, const char *prefix, int depth,
                        const char *const *skip) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char key[512];
        if (skipped(k, skip))
            continue;
        snprintf(key, sizeof key, "%s.%s", prefix, k);
        rows(b, k, v, key, depth);
    }
}

static void rows(struct sbuf *b, const char *name, const json_t *v, const char *key, int depth) {
    if (json_is_object(v) && json_object_size(v)) {
        row_key(b, name, depth, 1);
        object_rows(b, v, key, depth + 1, NULL);
    } else if (json_is_array(v) && json_array_size(v) && !all_scalars(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            char n[160], k[512];
            snprintf(n, sizeof n, "%s[%zu]", name, i);
            snprintf(k, sizeof k, "%s.%zu", key, i);
            rows(b, n, e, k, depth);
        }
    } else {
        row_key(b, name, depth, 0);
        if (json_is_array(v)) { /* a list of scalars: one line, comma separated */
            size_t i;
            json_t *e;
            if (!json_array_size(v))
                sb_puts(b, "(none)");
            json_array_foreach(v, i, e) {
                char k[512];
                snprintf(k, sizeof k, "%s.%zu", key, i);
                if (i)
                    sb_puts(b, ", ");
                scalar(b, e, name, k);
            }
        } else if (json_is_object(v))
            sb_puts(b, "(empty)");
        else
            scalar(b, v, name, key);
        sb_puts(b, "</td></tr>\n");
    }
}

void kv_table_nested(struct sbuf *b, const json_t *obj, const char *id, const char *prefix,
                     const char *const *skip) {
    sb_puts(b, "<table class=\"kv\" id=\"");
    sb_esc(b, id);
    sb_puts(b, "\">");
    object_rows(b, obj, prefix, 0, skip);
    sb_puts(b, "</table>\n");
}
