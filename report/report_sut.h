/* report_sut.h -- the "system under test" table (what a disclosure lists:
 * system, BIOS, CPU and microcode, topology, DIMMs, frequency, C-states,
 * kernel settings, mitigations, drives and NICs, the placement), and the
 * map of the containers on the topology, for `harness report`; the same
 * rows side by side for `harness compare`, the differing ones marked. */
#ifndef AOPS_REPORT_SUT_H
#define AOPS_REPORT_SUT_H

#include <jansson.h>

#include "report_html.h"

#define SUT_MAX_ROWS 32
#define SUT_VALUE 4096

struct sut_row {
    const char *key;   /* "bios", "dimms": data-key="sut.<key>" */
    const char *label; /* what the table says */
    char value[SUT_VALUE];
};

/* The rows of one result; returns how many. */
size_t sut_rows(const json_t *r, struct sut_row *rows, size_t max);

/* <h2>System under test</h2> and its table (id "sut"). */
void report_sut_section(struct sbuf *b, const json_t *r);

/* <h2>Containers on the topology</h2>: packages, NUMA nodes, L3 domains
 * and their cores, each core marked with the container that has it (or the
 * servers'). Nothing without system.topology. */
void report_topology_map(struct sbuf *b, const json_t *r);

/* compare: the rows of every run side by side (id "sut-compare"), a row
 * whose values differ marked class="differ"; and those rows as lines
 * ("BIOS differs: A ..., B ...") appended to notes. */
void compare_sut_table(struct sbuf *b, const json_t *const *runs, const char *const *labels, int n);
void compare_sut_notes(const json_t *const *runs, const char *const *labels, int n, json_t *notes);

#endif
