/* result.h -- placing the top-level keys of result.json (keys.h is their
 * table).
 *
 * result_put() is the only code that sets a top-level key: each key is put
 * by the one function keys.h names, once. The verdict (valid,
 * invalid_reasons, warnings) is decided in one function from the reasons
 * and warnings the other modules appended to the two arrays, and so is the
 * reportable verdict (common/reportable.h's rules). A merged or repeated
 * result is completed from the same table: a key it cannot carry is null
 * with its reason, never absent. */
#ifndef AOPS_RESULT_RESULT_H
#define AOPS_RESULT_RESULT_H

#include <jansson.h>

#include "keys.h"

/* Sets key k of res to value (a new reference is stolen; NULL: null). A key
 * with a *_reason key of its own (keys.h) gets why there when value is
 * null, and null when it is not (why NULL with a null value: the reason
 * says "not recorded"). 0, or -1 when k is already set (a second writer:
 * the table's rule broken, said on stderr) or out of memory. */
int result_put(json_t *res, enum rkey k, json_t *value, const char *why);

/* A new result: schema_version (this build's), then the verdict of
 * result_verdict() so far, so that the four come first in the file. NULL
 * when out of memory. */
json_t *result_begin(json_t *reasons, json_t *warnings);

/* The verdict: places reasons and warnings (the arrays the modules append
 * to; new references taken) as invalid_reasons and warnings, and valid as
 * "no reason" (and ok, a verdict an input result gave, as for a repeat's
 * runs). result_begin() calls it first; call it again once every module has
 * reported, to decide. */
void result_verdict(json_t *res, json_t *reasons, json_t *warnings, int ok);

/* reportable and nonreportable_reasons by common/reportable.h's rules, once
 * everything else is in (called again when a --repeat's spread is known:
 * the one place that decides them). */
void result_reportable(json_t *res);

/* Every key of the table a result of kind (RK_MERGED, RK_REPEAT) should have
 * and lacks, as a merge or a repeat has it: null with the table's reason,
 * or for a repeat the median run's own (from, may be NULL). */
void result_complete(json_t *res, unsigned kind, const json_t *from);

#endif
