/* options.c -- the option-table machinery (see options.h): defaults, the
 * environment and credentials file, argv, usage. It knows rows and offsets,
 * nothing about what the options mean. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

long long parse_size(const char *s) {
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    double x = strtod(s, &end);
    if (errno || end == s)
        return -1;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 0:
        break;
    case 'K':
        mult = 1024.0;
        break;
    case 'M':
        mult = 1024.0 * 1024;
        break;
    case 'G':
        mult = 1024.0 * 1024 * 1024;
        break;
    case 'T':
        mult = 1024.0 * 1024 * 1024 * 1024;
        break;
    default:
        return -1;
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
        !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
          !end[3]))
        return -1;
    x *= mult;
    if (x > 9e18)
        return -1;
    return (long long)x;
}

const char *opt_choice_name(const char *choices, int n, char *buf, size_t len) {
    const char *p = choices;
    for (int i = 0; p && i < n; i++) {
        p = strchr(p, '|');
        if (p)
            p++;
    }
    if (!p || !*p)
        return NULL;
    size_t l = strcspn(p, "|");
    snprintf(buf, len, "%.*s", (int)l, p);
    return buf;
}

/* "a|b|c" -> "a, b or c", for messages. */
static void choices_text(const char *choices, char *out, size_t len) {
    char one[64];
    size_t o = 0;
    int n = 0;
    while (opt_choice_name(choices, n, one, sizeof one))
        n++;
    out[0] = 0;
    for (int i = 0; i < n && o < len; i++) {
        opt_choice_name(choices, i, one, sizeof one);
        o += (size_t)snprintf(out + o, len - o, "%s%s",
                              i == 0       ? ""
                              : i == n - 1 ? " or "
                                           : ", ",
                              one);
    }
}

static int set_row(const struct opt_row *o, void *base, const char *v, char *err, size_t errlen) {
    char *field = (char *)base + o->off, *end;
    errno = 0;
    switch (o->type) {
    case OPT_FLAG:
        *(int *)field = v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"));
        return 0;
    case OPT_STR:
        if (strlen(v) >= o->size) {
            snprintf(err, errlen, "--%s: value too long (at most %zu characters)", o->name,
                     o->size - 1);
            return -1;
        }
        snprintf(field, o->size, "%s", v);
        return 0;
    case OPT_DOUBLE: {
        double x = strtod(v, &end);
        if (errno || end == v || *end || !(x >= o->min && x <= o->max)) {
            snprintf(err, errlen, "--%s '%s': expected a number from %g to %g", o->name, v, o->min,
                     o->max);
            return -1;
        }
        *(double *)field = x;
        return 0;
    }
    case OPT_UINT:
    case OPT_U64: {
        unsigned long long x = isdigit((unsigned char)*v) ? strtoull(v, &end, 10) : 0;
        if (!isdigit((unsigned char)*v) || errno || *end) {
            snprintf(err, errlen, "--%s '%s': expected a whole number", o->name, v);
            return -1;
        }
        if (o->type == OPT_U64) {
            *(uint64_t *)field = x;
            return 0;
        }
        if (x < o->min || x > o->max) {
            snprintf(err, errlen, "--%s '%s': expected a whole number from %.0f to %.0f", o->name,
                     v, o->min, o->max);
            return -1;
        }
        *(unsigned *)field = (unsigned)x;
        return 0;
    }
    case OPT_SIZE: {
        long long x = parse_size(v);
        if (x < 0) {
            snprintf(err, errlen, "--%s '%s': expected a size such as 4G or 512M", o->name, v);
            return -1;
        }
        if (o->max > 0 && (x < o->min || x > o->max)) {
            snprintf(err, errlen, "--%s '%s': expected at least %.0fM and at most %.0fG", o->name,
                     v, o->min / 1048576, o->max / 1073741824);
            return -1;
        }
        *(uint64_t *)field = (uint64_t)x;
        return 0;
    }
    case OPT_CHOICE: {
        char one[64], all[256];
        for (int i = 0; opt_choice_name(o->choices, i, one, sizeof one); i++)
            if (!strcmp(one, v)) {
                *(int *)field = i;
                return 0;
            }
        choices_text(o->choices, all, sizeof all);
        snprintf(err, errlen, "--%s '%s': expected %s", o->name, v, all);
        return -1;
    }
    case OPT_CUSTOM:
        return o->parse(o, base, v, err, errlen);
    }
    snprintf(err, errlen, "internal: --%s has no type", o->name);
    return -1;
}

int opt_defaults(const struct opt_set *sets, size_t nsets, char *err, size_t errlen) {
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].nrows; i++) {
            const struct opt_row *o = &sets[s].rows[i];
            if (!o->def)
                continue;
            if (set_row(o, sets[s].base, o->def, err, errlen) != 0) {
                char why[512];
                snprintf(why, sizeof why, "%s", err);
                snprintf(err, errlen, "internal: the default of --%s does not parse: %s", o->name,
                         why);
                return -1;
            }
        }
    return 0;
}

const struct opt_row *opt_find(const struct opt_set *sets, size_t nsets, const char *name,
                               const struct opt_set **set) {
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].nrows; i++)
            if (!strcmp(sets[s].rows[i].name, name)) {
                if (set)
                    *set = &sets[s];
                return &sets[s].rows[i];
            }
    return NULL;
}

int opt_set_value(const struct opt_set *sets, size_t nsets, const char *name, const char *value,
                  char *err, size_t errlen) {
    const struct opt_set *set;
    const struct opt_row *o = opt_find(sets, nsets, name, &set);
    if (!o) {
        snprintf(err, errlen, "unknown option '--%s' (see harness --help)", name);
        return -1;
    }
    return set_row(o, set->base, value, err, errlen);
}

/* Apply every env-keyed row whose key is `key`. */
static int apply_env(const struct opt_set *sets, size_t nsets, const char *key, const char *v,
                     const char *where, char *err, size_t errlen) {
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].nrows; i++) {
            const struct opt_row *o = &sets[s].rows[i];
            if (!o->env || strcmp(o->env, key))
                continue;
            if (set_row(o, sets[s].base, v, err, errlen) != 0) {
                char why[512];
                /* Never echo a secret back, even in an error. */
                snprintf(why, sizeof why, "%s", o->flags & OPT_SECRET ? "bad value" : err);
                snprintf(err, errlen, "%s %s: %s", where, key, why);
                return -1;
            }
        }
    return 0;
}

int opt_load_env(const struct opt_set *sets, size_t nsets, const char *file, int must_exist,
                 char *err, size_t errlen) {
    FILE *f = file ? fopen(file, "r") : NULL;
    if (f) {
        char line[1024];
        int rc = 0;
        while (rc == 0 && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = 0;
            char *eq = strchr(line, '=');
            if (line[0] == '#' || !eq)
                continue;
            *eq = 0;
            char where[4300];
            snprintf(where, sizeof where, "credentials file %s:", file);
            rc = apply_env(sets, nsets, line, eq + 1, where, err, errlen);
        }
        fclose(f);
        if (rc)
            return -1;
    } else if (file && must_exist) {
        snprintf(err, errlen, "cannot read credentials file %s: %s", file, strerror(errno));
        return -1;
    }
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].nrows; i++) {
            const struct opt_row *o = &sets[s].rows[i];
            const char *v = o->env ? getenv(o->env) : NULL;
            if (v && *v && set_row(o, sets[s].base, v, err, errlen) != 0) {
                char why[512];
                snprintf(why, sizeof why, "%s", o->flags & OPT_SECRET ? "bad value" : err);
                snprintf(err, errlen, "environment %s: %s", o->env, why);
                return -1;
            }
        }
    return 0;
}

static int listed(const char *const *only, const char *name) {
    for (; only && *only; only++)
        if (!strcmp(*only, name))
            return 1;
    return 0;
}

int opt_parse(const struct opt_set *sets, size_t nsets, int argc, char **argv, int first,
              const char *const *only, char *err, size_t errlen) {
    int i = first;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return i + 1;
        if (strncmp(a, "--", 2) != 0)
            break; /* operand */
        char name[64];
        const char *val = NULL, *eq = strchr(a + 2, '=');
        size_t l = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (l >= sizeof name)
            l = sizeof name - 1;
        memcpy(name, a + 2, l);
        name[l] = 0;
        if (eq)
            val = eq + 1;
        const struct opt_set *set = NULL;
        const struct opt_row *o = opt_find(sets, nsets, name, &set);
        if (o && ((only && !listed(only, name)) || (!only && (o->flags & OPT_CMD_ONLY))))
            o = NULL;
        if (!o) {
            snprintf(err, errlen, "unknown option '%s' (see --help)", a);
            return -1;
        }
        if (o->flags & OPT_SECRET) {
            snprintf(err, errlen,
                     "--%s is a secret: it is never taken from the command line; set %s in the "
                     "environment or the credentials file",
                     o->name, o->env ? o->env : "it");
            return -1;
        }
        if (o->type == OPT_FLAG) {
            if (val) {
                snprintf(err, errlen, "--%s takes no value", o->name);
                return -1;
            }
            *(int *)((char *)set->base + o->off) = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--%s needs a value: %s", o->name, o->help);
                return -1;
            }
            val = argv[++i];
        }
        if (set_row(o, set->base, val, err, errlen) != 0)
            return -1;
    }
    return i;
}

void opt_usage(const struct opt_set *sets, size_t nsets, FILE *f) {
    for (size_t s = 0; s < nsets; s++) {
        if (!sets[s].nrows)
            continue;
        fprintf(f, "\n%s options:\n", sets[s].title);
        for (size_t i = 0; i < sets[s].nrows; i++) {
            const struct opt_row *o = &sets[s].rows[i];
            if (o->flags & OPT_CMD_ONLY)
                continue;
            char name[80], def[160] = "";
            if (o->flags & OPT_SECRET) {
                snprintf(name, sizeof name, "(%s)", o->env);
                fprintf(f, "  %-24s %s: from the environment or the credentials file only\n", name,
                        o->help);
                continue;
            }
            snprintf(name, sizeof name, "--%s", o->name);
            if (o->type == OPT_CHOICE)
                snprintf(def, sizeof def, " (%s; default %s)", o->choices,
                         o->def ? o->def : "none");
            else if (o->def && o->type != OPT_FLAG)
                snprintf(def, sizeof def, " (default %s)", o->def);
            fprintf(f, "  %-24s %s%s%s%s\n", name, o->help, def, o->env ? "; env " : "",
                    o->env ? o->env : "");
        }
    }
}

void opt_format(const struct opt_row *o, const void *base, char *buf, size_t len) {
    const char *field = (const char *)base + o->off;
    switch (o->type) {
    case OPT_FLAG:
        snprintf(buf, len, "%d", *(const int *)field ? 1 : 0);
        break;
    case OPT_STR:
        snprintf(buf, len, "%s", field);
        break;
    case OPT_DOUBLE:
        snprintf(buf, len, "%.17g", *(const double *)field);
        break;
    case OPT_UINT:
        snprintf(buf, len, "%u", *(const unsigned *)field);
        break;
    case OPT_U64:
    case OPT_SIZE:
        snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case OPT_CHOICE:
        if (!opt_choice_name(o->choices, *(const int *)field, buf, len))
            buf[0] = 0;
        break;
    case OPT_CUSTOM:
        buf[0] = 0;
        break;
    }
}

void opt_write_env(const struct opt_set *sets, size_t nsets, FILE *f) {
    char v[4096];
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].nrows; i++) {
            const struct opt_row *o = &sets[s].rows[i];
            if (!o->env || o->type == OPT_CUSTOM)
                continue;
            opt_format(o, sets[s].base, v, sizeof v);
            if (v[0])
                fprintf(f, "%s=%s\n", o->env, v);
        }
}
