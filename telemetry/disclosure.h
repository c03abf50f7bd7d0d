/* disclosure.h -- the settings of the system under test that move results
 * and that PTS, HammerDB and SPEC's disclosure rules record: DMI (system,
 * board, BIOS), the DIMMs, CPU settings (microcode, cpufreq, boost, SMT,
 * C-states), kernel and memory settings (THP, mitigations, NUMA balancing,
 * clocksource, virtualization, command line), and where each drive and NIC
 * sits (PCIe link, NUMA node). Part of result.json's "system" (the
 * inventory calls these). Everything comes from files under the sysroot,
 * so fixtures describe machines we do not have; a value that cannot be
 * read is null, with the reason where one is known. */
#ifndef AOPS_DISCLOSURE_H
#define AOPS_DISCLOSURE_H

#include <jansson.h>

/* Add dmi, memory_dimms (or null and memory_dimms_unavailable),
 * cpu_settings, kernel_settings and nics to sys. The DIMMs come from
 * `dmidecode -t memory` on this machine (root only), or from the sysroot's
 * dmidecode.bin (`dmidecode --dump-bin` of the machine it describes)
 * through `dmidecode --from-dump`. */
void disclosure_add(const char *root, json_t *sys);

/* A drive's firmware, PCIe link (speed, width) and NUMA node, added to its
 * entry in system.disks. */
void disclosure_disk(const char *root, const char *name, json_t *disk);

/* The DIMMs of `dmidecode -t memory` output: {slots, count, total_bytes,
 * types[], speeds_mts[], configured_speeds_mts[], dimms[{locator, size_bytes,
 * type, speed_mts, configured_speed_mts, manufacturer, part_number}]}; NULL
 * when the text has no memory device. */
json_t *disclosure_parse_dimms(const char *text);

#endif
