/* summary.h -- the human summary of a result on stdout (summary.c). */
#ifndef AOPS_SUMMARY_H
#define AOPS_SUMMARY_H

#include <jansson.h>
#include <stdio.h>

/* The summary of a run's, a repeat's or a merge's result written to dir. */
void results_print_summary(const json_t *result, const char *dir, FILE *f);

/* The per-host table of a merged result (nothing for a single-host one):
 * after the summary of `harness merge`, and in `harness compare`. */
void shards_print(const json_t *res, FILE *f);

#endif
