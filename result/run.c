/* run.c -- the layout of the shared slots a run's coordinator and workers
 * agree on (run.h): which workloads run, where each one's histograms sit in
 * a slot, and how big a slot is. The coordinator builds it before it maps
 * the slots; a worker in a container builds it again from the same options. */
#include <stdio.h>
#include <string.h>

#include "run.h"

int layout_build(const struct config *cfg, struct run_layout *lay, char *err, size_t errlen) {
    memset(lay, 0, sizeof *lay);
    for (int i = 0; workload_table[i]; i++) {
        if (!(cfg->wl_mask >> i & 1))
            continue;
        if (lay->nwl == RUN_MAX_WL) {
            snprintf(err, errlen, "too many workloads (at most %d in one run)", RUN_MAX_WL);
            return -1;
        }
        lay->hist_base[lay->nwl] = lay->nhist;
        lay->nhist += lay_nhists_of(workload_table[i]);
        lay->ops_per_cycle += workload_table[i]->ops_per_cycle;
        lay->wl[lay->nwl++] = workload_table[i];
    }
    lay->paced = cfg->arrival != ARRIVAL_CLOSED || cfg->think.kind != THINK_NONE;
    if (lay->paced) {
        for (unsigned w = 0; w < lay->nwl; w++) {
            lay->svc_base[w] = lay->nhist;
            lay->nhist += 1 + lay->wl[w]->nclasses;
        }
        lay->hist_late = lay->nhist++;
    }
    size_t sz = sizeof(struct worker_slot) + lay->nhist * sizeof(struct hist);
    lay->phase_off = (sz + 15) & ~(size_t)15;
    lay->phase_cycles = cfg->cycles < RUN_MAX_PHASE_CYCLES ? cfg->cycles : RUN_MAX_PHASE_CYCLES;
    if (!lay->phase_cycles)
        lay->phase_cycles = 1;
    sz = lay->phase_off + (size_t)lay->phase_cycles * lay->nwl * sizeof(struct phase_iv);
    sz = (sz + 63) & ~(size_t)63;
    lay->log_off = sz;
    lay->log_cap = (size_t)lay->ops_per_cycle * cfg->cycles;
    sz += lay->log_cap * sizeof(struct oplog_rec);
    lay->slot_size = (sz + 4095) & ~(size_t)4095; /* a page each: no false sharing */
    return 0;
}
