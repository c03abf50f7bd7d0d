/* ipmi_sim_dcmi.c -- an ipmi_sim module that answers DCMI Get Power Reading,
 * for tests/integration/test_power_ipmi.sh.
 *
 * OpenIPMI's ipmi_sim is a real BMC simulator speaking RMCP+ (sessions,
 * authentication, integrity, confidentiality), but it implements no DCMI
 * command: NetFn 2Ch with group DCh gets completion code C1h, "invalid
 * command". Its module interface (README.yourownbmc: "loadlib" in lan.conf,
 * ipmi_emu_register_group_extension_handler) is how a BMC built on it adds
 * commands, and this module adds the one the harness sends, laid out as the
 * DCMI 1.5 specification's table 6-16 has it.
 *
 * Each request takes the next number of watts from a file (the test's
 * sequence; the last one again at its end) and appends what it served to
 * another, so the test knows every reading the BMC gave. The word "empty"
 * in its place is an answer with no bytes at all, not even a completion
 * code (a broken BMC: the harness must not read an answer it never got).
 * The options string is "VALUES_FILE SERVED_FILE". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <OpenIPMI/mcserv.h>
#include <OpenIPMI/serv.h>

static FILE *values, *served;
static unsigned last;

static void put16(unsigned char *p, unsigned v) {
    p[0] = v & 0xff, p[1] = (v >> 8) & 0xff;
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (v >> (8 * i)) & 0xff;
}

static void dcmi(lmc_data_t *mc, msg_t *msg, unsigned char *rdata, unsigned int *rdata_len,
                 void *cb_data) {
    (void)mc, (void)cb_data;
    if (msg->cmd != 0x02) { /* only Get Power Reading */
        rdata[0] = 0xC1, rdata[1] = 0xDC, *rdata_len = 2;
        return;
    }
    if (msg->len < 4 || msg->data[1] != 0x01) { /* mode 01h, system power statistics */
        rdata[0] = 0xCC, rdata[1] = 0xDC, *rdata_len = 2;
        return;
    }
    unsigned v;
    char word[16];
    if (values && fscanf(values, "%u", &v) == 1) {
        last = v;
    } else if (values && fscanf(values, "%15s", word) == 1 && !strcmp(word, "empty")) {
        if (served) {
            fprintf(served, "empty\n");
            fflush(served);
        }
        *rdata_len = 0;
        return;
    }
    if (served) {
        fprintf(served, "%u\n", last);
        fflush(served);
    }
    rdata[0] = 0x00;
    rdata[1] = 0xDC;
    put16(rdata + 2, last); /* current power */
    put16(rdata + 4, last); /* minimum over the period */
    put16(rdata + 6, last); /* maximum */
    put16(rdata + 8, last); /* average */
    put32(rdata + 10, (uint32_t)time(NULL));
    put32(rdata + 14, 1000); /* statistics reporting period, ms */
    rdata[18] = 0x40;        /* power measurement active */
    *rdata_len = 19;
}

int ipmi_sim_module_print_version(sys_data_t *sys, char *initstr) {
    (void)sys, (void)initstr;
    printf("aops-harness DCMI power reading module 1\n");
    return 0;
}

int ipmi_sim_module_init(sys_data_t *sys, const char *initstr) {
    char vpath[1024] = "", spath[1024] = "";
    (void)sys;
    if (!initstr || sscanf(initstr, "%1023s %1023s", vpath, spath) != 2) {
        fprintf(stderr, "ipmi_sim_dcmi: options must be \"VALUES_FILE SERVED_FILE\"\n");
        return -1;
    }
    values = fopen(vpath, "r");
    served = fopen(spath, "a");
    if (!values || !served) {
        fprintf(stderr, "ipmi_sim_dcmi: cannot open %s or %s\n", vpath, spath);
        return -1;
    }
    ipmi_emu_register_group_extension_handler(0xDC, dcmi, NULL);
    return 0;
}
