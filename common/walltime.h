/* walltime.h -- the wall clock, for what must line up across machines: a
 * sharded run's common start (--start-at), the absolute times in its
 * result.json, and the clock offset each shard measures.
 *
 * Everything measured inside one machine stays on CLOCK_MONOTONIC
 * (util.h's now_ns); the wall clock only says when that happened. Times are
 * epoch seconds as doubles: 0.2 us of resolution today, plenty for a start
 * that is checked to the millisecond. */
#ifndef AOPS_WALLTIME_H
#define AOPS_WALLTIME_H

#include <stddef.h>

/* CLOCK_REALTIME in epoch seconds. */
double wall_now(void);

/* Sleep until the wall clock reads `epoch` (at once when it is past).
 * Returns early on a signal with -1. */
int wall_sleep_until(double epoch);

/* "1767225600", "1767225600.25" (epoch seconds) or RFC 3339
 * ("2026-12-01T10:00:00Z", "2026-12-01T10:00:00.250+01:00"; 't' or a space
 * for 'T', 'z' for 'Z'). Returns 0, or -1 when s is neither. */
int wall_parse(const char *s, double *epoch);

/* RFC 3339 in UTC with milliseconds: "2026-12-01T10:00:00.250Z". */
void wall_format(double epoch, char *buf, size_t len);

#endif
