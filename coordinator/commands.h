/* commands.h -- the subcommands main() dispatches to, one per module. */
#ifndef AOPS_COMMANDS_H
#define AOPS_COMMANDS_H

int run_main(int argc, char **argv);          /* coordinator.c: ./harness [run] */
int prepare_main(int argc, char **argv);      /* coordinator.c: ./harness prepare */
int corpus_main(int argc, char **argv);       /* workloads/corpus.c: ./harness corpus fetch */
int search_cli_main(int argc, char **argv);   /* workloads/search_cli.c: ./harness search */
int report_main(int argc, char **argv);       /* coordinator/report.c: ./harness report */
int compare_main(int argc, char **argv);      /* coordinator/compare.c: ./harness compare */

#endif
