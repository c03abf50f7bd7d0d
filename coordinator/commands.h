/* commands.h -- the harness's own subcommands main() dispatches to, one per
 * module. Workloads bring theirs in their descriptors (workload.h). */
#ifndef AOPS_COMMANDS_H
#define AOPS_COMMANDS_H

int run_main(int argc, char **argv);     /* coordinator.c: ./harness [run] */
int prepare_main(int argc, char **argv); /* coordinator.c: ./harness prepare */
int report_main(int argc, char **argv);  /* report.c: ./harness report */
int compare_main(int argc, char **argv); /* compare.c: ./harness compare */
int merge_main(int argc, char **argv);   /* merge_cmd.c: ./harness merge */

#endif
