/* arm_midr.c -- MIDR implementer and part numbers to names (arm_midr.h).
 *
 * The 64-bit application cores a server or a development board reports:
 * Arm's Neoverse server cores and Cortex-A/X, and the cores of the other
 * implementers that ship Arm servers (Ampere, NVIDIA, Fujitsu, HiSilicon,
 * Cavium/Marvell, APM, Qualcomm, Microsoft). Spelled as util-linux's lscpu
 * spells them. A part not listed is reported by its number, never guessed
 * (Graviton2/3/4, Grace, Axion and Altra report Arm's own Neoverse parts). */
#include <stddef.h>

#include "arm_midr.h"

struct part {
    int id;
    const char *name;
};

static const struct part arm_parts[] = {{0xd01, "Cortex-A32"},    {0xd02, "Cortex-A34"},
                                        {0xd03, "Cortex-A53"},    {0xd04, "Cortex-A35"},
                                        {0xd05, "Cortex-A55"},    {0xd06, "Cortex-A65"},
                                        {0xd07, "Cortex-A57"},    {0xd08, "Cortex-A72"},
                                        {0xd09, "Cortex-A73"},    {0xd0a, "Cortex-A75"},
                                        {0xd0b, "Cortex-A76"},    {0xd0c, "Neoverse-N1"},
                                        {0xd0d, "Cortex-A77"},    {0xd0e, "Cortex-A76AE"},
                                        {0xd40, "Neoverse-V1"},   {0xd41, "Cortex-A78"},
                                        {0xd42, "Cortex-A78AE"},  {0xd43, "Cortex-A65AE"},
                                        {0xd44, "Cortex-X1"},     {0xd46, "Cortex-A510"},
                                        {0xd47, "Cortex-A710"},   {0xd48, "Cortex-X2"},
                                        {0xd49, "Neoverse-N2"},   {0xd4a, "Neoverse-E1"},
                                        {0xd4b, "Cortex-A78C"},   {0xd4c, "Cortex-X1C"},
                                        {0xd4d, "Cortex-A715"},   {0xd4e, "Cortex-X3"},
                                        {0xd4f, "Neoverse-V2"},   {0xd80, "Cortex-A520"},
                                        {0xd81, "Cortex-A720"},   {0xd82, "Cortex-X4"},
                                        {0xd83, "Neoverse-V3AE"}, {0xd84, "Neoverse-V3"},
                                        {0xd85, "Cortex-X925"},   {0xd87, "Cortex-A725"},
                                        {0xd88, "Cortex-A520AE"}, {0xd89, "Cortex-A720AE"},
                                        {0xd8e, "Neoverse-N3"},   {-1, NULL}};
static const struct part ampere_parts[] = {{0xac3, "Ampere-1"}, {0xac4, "Ampere-1a"}, {-1, NULL}};
static const struct part apm_parts[] = {{0x000, "X-Gene"}, {-1, NULL}};
static const struct part cavium_parts[] = {
    {0x0a0, "ThunderX"},       {0x0a1, "ThunderX-88XX"},  {0x0a2, "ThunderX-81XX"},
    {0x0a3, "ThunderX-83XX"},  {0x0af, "ThunderX2-99xx"}, {0x0b0, "OcteonTX2"},
    {0x0b1, "OcteonTX2-98XX"}, {0x0b2, "OcteonTX2-96XX"}, {-1, NULL}};
static const struct part broadcom_parts[] = {{0x516, "ThunderX2"}, {-1, NULL}};
static const struct part fujitsu_parts[] = {{0x001, "A64FX"}, {0x003, "MONAKA"}, {-1, NULL}};
static const struct part hisilicon_parts[] = {
    {0xd01, "TaiShan-v110"}, {0xd02, "TaiShan-v120"}, {-1, NULL}};
static const struct part nvidia_parts[] = {
    {0x000, "Denver"}, {0x003, "Denver 2"}, {0x004, "Carmel"}, {0x010, "Olympus"}, {-1, NULL}};
static const struct part qualcomm_parts[] = {
    {0x001, "Oryon"}, {0xc00, "Falkor"}, {0xc01, "Saphira"}, {-1, NULL}};
static const struct part microsoft_parts[] = {{0xd49, "Azure-Cobalt-100"}, {-1, NULL}};
static const struct part none[] = {{-1, NULL}};

static const struct implementer {
    int id;
    const char *name;
    const struct part *parts;
} implementers[] = {{0x41, "ARM", arm_parts},
                    {0x42, "Broadcom", broadcom_parts},
                    {0x43, "Cavium", cavium_parts},
                    {0x46, "FUJITSU", fujitsu_parts},
                    {0x48, "HiSilicon", hisilicon_parts},
                    {0x4e, "NVIDIA", nvidia_parts},
                    {0x50, "APM", apm_parts},
                    {0x51, "Qualcomm", qualcomm_parts},
                    {0x53, "Samsung", none},
                    {0x56, "Marvell", none},
                    {0x61, "Apple", none},
                    {0x6d, "Microsoft", microsoft_parts},
                    {0x70, "Phytium", none},
                    {0xc0, "Ampere", ampere_parts},
                    {-1, NULL, NULL}};

static const struct implementer *find(int id) {
    for (const struct implementer *i = implementers; i->name; i++)
        if (i->id == id)
            return i;
    return NULL;
}

const char *arm_implementer_name(int implementer) {
    const struct implementer *i = find(implementer);
    return i ? i->name : NULL;
}

const char *arm_part_name(int implementer, int part) {
    const struct implementer *i = find(implementer);
    for (const struct part *p = i ? i->parts : none; p->name; p++)
        if (p->id == part)
            return p->name;
    return NULL;
}
