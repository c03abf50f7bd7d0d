/* report.h -- the report layer: everything that renders a result for people.
 *
 * `harness report` (one self-contained HTML page of a run, a sweep or a
 * merged fleet), `harness compare` (runs side by side, text and HTML), the
 * CSV export, the charts and HTML building blocks they share. It reads
 * results -- result.json as the result model (coordinator/: histograms,
 * repeats, summary) defines it -- and common/; it measures nothing and runs
 * nothing. It is the top layer: nothing below includes or calls into it;
 * only the command table (cmd/main.c) does, and it plugs csv_export into
 * the run as a result_exports hook (coordinator/commands.h). */
#ifndef AOPS_REPORT_H
#define AOPS_REPORT_H

int report_main(int argc, char **argv);  /* report.c: ./harness report */
int compare_main(int argc, char **argv); /* compare.c: ./harness compare */
int upgrade_main(int argc, char **argv); /* upgrade_cmd.c: ./harness upgrade */

#endif
