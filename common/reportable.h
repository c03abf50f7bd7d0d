/* reportable.h -- whether a result is fit to publish, by the rules of
 * issue 25 (SPEC: "a result fit to publish says reportable: true"): full
 * profile, phased schedule; --repeat 3 or more with the median run as the
 * headline; the default stall timeout and sample interval; a release build
 * from a clean tree; the published data set, corpus and patterns (their
 * digests pinned below); every answer verified, zero errors, a valid run;
 * no "unstable" warning. A pure function of the result's JSON: the run
 * applies it when it writes a result, and `harness check` applies it again
 * to what it finds. */
#ifndef AOPS_REPORTABLE_H
#define AOPS_REPORTABLE_H

#include <jansson.h>

/* The published data, as computed on the reference machine (see
 * reportable.c for how each was made). */
extern const char *const reportable_objects_worker0_sha256;
extern const char *const reportable_corpus_manifest_sha256;
extern const char *const reportable_patterns_sha256;

/* The reasons res is not reportable (a new array, empty when it is). */
json_t *reportable_reasons(const json_t *res);

/* result/result.c's result_reportable() places the verdict in a result. */

#endif
