/* slo.h -- a service level objective and a result's verdict against it.
 *
 * An SLO is a list of latency bounds, each on one workload or one class of
 * it at one percentile: "s3.p99<=250ms,db.patterns.p50<=5ms" reads "the
 * 99th percentile of every S3 GET at most 250 ms, ...". A result meets it
 * when every bound holds, measured from the result's own merged histograms
 * (histograms.workloads: one host's run or a fleet's merge, the same
 * code), by the rule every percentile of the result uses (hist.h), and when
 * none of the named operations failed: an error is a call the agent never
 * got an answer to, which no latency bound excuses.
 *
 * The spec comes from anyone (a command line, a result.json someone sent),
 * so the parser is bounded and fails closed: one line naming the term that
 * is wrong and why. Names are checked against this build's workloads and
 * their classes in a second step (slo_check_names), so that the syntax can
 * be tested and fuzzed on its own. */
#ifndef AOPS_RESULT_SLO_H
#define AOPS_RESULT_SLO_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/config.h"

#define SLO_MAX_TERMS 16
#define SLO_SPEC_MAX 1024 /* bytes of a spec, its NUL included */
#define SLO_NAME_MAX 48

/* The bounds used when --slo is not given (or is "default"); README.md,
 * "Service level", says why each bound is what it is. */
#define SLO_DEFAULT_SPEC "s3.p99<=250ms,db.p99<=50ms,search.p99<=3s"

struct slo_term {
    char workload[SLO_NAME_MAX];
    char klass[SLO_NAME_MAX]; /* "" for the whole workload */
    double q;                 /* the percentile as a fraction, 0 < q <= 1 */
    char pct[16];             /* as it is reported: "p99", "p99.9" */
    uint64_t bound_ns;
};

struct slo {
    unsigned n;
    struct slo_term t[SLO_MAX_TERMS];
    int is_default;          /* "default" (or nothing) was given: SLO_DEFAULT_SPEC */
    char spec[SLO_SPEC_MAX]; /* the terms, as parsed (the default's spelled out) */
};

/* Parse spec ("default", "" or NULL: SLO_DEFAULT_SPEC). 0 with *out
 * filled, or -1 with err one line naming the term and what is wrong (and
 * *out empty). Syntax only: any name of the right shape is taken. */
int slo_parse(const char *spec, struct slo *out, char *err, size_t errlen);

/* Every term's workload is one of this build's, and its class one of that
 * workload's. 0, or -1 with err naming the term. */
int slo_check_names(const struct slo *s, char *err, size_t errlen);

/* The run's SLO from cfg->slo: parsed, names checked, and an explicit one
 * may name only workloads the run runs (cfg->wl_mask). The default's terms
 * on workloads the run does not run are dropped (a run of --workloads s3
 * is judged on S3 alone). 0, or -1 with err. */
int slo_from_config(const struct config *cfg, struct slo *out, char *err, size_t errlen);

/* The verdict of result (its histograms.workloads and workloads' errors):
 * {spec, source, met, reason, checks[{workload, class?, percentile,
 * bound_ms, measured_ms, errors, met, reason}]}. A term whose workload the
 * result does not hold, or whose histogram is missing or unreadable, is
 * not met, with the reason. met is null (with reason) only when there is
 * no term to check. Never NULL but out of memory. */
json_t *slo_verdict(const struct slo *s, const json_t *result);

/* A run's verdict: slo_from_config, then slo_verdict of res (whose
 * histograms and workloads are in); a spec that does not parse (the
 * coordinator refused it before the start, so only a caller that did not
 * check) gives slo_unjudged. */
json_t *slo_judge_run(const struct config *cfg, const json_t *res);

/* slo_verdict of a result with a spec that could not be parsed: met null,
 * no checks, err as the reason. */
json_t *slo_unjudged(const char *spec, const char *why);

/* The verdict in one line, "met: s3.p99 1.204 ms <= 250 ms, ..." or "NOT
 * met: ..." (truncated to len), and the summary's line made of it,
 * "  SLO         met: ...". */
void slo_line(const json_t *slo, char *buf, size_t len);
void slo_print(const json_t *slo, FILE *f);

#endif
