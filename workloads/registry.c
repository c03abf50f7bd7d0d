/* registry.c -- the table of workloads the coordinator walks.
 *
 * The three real workloads in the order a phased cycle runs them, then the
 * test-only ones the coordinator's own tests use. */
#include <string.h>

#include "workload.h"

extern const struct workload s3_workload, db_workload, search_workload;
extern const struct workload sleep_workload, memhog_workload;

const struct workload *const workload_table[] = {
    &s3_workload, &db_workload, &search_workload, &sleep_workload, &memhog_workload, NULL,
};

const struct workload *workload_find(const char *name) {
    for (int i = 0; workload_table[i]; i++)
        if (strcmp(workload_table[i]->name, name) == 0)
            return workload_table[i];
    return NULL;
}
