/* cpulist.c -- CPU and node sets as kernel lists (see cpulist.h). */
#include "cpulist.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpuset_count(const struct cpuset *s) {
    int n = 0;
    for (int i = 0; i < CPUSET_WORDS; i++)
        n += __builtin_popcountll(s->w[i]);
    return n;
}

int cpuset_empty(const struct cpuset *s) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        if (s->w[i])
            return 0;
    return 1;
}

int cpuset_equal(const struct cpuset *a, const struct cpuset *b) {
    return memcmp(a->w, b->w, sizeof a->w) == 0;
}

int cpuset_intersects(const struct cpuset *a, const struct cpuset *b) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        if (a->w[i] & b->w[i])
            return 1;
    return 0;
}

int cpuset_subset(const struct cpuset *a, const struct cpuset *b) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        if (a->w[i] & ~b->w[i])
            return 0;
    return 1;
}

void cpuset_or(struct cpuset *dst, const struct cpuset *src) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        dst->w[i] |= src->w[i];
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *src) {
    for (int i = 0; i < CPUSET_WORDS; i++)
        dst->w[i] &= ~src->w[i];
}

int cpuset_next(const struct cpuset *s, int cpu) {
    int c = cpu + 1;
    if (c < 0)
        c = 0;
    while (c < CPUSET_MAX) {
        uint64_t w = s->w[c / 64] >> (c % 64);
        if (w)
            return c + __builtin_ctzll(w);
        c = (c / 64 + 1) * 64;
    }
    return -1;
}

int cpuset_first(const struct cpuset *s) {
    return cpuset_next(s, -1);
}

static int number(const char **p, long *out) {
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    *out = strtol(*p, &end, 10);
    *p = end;
    return *out < CPUSET_MAX ? 0 : -1;
}

int cpuset_parse(const char *text, struct cpuset *out) {
    cpuset_zero(out);
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    while (*p && !isspace((unsigned char)*p)) {
        long a, b;
        if (number(&p, &a) != 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (number(&p, &b) != 0 || b < a)
                return -1;
        }
        for (long c = a; c <= b; c++)
            cpuset_add(out, (int)c);
        if (*p == ',')
            p++;
        else if (*p && !isspace((unsigned char)*p))
            return -1;
    }
    while (isspace((unsigned char)*p))
        p++;
    return *p ? -1 : 0;
}

static int hexval(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int mask_parse(const char *text, struct cpuset *out) {
    const char *b = text, *e;
    while (isspace((unsigned char)*b))
        b++;
    e = b + strlen(b);
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if (e == b || e - b > CPUSET_MAX_MASK)
        return -1;
    /* From the last word (CPUs 0-31) back to the first: the position of a
     * digit from the right is its bit offset, whatever the words before it. */
    long word = 0;
    for (const char *p = e; p > b; word++) {
        const char *w = p;
        while (w > b && w[-1] != ',')
            w--;
        if (p - w < 1 || p - w > 8 || (w > b && w - 1 == b))
            return -1; /* an empty word, or a leading comma */
        for (const char *q = p; q > w; q--) {
            int v = hexval(q[-1]);
            if (v < 0)
                return -1;
            long bit = word * 32 + (p - q) * 4;
            for (int k = 0; k < 4; k++)
                if (v >> k & 1) {
                    if (bit + k >= CPUSET_MAX)
                        return -1;
                    cpuset_add(out, (int)(bit + k));
                }
        }
        p = w > b ? w - 1 : b;
    }
    return 0;
}

int cpuset_parse_mask(const char *text, struct cpuset *out) {
    cpuset_zero(out);
    if (mask_parse(text, out) == 0)
        return 0;
    cpuset_zero(out); /* never the part of it before the fault */
    return -1;
}

char *cpuset_format(const struct cpuset *s, char *out, size_t len) {
    size_t o = 0;
    if (len)
        out[0] = 0;
    for (int c = cpuset_first(s); c >= 0;) {
        int e = c;
        while (cpuset_has(s, e + 1))
            e++;
        char part[32];
        int k = e > c ? snprintf(part, sizeof part, "%s%d-%d", o ? "," : "", c, e)
                      : snprintf(part, sizeof part, "%s%d", o ? "," : "", c);
        if (o + (size_t)k + 1 > len) {
            if (len >= 4)
                snprintf(out + (o + 4 < len ? o : len - 4), 4, "...");
            return out;
        }
        memcpy(out + o, part, (size_t)k + 1);
        o += (size_t)k;
        c = cpuset_next(s, e);
    }
    return out;
}

int proc_status_allowed(const char *status_path, char *cpus, size_t cpus_len, char *mems,
                        size_t mems_len) {
    FILE *f = fopen(status_path, "re");
    char line[8192];
    int have = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "Cpus_allowed_list:", 18)) {
            snprintf(cpus, cpus_len, "%s", v);
            have |= 1;
        } else if (!strncmp(line, "Mems_allowed_list:", 18)) {
            snprintf(mems, mems_len, "%s", v);
            have |= 2;
        }
    }
    fclose(f);
    return have == 3 ? 0 : -1;
}
