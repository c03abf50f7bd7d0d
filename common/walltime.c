/* walltime.c -- see walltime.h. */
#include "walltime.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int wall_sleep_until(double epoch) {
    struct timespec ts;
    ts.tv_sec = (time_t)floor(epoch);
    ts.tv_nsec = (long)((epoch - floor(epoch)) * 1e9);
    if (ts.tv_nsec > 999999999)
        ts.tv_nsec = 999999999;
    return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == 0 ? 0 : -1;
}

/* n digits at s into *v; returns the position after them, NULL when short. */
static const char *digits(const char *s, int n, int *v) {
    *v = 0;
    for (int i = 0; i < n; i++, s++) {
        if (!isdigit((unsigned char)*s))
            return NULL;
        *v = *v * 10 + (*s - '0');
    }
    return s;
}

static int parse_rfc3339(const char *s, double *epoch) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int y, mo, d, h, mi, sec;
    if (!(s = digits(s, 4, &y)) || *s++ != '-' || !(s = digits(s, 2, &mo)) || *s++ != '-' ||
        !(s = digits(s, 2, &d)) || (*s != 'T' && *s != 't' && *s != ' '))
        return -1;
    s++;
    if (!(s = digits(s, 2, &h)) || *s++ != ':' || !(s = digits(s, 2, &mi)) || *s++ != ':' ||
        !(s = digits(s, 2, &sec)))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    double frac = 0;
    if (*s == '.') {
        double scale = 0.1;
        if (!isdigit((unsigned char)s[1]))
            return -1;
        for (s++; isdigit((unsigned char)*s); s++, scale /= 10)
            frac += (*s - '0') * scale;
    }
    int off = 0;
    if (*s == 'Z' || *s == 'z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        int sign = *s == '-' ? -1 : 1, oh, om;
        s++;
        if (!(s = digits(s, 2, &oh)) || *s++ != ':' || !(s = digits(s, 2, &om)) || oh > 23 ||
            om > 59)
            return -1;
        off = sign * (oh * 3600 + om * 60);
    } else {
        return -1; /* RFC 3339 always names its offset */
    }
    if (*s)
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    *epoch = (double)t + frac - off;
    return 0;
}

int wall_parse(const char *s, double *epoch) {
    if (!s || !*s)
        return -1;
    const char *p = s;
    while (isdigit((unsigned char)*p))
        p++;
    if (p > s && (*p == 0 || *p == '.')) { /* epoch seconds */
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (errno || *end || !isfinite(x))
            return -1;
        *epoch = x;
        return 0;
    }
    return parse_rfc3339(s, epoch);
}

void wall_format(double epoch, char *buf, size_t len) {
    double whole = floor(epoch);
    long ms = lround((epoch - whole) * 1000);
    if (ms == 1000) {
        whole += 1;
        ms = 0;
    }
    time_t t = (time_t)whole;
    struct tm tm;
    gmtime_r(&t, &tm);
    char b[32];
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03ldZ", b, ms);
}
