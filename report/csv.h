/* csv.h -- `--csv DIR`: a run's per-container figures and telemetry time
 * series as CSV files, for spreadsheets and plotting tools. */
#ifndef AOPS_CSV_H
#define AOPS_CSV_H

#include <jansson.h>
#include <stddef.h>

/* Write DIR/containers.csv and DIR/series.csv from a result.json object,
 * creating DIR when missing. Returns 0, or -1 with err set to one line. */
int csv_export(const json_t *result, const char *dir, char *err, size_t errlen);

#endif
