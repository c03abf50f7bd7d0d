/* baseline.h -- what the data drives themselves can do, measured with fio,
 * so a run's storage read throughput can be read as a share of it.
 *
 * MinIO's own advice is to measure the drives before an object benchmark
 * (dperf before warp); the field's tool for it is fio. `harness baseline`
 * (and `harness prepare --baseline`) runs, on each drive behind the
 * workloads' data paths (the MinIO drives, MariaDB's directory, the corpus),
 * sequential 1 MiB reads and random 4 KiB reads with O_DIRECT through
 * io_uring (libaio when io_uring is refused), --baseline-seconds each, on a
 * scratch file in that drive's own filesystem -- never the raw device of a
 * mounted disk -- and removes the file again. Each drive is measured once
 * however many paths share it; a path over several disks (dm, md) is one
 * entry for all of them.
 *
 * The figures are kept in --baseline-file (default <stack dir>/
 * storage_baseline.json) as {"devices": {NAME: {seq_read_Bps,
 * rand_read_iops, fio_version, ...}}}; a run reads that file when it sets
 * up its telemetry, puts the entries of the drives it samples in
 * result.json's storage_baseline, and states each window's read throughput
 * as a percentage of their sum. An entry is only used for the same device:
 * each device's identity (model and serial, or a loop device's backing
 * file, and its size; "identities" in the entry) is checked. Without fio, or without room for the
 * scratch file, a drive's entry is null with the reason and the run says why it has no percentage.
 */
#ifndef AOPS_BASELINE_H
#define AOPS_BASELINE_H

#include <jansson.h>
#include <stdio.h>

#include "../common/config.h"
#include "telemetry_proc.h"

/* --baseline-file, else <stack dir>/storage_baseline.json. */
void baseline_path(const struct config *cfg, char *out, size_t len);

/* Measure every data drive, print one line per drive to out, and merge the
 * figures into the baseline file. Returns how many drives were measured
 * (0: none could be, each line says why), or -1 when the file could not be
 * written (said on out). */
int baseline_run(const struct config *cfg, FILE *out);

/* From fio's --output-format=json text: the "seq" job's read bandwidth
 * (bytes/s) and the "rand" job's read IOPS, and fio's version. 0, or -1
 * with err set (a job missing, an error reported by fio). */
int baseline_fio_parse(const char *text, double *seq_bps, double *rand_iops, char *version,
                       size_t vlen, char *err, size_t errlen);

/* What identifies a block device across a re-created loop device or a
 * swapped disk: "model M serial S, N bytes" or "loop of FILE, N bytes",
 * from <sysroot>/sys/class/block/<name>. "" when sysfs has nothing. */
void baseline_identity(const char *sysroot, const char *name, char *out, size_t len);

/* result.json's storage_baseline for the sampled devices: one member per
 * device, its file entry, or an entry with null figures and "reason" (not
 * measured, measured on another device). *sum_bps: the summed sequential
 * read throughput of the entries covering every device once, or NAN with
 * why set when any device has none. file: the baseline file's JSON (NULL:
 * there is none). */
json_t *baseline_select(const json_t *file, const struct blkdev *devs, int ndevs,
                        const char *sysroot, double *sum_bps, char *why, size_t whylen);

#endif
