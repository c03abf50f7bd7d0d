/* commands.h -- the run's subcommands, and the fleet's merge.
 *
 * coordinator/ holds one host's run (launch, barrier, loop, repeats,
 * prepare, plan, rerun) and its command line; it drives the layers below
 * it: result/ (slots -> result.json, histograms, the repeats' statistics,
 * the summary on stdout), placement/, runtime/ and metrics/. fleet/ (the
 * merge of several hosts' results, and capacity's search over several
 * runs) sits above it and declares its commands here too. None of them
 * uses report/: what only a renderer can write (CSV) reaches the run as a
 * result_exports hook. The command table (cmd/main.c)
 * dispatches to these; the report layer brings its own (report/report.h),
 * and a workload its own in its descriptor (workload.h). */
#ifndef AOPS_COMMANDS_H
#define AOPS_COMMANDS_H

#include <jansson.h>
#include <stddef.h>

/* Formats a result is written in beside result.json, which only a layer
 * above the run can render: the command table plugs them in, so the run
 * never calls up into report/. csv: `--csv DIR` (report/csv.c); 0, or -1
 * with err set to one line. */
struct result_exports {
    int (*csv)(const json_t *result, const char *dir, char *err, size_t errlen);
};

int run_main(int argc, char **argv, const struct result_exports *ex); /* ./harness [run] */
int prepare_main(int argc, char **argv); /* coordinator.c: ./harness prepare */
int merge_main(int argc, char **argv);   /* merge_cmd.c: ./harness merge */
/* rerun.c: ./harness rerun RUN_DIR -- the job a result records, again. */
int rerun_main(int argc, char **argv, const struct result_exports *ex);
int plan_main(int argc, char **argv); /* plan.c: ./harness plan (the placement, nothing run) */
/* fleet/capacity.c: ./harness capacity -- the most agents whose runs meet the SLO. */
int capacity_main(int argc, char **argv, const struct result_exports *ex);
/* worker_cmd.c: ./harness worker RUN_DIR ID N [options], the docker
 * runtime's worker inside its container (not for people). */
int worker_container_main(int argc, char **argv);

#endif
