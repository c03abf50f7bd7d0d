/* prepare_plan.h -- what `harness prepare` will write, said before it
 * writes anything, and whether it fits: the arithmetic and the words, kept
 * apart from the requests that gather the figures (each workload's plan
 * hook) so both can be tested against figures worked out by hand.
 *
 * Per workload that writes a known number of bytes into a store whose room
 * is known: the bytes still to write (its data set less what an earlier
 * prepare left), times the erasure overhead (data + parity) / data, plus a
 * margin of 5 % of that or 1 GiB, whichever is larger, against the drives'
 * free space. The time is the bytes to write over this machine's measured
 * upload rate (the last prepare's, kept in the prepare record), or unknown
 * on the first prepare. */
#ifndef AOPS_PREPARE_PLAN_H
#define AOPS_PREPARE_PLAN_H

#include <stdio.h>

#include "../workloads/workload.h"

#define PLAN_MARGIN_SHARE 0.05
#define PLAN_MARGIN_MIN 1073741824.0 /* 1 GiB */

enum plan_verdict { PLAN_NOTHING = 0, PLAN_FITS, PLAN_TOO_BIG, PLAN_UNKNOWN };

struct plan_totals {
    double write;     /* bytes still to write, before erasure overhead */
    double parity;    /* the overhead on top: write x parity / data */
    double margin;    /* max(5 % of write + parity, 1 GiB) */
    double need;      /* write + parity + margin */
    double free;      /* the drives' raw room; -1 unknown */
    double shortfall; /* need - free, when it does not fit */
    enum plan_verdict verdict;
};

/* bytes x (data + parity) / data: what `bytes` take on the drives. */
double plan_on_drives(double bytes, unsigned data, unsigned parity);
double plan_margin(double on_drives);
/* The totals of one workload's plan (PLAN_NOTHING when it writes no known
 * bytes: rows, the corpus). */
void plan_totals(const struct wl_plan *p, struct plan_totals *t);

/* "3.66 TiB", "512 MiB", "0 B": binary units, three significant digits. */
void plan_size(char *buf, size_t len, double bytes);
/* "about 4 h 10 min", "about 35 s". */
void plan_duration(char *buf, size_t len, double seconds);

/* The plan on one screen: one block per workload (names[i], plans[i],
 * totals[i]), then the time at rate bytes/s (rate <= 0: unknown, with
 * rate_src saying why) and what --no-space-check does when given. */
void plan_print(FILE *f, const char *const names[], const struct wl_plan *plans,
                const struct plan_totals *totals, unsigned n, double rate, const char *rate_src,
                int no_space_check);

/* The one line of a refusal: the sizes, the room, the shortfall, what to
 * do instead. */
void plan_refusal(char *buf, size_t len, const char *name, const struct wl_plan *p,
                  const struct plan_totals *t);

#endif
