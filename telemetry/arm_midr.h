/* arm_midr.h -- names for the implementer and part fields of an Arm CPU's
 * MIDR_EL1, as /proc/cpuinfo prints them ("CPU implementer : 0x41", "CPU
 * part : 0xd0c"), so the inventory can say "ARM Neoverse-N1" where cpuinfo
 * only has numbers. The names are lscpu's (util-linux), so a result and
 * `lscpu` on the same machine agree. */
#ifndef AOPS_ARM_MIDR_H
#define AOPS_ARM_MIDR_H

/* "ARM", "Ampere", "NVIDIA", ... or NULL for an implementer not in the table. */
const char *arm_implementer_name(int implementer);

/* "Neoverse-V2", "Cortex-A510", "Ampere-1a", ... or NULL when unknown. */
const char *arm_part_name(int implementer, int part);

#endif
