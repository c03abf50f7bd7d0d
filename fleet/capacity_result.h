/* capacity_result.h -- `harness capacity`'s DIR/result.json: the whole
 * result of the run its headline comes from (the point of agents_at_slo,
 * its repeated run's median where it was repeated; else the point named
 * in capacity.headline: what was measured), plus capacity{}, the same
 * object DIR/capacity.json holds. */
#ifndef AOPS_CAPACITY_RESULT_H
#define AOPS_CAPACITY_RESULT_H

#include <jansson.h>
#include <stddef.h>

/* Write dir/result.json from dir/<cap.headline.dir>/result.json and cap
 * (the capacity object), sealed over dir. Its validity is the run's and
 * the search's (cap.valid, cap.invalid_reasons). 0, or -1 with err (one
 * line): no headline, or a file that cannot be read or written. */
int capacity_result_write(const char *dir, const json_t *cap, char *err, size_t errlen);

#endif
