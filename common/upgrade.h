/* upgrade.h -- reading a result.json of any version this build knows in the
 * shape it writes now.
 *
 * Every reader of result.json (report, compare, merge, check) calls
 * result_upgrade() right after loading, so that an older shape is handled in
 * one place and nowhere else: no reader carries its own special case. What
 * changed between versions is CHANGELOG.md's; this is its code. It lives in
 * common/, the bottom layer, so that coordinator/ (merge), report/ and
 * check/ can all use it. */
#ifndef AOPS_UPGRADE_H
#define AOPS_UPGRADE_H

#include <jansson.h>
#include <stddef.h>

/* The version of result.json's shape this build writes (CHANGELOG.md). */
#define RESULT_SCHEMA_VERSION 3

/* Reads root, a loaded result.json, into the current shape in place.
 * Returns the schema_version the file was written as (1 ..
 * RESULT_SCHEMA_VERSION); schema_version itself is left as written, so a
 * reader still knows which build's result it holds. A version-3 result is
 * left exactly as it was (its integrity digest holds). An older one gets
 * served_from_disk capped at 1 with the quotient beside it
 * (disk_bytes_per_workload_byte), and a version-1 result also the keys its
 * build did not write yet as null, listed with the reason in not_recorded:
 * result_upgrade_undo() takes both out again, for its digest.
 * -1 with one line in err when root is no object, has no integer
 * schema_version, or one this build does not know (a newer build's: no
 * guessing at a shape it has not seen). */
int result_upgrade(json_t *root, char *err, size_t errlen);

/* The nulls result_upgrade() added and not_recorded removed: root as its
 * build wrote it but for the reshaped power (which predates integrity). */
void result_upgrade_undo(json_t *root);

#endif
