/* test_pacing.c -- the paced agents' pure part (common/pacing.h) against
 * outside references: a Poisson process's gaps are exponential (mean 1/R,
 * variance 1/R^2, P(gap > mean) = 1/e) and its counts per second have
 * variance equal to their mean; fixed arrivals are k/R exactly (worked by
 * hand); the think-time parser takes the three forms and refuses the rest
 * with one line; the draws have the means of their distributions. Each
 * statistical tolerance is 4 standard errors of the sample size used
 * (stated beside it): a seeded draw, so the same every run, but a seed
 * picked to pass would prove nothing, hence the margins. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pacing.h"
#include "unit.h"

#define N 200000

static void poisson(void) {
    static int64_t t[N];
    struct rng r;
    pacing_seed(&r, 42, 7);
    double rate = 100; /* per second: mean gap 10 ms */
    arrival_offsets(ARRIVAL_POISSON, rate, &r, t, N);
    double sum = 0, sum2 = 0;
    unsigned long over = 0;
    int grows = 1;
    for (size_t k = 0; k < N; k++) {
        double g = (double)(t[k] - (k ? t[k - 1] : 0)) / 1e9;
        grows &= g >= 0;
        sum += g, sum2 += g * g;
        over += g > 1 / rate;
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    CHECK(grows);
    /* SE of the mean of N exponentials: mean/sqrt(N) = 0.22 %; 4 SE = 0.9 %. */
    CHECKF(fabs(mean * rate - 1) < 4 / sqrt(N), "mean gap %g s, want %g", mean, 1 / rate);
    /* SE of the variance: sigma^2 sqrt((mu4/sigma^4 - 1)/N) = sqrt(8/N) = 0.63 %. */
    CHECKF(fabs(var * rate * rate - 1) < 4 * sqrt(8.0 / N), "gap variance %g, want %g", var,
           1 / (rate * rate));
    /* P(gap > mean) = e^-1; SE sqrt(p(1-p)/N) = 0.11 %. */
    double p = (double)over / N;
    CHECKF(fabs(p - exp(-1)) < 4 * sqrt(exp(-1) * (1 - exp(-1)) / N), "P(gap > mean) %g", p);
    /* Counts in whole seconds: Poisson(100), variance = mean. With m
     * windows the variance's SE is about lambda sqrt(2/m). */
    unsigned m = (unsigned)(t[N - 1] / 1000000000);
    unsigned *cnt = calloc(m, sizeof *cnt);
    for (size_t k = 0; k < N && cnt; k++)
        if (t[k] / 1000000000 < m)
            cnt[t[k] / 1000000000]++;
    double cs = 0, cs2 = 0;
    for (unsigned i = 0; cnt && i < m; i++)
        cs += cnt[i], cs2 += (double)cnt[i] * cnt[i];
    double cm = cs / m, cv = cs2 / m - cm * cm;
    CHECKF(fabs(cm / rate - 1) < 4 / sqrt(rate * m), "counts per second: mean %g", cm);
    CHECKF(fabs(cv / cm - 1) < 4 * sqrt(2.0 / m), "index of dispersion %g, a Poisson process 1",
           cv / cm);
    free(cnt);

    /* Seeded: the same seed and worker give the same instants, another
     * worker others. */
    static int64_t a[1000], b[1000];
    pacing_seed(&r, 42, 7);
    arrival_offsets(ARRIVAL_POISSON, rate, &r, a, 1000);
    CHECK(memcmp(a, t, sizeof a) == 0);
    pacing_seed(&r, 42, 8);
    arrival_offsets(ARRIVAL_POISSON, rate, &r, b, 1000);
    CHECK(memcmp(a, b, sizeof a) != 0);
}

static void fixed(void) {
    int64_t t[4];
    struct rng r;
    pacing_seed(&r, 1, 0);
    arrival_offsets(ARRIVAL_FIXED, 3, &r, t, 4); /* 1/3 s apart, by hand */
    CHECK(t[0] == 333333333 && t[1] == 666666667 && t[2] == 1000000000 && t[3] == 1333333333);
    static int64_t u[N];
    arrival_offsets(ARRIVAL_FIXED, 10000, &r, u, N); /* no drift: the last is N/R exactly */
    CHECK(u[N - 1] == (int64_t)N * 100000);
}

static void think(void) {
    struct think_time t;
    char err[256], s[64];
    CHECK(think_parse("fixed:0.5", &t, err, sizeof err) == 0 && t.kind == THINK_FIXED &&
          t.a == 0.5);
    CHECK(think_parse("exp:2", &t, err, sizeof err) == 0 && t.kind == THINK_EXP && t.a == 2);
    CHECK(think_parse("uniform:0.1-0.3", &t, err, sizeof err) == 0 && t.kind == THINK_UNIFORM &&
          t.a == 0.1 && t.b == 0.3);
    think_format(&t, s, sizeof s);
    CHECK(!strcmp(s, "uniform:0.1-0.3"));
    CHECK(think_parse("fixed:0", &t, err, sizeof err) == 0); /* no pause: a plain closed loop */
    static const char *const bad[] = {"",           "fixed",         "fixed:",       "fixed:-1",
                                      "fixed:1x",   "exp:0",         "exp:nan",      "exp:inf",
                                      "uniform:3",  "uniform:3-1",   "uniform:-1-2", "gauss:1",
                                      "fixed:7200", "uniform:1-2-3", "fixed: 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        int rc = think_parse(bad[i], &t, err, sizeof err);
        CHECKF(rc == -1 && strstr(err, "--think-time") && !strchr(err, '\n'), "'%s' -> %d %s",
               bad[i], rc, err);
    }

    /* Draws: exp's mean (SE mean/sqrt(N)), uniform's bounds and mean (SE
     * (b-a)/sqrt(12 N)), fixed exactly. */
    struct rng r;
    pacing_seed(&r, 9, 1);
    think_parse("exp:0.25", &t, err, sizeof err);
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += (double)think_draw(&t, &r) / 1e9;
    CHECKF(fabs(sum / N / 0.25 - 1) < 4 / sqrt(N), "exp mean %g", sum / N);
    think_parse("uniform:0.1-0.3", &t, err, sizeof err);
    sum = 0;
    int inside = 1;
    for (int i = 0; i < N; i++) {
        int64_t d = think_draw(&t, &r);
        inside &= d >= 100000000 && d <= 300000000;
        sum += (double)d / 1e9;
    }
    CHECK(inside);
    CHECKF(fabs(sum / N - 0.2) < 4 * 0.2 / sqrt(12.0 * N), "uniform mean %g", sum / N);
    think_parse("fixed:0.125", &t, err, sizeof err);
    CHECK(think_draw(&t, &r) == 125000000);
}

static void checks(void) {
    struct think_time none = {THINK_NONE, 0, 0}, ex = {THINK_EXP, 1, 0};
    char err[256];
    CHECK(pacing_check(ARRIVAL_CLOSED, 0, &none, 30, 0, err, sizeof err) == 0);
    CHECK(pacing_check(ARRIVAL_POISSON, 10, &none, 30, 0, err, sizeof err) == 0);
    CHECK(pacing_check(ARRIVAL_POISSON, 0, &none, 30, 0, err, sizeof err) == -1 &&
          strstr(err, "--agent-rate"));
    CHECK(pacing_check(ARRIVAL_CLOSED, 5, &none, 30, 0, err, sizeof err) == -1 &&
          strstr(err, "--arrival"));
    CHECK(pacing_check(ARRIVAL_FIXED, 5, &ex, 30, 0, err, sizeof err) == -1 &&
          strstr(err, "--think-time"));
    CHECK(pacing_check(ARRIVAL_FIXED, 5, &none, 30, 1, err, sizeof err) == -1 &&
          strstr(err, "--phase-barrier"));
    /* 20/R >= the stall timeout: a healthy run could be stopped as stalled. */
    CHECK(pacing_check(ARRIVAL_POISSON, 0.5, &none, 30, 0, err, sizeof err) == -1 &&
          strstr(err, "--stall-timeout"));
    CHECK(pacing_check(ARRIVAL_CLOSED, 0, &ex, 30, 0, err, sizeof err) == 0); /* 20.7 s < 30 */
    CHECK(pacing_check(ARRIVAL_CLOSED, 0, &ex, 20, 0, err, sizeof err) == -1);
}

int main(void) {
    poisson();
    fixed();
    think();
    checks();
    return unit_done("test_pacing");
}
