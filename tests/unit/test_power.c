/* test_power.c -- the power sources' pure parts and the hwmon meters, with
 * values worked out by hand:
 *   - DCMI Get Power Reading: the request's bytes and a response's fields
 *     laid out as the DCMI 1.5 specification's table 6-16 gives them, the
 *     completion codes named; where FreeIPMI is built in, the same bytes
 *     through its own DCMI templates (another implementation of the spec);
 *   - Redfish: the watts in resources shaped as DMTF's mockups have them
 *     (Power.PowerControl[], EnvironmentMetrics.PowerWatts), ISO 8601
 *     durations as a Sensor's SensingInterval gives them;
 *   - the mean and peak of a BMC's readings inside a span, and how often a
 *     reading changes;
 *   - hwmon on a fixture sysroot: the ACPI power meter as platform, Ampere's
 *     SMpro summed over two sockets, a GPU's channel left out, a meter that
 *     averages over longer than the samples said to be slower;
 *   - the dotted-path selector the report and compare use for a scope;
 *   - IPMI in band against a played kernel driver (power_env.ioctl_fn) that
 *     queues late answers, events and other commands' answers before each
 *     reading's own: every reading is its own answer's watts;
 *   - which URLs the Redfish client takes from a BMC (RFC 3986 resolution,
 *     the same scheme, host and port as --bmc), and which --bmc and
 *     credentials it refuses before anything runs. */
#include <errno.h>
#include <linux/ipmi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef AOPS_FREEIPMI
#include <freeipmi/freeipmi.h>
#endif

#include "../../common/json.h"
#include "cmdline.h"
#include "dcmi.h"
#include "freeipmi_abi.h"
#include "power.h"
#include "power_redfish.h"
#include "power_set.h"
#include "telemetry.h"
#include "unit.h"
#include "workload.h"

#define S 1000000000LL
#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static char tmpl[] = "/tmp/aops-power.XXXXXX";
static const char *tmp;

/* Request and response as the specification lays them out, byte by byte:
 * NetFn 2Ch, Cmd 02h; data DCh, mode 01h (system power statistics), 00h,
 * 00h. The response: completion code 00h, DCh, current 0168h = 360 W, min
 * 00FAh = 250 W, max 01F4h = 500 W, average 0136h = 310 W, each least
 * significant byte first; timestamp 5F5E1000h; period 000003E8h = 1000 ms;
 * state 40h (power measurement active). */
static const uint8_t spec_rsp[19] = {0x00, 0xDC, 0x68, 0x01, 0xFA, 0x00, 0xF4, 0x01, 0x36, 0x01,
                                     0x00, 0x10, 0x5E, 0x5F, 0xE8, 0x03, 0x00, 0x00, 0x40};

static void test_dcmi(void) {
    uint8_t rq[8];
    CHECK(dcmi_power_request(rq, sizeof rq) == 4);
    CHECK(rq[0] == 0xDC && rq[1] == 0x01 && rq[2] == 0x00 && rq[3] == 0x00);
    CHECK(DCMI_NETFN == 0x2C && DCMI_CMD_GET_POWER_READING == 0x02);
    CHECK(dcmi_power_request(rq, 3) == 0);

    struct dcmi_power p;
    char err[256];
    CHECKF(dcmi_power_decode(spec_rsp, sizeof spec_rsp, &p, err, sizeof err) == 0, "%s", err);
    CHECK(p.current_w == 360 && p.min_w == 250 && p.max_w == 500 && p.avg_w == 310);
    CHECK(p.timestamp == 0x5F5E1000u && p.period_ms == 1000 && p.active);

    /* What a BMC without DCMI answers: C1h, invalid command. */
    const uint8_t c1[] = {0xC1};
    CHECK(dcmi_power_decode(c1, 1, &p, err, sizeof err) == -1);
    CHECKF(strstr(err, "completion code 0xc1 (invalid command)") &&
               strstr(err, "does not implement DCMI"),
           "%s", err);
    const uint8_t d4[] = {0xD4};
    CHECK(dcmi_power_decode(d4, 1, &p, err, sizeof err) == -1 &&
          strstr(err, "insufficient privilege level"));
    CHECK(dcmi_power_decode(spec_rsp, 18, &p, err, sizeof err) == -1 && strstr(err, "18 response"));
    uint8_t other[19], idle[19];
    memcpy(other, spec_rsp, 19);
    other[1] = 0xDD;
    CHECK(dcmi_power_decode(other, 19, &p, err, sizeof err) == -1 && strstr(err, "group 0xdd"));
    memcpy(idle, spec_rsp, 19);
    idle[18] = 0x00; /* measurement not active: no figure, not 360 W */
    CHECK(dcmi_power_decode(idle, 19, &p, err, sizeof err) == -1 && strstr(err, "not active"));

#ifdef AOPS_FREEIPMI
    /* FreeIPMI's own encoder for the request, its templates for the answer. */
    fiid_obj_t orq = fiid_obj_create(tmpl_cmd_dcmi_get_power_reading_rq);
    fiid_obj_t ors = fiid_obj_create(tmpl_cmd_dcmi_get_power_reading_rs);
    CHECK(orq && ors);
    CHECK(fill_cmd_dcmi_get_power_reading(IPMI_DCMI_POWER_READING_MODE_SYSTEM_POWER_STATISTICS, 0,
                                          orq) == 0);
    uint8_t fb[32];
    int n = fiid_obj_get_all(orq, fb, sizeof fb);
    CHECKF(n == 5 && fb[0] == 0x02 && !memcmp(fb + 1, rq, 4), "freeipmi request %d bytes", n);
    uint8_t rs[20] = {0x02}; /* FreeIPMI's response starts with the command */
    memcpy(rs + 1, spec_rsp, 19);
    CHECK(fiid_obj_set_all(ors, rs, sizeof rs) == (int)sizeof rs);
    uint64_t v = 0;
    CHECK(FIID_OBJ_GET(ors, "current_power", &v) == 1 && v == 360);
    CHECK(FIID_OBJ_GET(ors, "minimum_power_over_sampling_duration", &v) == 1 && v == 250);
    CHECK(FIID_OBJ_GET(ors, "maximum_power_over_sampling_duration", &v) == 1 && v == 500);
    CHECK(FIID_OBJ_GET(ors, "average_power_over_sampling_duration", &v) == 1 && v == 310);
    CHECK(FIID_OBJ_GET(ors, "statistics_reporting_time_period", &v) == 1 && v == 1000);
    CHECK(FIID_OBJ_GET(ors, "power_reading_state.power_measurement", &v) == 1 && v == 1);
    fiid_obj_destroy(orq);
    fiid_obj_destroy(ors);
    /* What the harness declares to load FreeIPMI with dlopen is what its
     * headers say. */
    CHECK(FI_PRIVILEGE_LEVEL_USER == IPMI_PRIVILEGE_LEVEL_USER &&
          FI_PRIVILEGE_LEVEL_OPERATOR == IPMI_PRIVILEGE_LEVEL_OPERATOR &&
          FI_PRIVILEGE_LEVEL_ADMIN == IPMI_PRIVILEGE_LEVEL_ADMIN);
    CHECK(FI_WORKAROUND_FLAGS_OUTOFBAND_2_0_OPEN_SESSION_PRIVILEGE ==
              IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_OPEN_SESSION_PRIVILEGE &&
          FI_WORKAROUND_FLAGS_DEFAULT == IPMI_WORKAROUND_FLAGS_DEFAULT &&
          FI_FLAGS_DEFAULT == IPMI_FLAGS_DEFAULT);
    CHECK(FI_ERR_USERNAME_INVALID == IPMI_ERR_USERNAME_INVALID &&
          FI_ERR_PASSWORD_INVALID == IPMI_ERR_PASSWORD_INVALID &&
          FI_ERR_PRIVILEGE_LEVEL_CANNOT_BE_OBTAINED == IPMI_ERR_PRIVILEGE_LEVEL_CANNOT_BE_OBTAINED);
    struct freeipmi fi;
    fi.ctx_create = ipmi_ctx_create; /* the prototypes agree, or this does not compile */
    fi.ctx_open_outofband_2_0 = ipmi_ctx_open_outofband_2_0;
    fi.cmd_raw = ipmi_cmd_raw;
    fi.ctx_errnum = ipmi_ctx_errnum;
    fi.ctx_errormsg = ipmi_ctx_errormsg;
    fi.ctx_close = ipmi_ctx_close;
    fi.ctx_destroy = ipmi_ctx_destroy;
    CHECK(fi.ctx_create && fi.cmd_raw);
#endif
}

static void test_redfish_parse(void) {
    json_error_t je;
    /* Shaped as DMTF's public-rackmount1 Chassis/1U/Power. */
    json_t *power =
        json_loads("{\"@odata.type\":\"#Power.v1_7_1.Power\",\"Id\":\"Power\",\"PowerControl\":["
                   "{\"MemberId\":\"0\",\"Name\":\"System Input Power\",\"PowerConsumedWatts\":344,"
                   "\"PowerMetrics\":{\"IntervalInMin\":30,\"MinConsumedWatts\":271,"
                   "\"MaxConsumedWatts\":489,\"AverageConsumedWatts\":319}}]}",
                   0, &je);
    double w = 0;
    char err[256];
    CHECK(power && redfish_power_member(power) == 0);
    CHECK(redfish_power_value(power, 0, 0, &w, err, sizeof err) == 0 && w == 344);
    /* A member without a reading first (a BMC with the host off reports null). */
    json_t *two = json_loads("{\"PowerControl\":[{\"MemberId\":\"0\",\"PowerConsumedWatts\":null},"
                             "{\"MemberId\":\"1\",\"PowerConsumedWatts\":212.5}]}",
                             0, &je);
    CHECK(redfish_power_member(two) == 1);
    CHECK(redfish_power_value(two, 0, 0, &w, err, sizeof err) == -1 && strstr(err, "null"));
    CHECK(redfish_power_value(two, 0, 1, &w, err, sizeof err) == 0 && w == 212.5);
    json_t *none = json_loads("{\"Voltages\":[]}", 0, &je);
    CHECK(redfish_power_member(none) == -1);
    CHECK(redfish_power_value(none, 0, 0, &w, err, sizeof err) == -1 && strstr(err, "missing"));
    /* EnvironmentMetrics, as Chassis/1U/EnvironmentMetrics. */
    json_t *env = json_loads("{\"PowerWatts\":{\"Reading\":374,\"DataSourceUri\":"
                             "\"/redfish/v1/Chassis/1U/Sensors/TotalPower\"}}",
                             0, &je);
    CHECK(redfish_power_value(env, 1, 0, &w, err, sizeof err) == 0 && w == 374);
    json_decref(power), json_decref(two), json_decref(none), json_decref(env);

    CHECK(NEAR(iso8601_duration_s("PT0.25S"), 0.25)); /* the mockup's TotalPower sensor */
    CHECK(NEAR(iso8601_duration_s("PT1S"), 1));
    CHECK(NEAR(iso8601_duration_s("PT1M30S"), 90));
    CHECK(NEAR(iso8601_duration_s("P1DT2H"), 93600));
    CHECK(isnan(iso8601_duration_s("1S")) && isnan(iso8601_duration_s("PT")) &&
          isnan(iso8601_duration_s("PT5X")) && isnan(iso8601_duration_s(NULL)) &&
          isnan(iso8601_duration_s("P")));
}

static void test_readings(void) {
    /* A BMC read every second; the run is [1.0, 4.0]: the readings at 0.5
     * (before release... or a probe) and 4.5 (after the end) are out, a
     * failed one (NAN) is skipped. Inside: 200, 260, 240 -> mean 700/3. */
    const double t[] = {0.5, 1.0, 2.0, 3.0, 3.5, 4.5};
    const double w[] = {900, 200, 260, NAN, 240, 999};
    double mean, peak;
    CHECK(power_readings_stat(t, w, 6, 1.0, 4.0, &mean, &peak) == 3);
    CHECK(NEAR(mean, 700.0 / 3) && peak == 260);
    CHECK(power_readings_stat(t, w, 6, 5, 6, &mean, &peak) == 0 && isnan(mean) && isnan(peak));
    /* A sensor refreshed every 3 s read every second: changes at 3 and 6. */
    const double t2[] = {1, 2, 3, 4, 5, 6, 7};
    const double w2[] = {100, 100, 150, 150, 150, 120, 120};
    CHECK(NEAR(power_update_interval(t2, w2, 7), 3.0));
    CHECK(isnan(power_update_interval(t2, w2, 3))); /* one change: no interval */
}

static void copy_fixture(const char *name, const char *dest) {
    char cmd[1024];
    const char *root = getenv("AOPS_ROOT") ? getenv("AOPS_ROOT") : ".";
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tests/fixtures/%s' '%s'", dest, root, name,
             dest);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot copy fixture %s (run from the repository root)\n", name);
        exit(1);
    }
}

static void put(const char *root, const char *rel, const char *text) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void setup_cfg(struct config *c, const char *root, double interval) {
    char err[256];
    options_free(c);
    if (workloads_config_init(c, err, sizeof err) != 0 ||
        options_set(c, "corpus", "/data/corpus-nonexistent", err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    snprintf(c->sysroot, sizeof c->sysroot, "%s", root);
    snprintf(c->harness_dir, sizeof c->harness_dir, "/opt/aops-nonexistent");
    c->sample_interval = interval;
}

static json_t *entry(json_t *j, const char *scope) {
    json_t *pw = json_object_get(j, "power"), *e;
    size_t i;
    json_array_foreach(
        pw, i, e) if (!strcmp(json_string_value(json_object_get(e, "scope")), scope)) return e;
    return NULL;
}

static void test_hwmon(void) {
    char root[512];
    struct config c = {0};
    snprintf(root, sizeof root, "%s/hwmon", tmp);
    copy_fixture("sysroot-power", root);
    setup_cfg(&c, root, 1);
    struct telemetry *t = telemetry_new(&c);
    telemetry_begin(t, 0);
    /* 0-1 s: the meter 300 W; socket 0 70+25+5, socket 1 60+20: 180 W. */
    put(root, "sys/class/hwmon/hwmon1/power1_average", "300000000\n");
    put(root, "sys/class/hwmon/hwmon2/power1_input", "70000000\n");
    put(root, "sys/class/hwmon/hwmon2/power2_input", "25000000\n");
    put(root, "sys/class/hwmon/hwmon3/power1_input", "60000000\n");
    put(root, "sys/class/hwmon/hwmon3/power2_input", "20000000\n");
    put(root, "sys/class/hwmon/hwmon4/power1_average", "77000000\n"); /* the GPU: not counted */
    telemetry_sample(t, 1 * S);
    /* 1-3 s: 200 W; sockets 50+20+5 and 40+10: 125 W. */
    put(root, "sys/class/hwmon/hwmon1/power1_average", "200000000\n");
    put(root, "sys/class/hwmon/hwmon2/power1_input", "50000000\n");
    put(root, "sys/class/hwmon/hwmon2/power2_input", "20000000\n");
    put(root, "sys/class/hwmon/hwmon3/power1_input", "40000000\n");
    put(root, "sys/class/hwmon/hwmon3/power2_input", "10000000\n");
    telemetry_sample(t, 3 * S);
    telemetry_end(t);

    json_t *j = telemetry_json(t);
    json_t *p0 = json_array_get(json_object_get(j, "series"), 0),
           *p1 = json_array_get(json_object_get(j, "series"), 1);
    CHECK(NEAR(jnum(p0, "power_platform_w"), 300) && NEAR(jnum(p1, "power_platform_w"), 200));
    CHECK(NEAR(jnum(p0, "power_socket_w"), 180) && NEAR(jnum(p1, "power_socket_w"), 125));
    CHECK(json_is_null(json_object_get(p0, "power_w"))); /* no RAPL here: null, never 0 */
    json_t *pl = entry(j, "platform"), *so = entry(j, "socket"), *pk = entry(j, "package");
    CHECK(pl && so && pk);
    CHECK(!strcmp(jstr(pl, "source"), "hwmon") && !strcmp(jstr(pl, "series"), "power_platform_w"));
    CHECKF(NEAR(jnum(pl, "mean_w"), 233.333) && NEAR(jnum(pl, "peak_w"), 300), "%g",
           jnum(pl, "mean_w")); /* (300 x 1 + 200 x 2) / 3, rounded to mW */
    CHECK(NEAR(jnum(so, "mean_w"), 143.333) && NEAR(jnum(so, "peak_w"), 180));
    CHECK(NEAR(jnum(pl, "device_interval_s"), 1.0)); /* power1_average_interval 1000 ms */
    CHECK(json_is_false(json_object_get(pl, "slower_than_sample")));
    CHECK(jnum(so, "sockets") == 2);
    CHECK(json_array_size(jget(pl, "devices")) == 1 &&
          !strcmp(jstr(pl, "devices.0.name"), "power_meter"));
    CHECK(json_is_null(json_object_get(pk, "mean_w")) && jstr(pk, "reason"));
    CHECK(json_is_true(json_object_get(pl, "used_for_per_watt")));
    CHECK(NEAR(telemetry_mean_platform_power(t), 700.0 / 3));
    CHECK(telemetry_mean_power(t) < 0);
    /* The run's span [0, 2]: half of the second interval counts. */
    telemetry_set_span(t, 0, 2);
    CHECK(NEAR(telemetry_mean_platform_power(t), 250));
    json_t *w = telemetry_window_json(t, 1, 3);
    CHECK(NEAR(jnum(w, "power_platform_w.mean"), 200) && NEAR(jnum(w, "power_socket_w.peak"), 125));
    json_decref(w);
    json_decref(j);
    telemetry_free(t);

    /* Samples every 0.5 s against a meter averaging over 1 s: said, once
     * in the entry and once in the warnings. */
    setup_cfg(&c, root, 0.5);
    t = telemetry_new(&c);
    telemetry_begin(t, 0);
    telemetry_sample(t, S / 2);
    j = telemetry_json(t);
    pl = entry(j, "platform");
    CHECK(json_is_true(json_object_get(pl, "slower_than_sample")));
    CHECKF(jstr(pl, "note") && strstr(jstr(pl, "note"), "power*_average_interval says it averages "
                                                        "over 1.00 s"),
           "%s", jstr(pl, "note") ? jstr(pl, "note") : "(none)");
    json_t *warn = json_array();
    telemetry_power_warnings(t, warn);
    CHECK(json_array_size(warn) == 1);
    json_decref(warn);
    json_decref(j);
    telemetry_free(t);

    /* A meter that answers garbage: no figure and the reason, not 0 W. */
    put(root, "sys/class/hwmon/hwmon1/power1_average", "N/A\n");
    setup_cfg(&c, root, 1);
    t = telemetry_new(&c);
    telemetry_begin(t, 0);
    telemetry_sample(t, S);
    j = telemetry_json(t);
    pl = entry(j, "platform");
    CHECK(json_is_null(json_object_get(pl, "mean_w")));
    CHECKF(jstr(pl, "reason") && strstr(jstr(pl, "reason"), "hwmon1/power1_average: not a number"),
           "%s", jstr(pl, "reason") ? jstr(pl, "reason") : "(none)");
    CHECK(!json_is_number(
        json_object_get(json_array_get(json_object_get(j, "series"), 0), "power_platform_w")));
    CHECK(telemetry_mean_platform_power(t) < 0);
    json_decref(j);
    telemetry_free(t);

    /* No meter at all: one platform entry that says what was looked for. */
    char path[1024];
    snprintf(path, sizeof path, "rm -rf '%s/sys/class/hwmon'", root);
    CHECK(system(path) == 0);
    t = telemetry_new(&c);
    j = telemetry_json(t);
    pl = entry(j, "platform");
    CHECK(pl && json_is_null(json_object_get(pl, "source")) &&
          json_is_null(json_object_get(pl, "mean_w")));
    CHECKF(strstr(jstr(pl, "reason"), "no ACPI power meter") &&
               strstr(jstr(pl, "reason"), "/dev/ipmi0") && strstr(jstr(pl, "reason"), "no --bmc"),
           "%s", jstr(pl, "reason"));
    CHECK(!entry(j, "socket"));
    json_decref(j);
    telemetry_free(t);
    options_free(&c);
}

static void test_selector(void) {
    json_error_t je;
    json_t *r = json_loads("{\"telemetry\":{\"power\":[{\"scope\":\"package\",\"mean_w\":80},"
                           "{\"scope\":\"platform\",\"mean_w\":210},"
                           "{\"scope\":\"platform\",\"mean_w\":199}]}}",
                           0, &je);
    CHECK(jnum(r, "telemetry.power.scope=platform.mean_w") == 210); /* the first of the scope */
    CHECK(jnum(r, "telemetry.power.scope=package.mean_w") == 80);
    CHECK(isnan(jnum(r, "telemetry.power.scope=socket.mean_w")));
    CHECK(jnum(r, "telemetry.power.2.mean_w") == 199);
    json_decref(r);
}

static void test_bmc_option(void) {
    struct config c = {0};
    char err[512];
    setup_cfg(&c, "/", 1);
    CHECK(options_set(&c, "bmc", "https://10.0.0.5:8443/redfish/v1/Chassis/1", err, sizeof err) ==
          0);
    CHECK(!strcmp(c.power.bmc, "https://10.0.0.5:8443/redfish/v1/Chassis/1"));
    CHECK(options_set(&c, "bmc", "ipmi://bmc1", err, sizeof err) == 0);
    CHECK(options_set(&c, "bmc", "ftp://bmc1", err, sizeof err) == -1 &&
          strstr(err, "expected ipmi://HOST"));
    CHECK(options_set(&c, "bmc", "https://", err, sizeof err) == -1);
    CHECK(c.power.bmc_interval == 1 && c.power.bmc_auth == BMC_AUTH_AUTO);
    options_free(&c);
}

/* A played /dev/ipmi0: each IPMICTL_SEND_COMMAND queues what a driver would
 * have queued by the time the answer is there, the answer last. The first
 * request (open's) finds a late answer to a request of before (msgid 99),
 * an event and an answer to another command with its msgid; every later one
 * finds the answer to the request before it again (late once more), then its
 * own. The watts of answer k are 300 + k. */
struct fake_msg {
    int type;
    long msgid;
    unsigned char netfn, cmd;
    uint8_t data[19];
};
static struct fake_msg fq[16];
static int fq_head, fq_tail, fq_sends;

static void fq_push(int type, long msgid, unsigned char netfn, unsigned char cmd, unsigned watts) {
    struct fake_msg *m = &fq[fq_tail++ % 16];
    m->type = type, m->msgid = msgid, m->netfn = netfn, m->cmd = cmd;
    memcpy(m->data, spec_rsp, sizeof m->data);
    m->data[2] = watts & 0xff, m->data[3] = watts >> 8;
}

static int fake_ioctl(int fd, unsigned long req, void *arg) {
    (void)fd;
    if (req == IPMICTL_SEND_COMMAND) {
        struct ipmi_req *r = arg;
        if (r->msg.netfn != 0x2C || r->msg.cmd != 0x02)
            return errno = EINVAL, -1;
        if (fq_sends == 0) {
            fq_push(IPMI_RESPONSE_RECV_TYPE, 99, 0x2D, 0x02, 9999);
            fq_push(IPMI_ASYNC_EVENT_RECV_TYPE, 0, 0x05, 0x02, 9998);
            fq_push(IPMI_RESPONSE_RECV_TYPE, r->msgid, 0x07, 0x01, 9997);
        } else {
            fq_push(IPMI_RESPONSE_RECV_TYPE, r->msgid - 1, 0x2D, 0x02, 9996);
        }
        fq_push(IPMI_RESPONSE_RECV_TYPE, r->msgid, 0x2D, 0x02, 300 + (unsigned)fq_sends);
        fq_sends++;
        return 0;
    }
    if (req == IPMICTL_RECEIVE_MSG_TRUNC) {
        struct ipmi_recv *rv = arg;
        if (fq_head == fq_tail)
            return errno = EAGAIN, -1;
        struct fake_msg *m = &fq[fq_head++ % 16];
        rv->recv_type = m->type, rv->msgid = m->msgid;
        rv->msg.netfn = m->netfn, rv->msg.cmd = m->cmd;
        size_t n = rv->msg.data_len < sizeof m->data ? rv->msg.data_len : sizeof m->data;
        memcpy(rv->msg.data, m->data, n);
        rv->msg.data_len = (unsigned short)n;
        return 0;
    }
    return errno = ENOTTY, -1;
}

static int fake_fd[2] = {-1, -1};
static int fake_open(const char *path, int flags) {
    (void)path, (void)flags;
    return dup(fake_fd[0]); /* always readable: the queue says what there is */
}

static void test_ipmi_stale(void) {
    char root[1024];
    snprintf(root, sizeof root, "%s/ipmi-root", tmp);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/dev' && : >'%s/dev/ipmi0'", root, root);
    CHECK(system(cmd) == 0);
    CHECK(pipe(fake_fd) == 0 && write(fake_fd[1], "x", 1) == 1);
    struct power_env env = {.sysroot = root, .open_fn = fake_open, .ioctl_fn = fake_ioctl};
    struct power_src s = {.ops = &power_src_ipmi};
    int rc = power_src_ipmi.open(&s, &env);
    CHECKF(rc == 0, "open: %d %s", rc, s.reason);
    CHECK(fq_head == fq_tail); /* what came before the answer is gone with it */
    for (int k = 1; rc == 0 && k <= 3; k++) {
        double w = 0;
        char err[256] = "";
        int r = power_src_ipmi.read(&s, 1, &w, err, sizeof err);
        CHECKF(r == 0 && w == 300 + k, "reading %d: rc %d, %g W, %s", k, r, w, err);
        CHECK(fq_head == fq_tail);
    }
    power_src_ipmi.close(&s);
    json_decref(s.detail);
    close(fake_fd[0]), close(fake_fd[1]);
}

static void test_redfish_origin(void) {
    char out[512], err[512];
    const char *bmc = "https://10.0.0.5:8443";
    CHECK(redfish_resolve(bmc, NULL, "/redfish/v1/Chassis", out, sizeof out, err, sizeof err) ==
              0 &&
          !strcmp(out, "https://10.0.0.5:8443/redfish/v1/Chassis"));
    CHECK(redfish_resolve(bmc, NULL, "https://10.0.0.5:8443/redfish/v1/", out, sizeof out, err,
                          sizeof err) == 0);
    /* RFC 3986 section 5.4: a relative path against the URL it came from. */
    CHECK(redfish_resolve(bmc, "https://10.0.0.5:8443/redfish/v1/Chassis/1/", "../Power", out,
                          sizeof out, err, sizeof err) == 0 &&
          !strcmp(out, "https://10.0.0.5:8443/redfish/v1/Chassis/Power"));
    /* The default port is the port; a host's case is not part of it. */
    CHECK(redfish_resolve("https://bmc", NULL, "https://BMC:443/x", out, sizeof out, err,
                          sizeof err) == 0);
    static const char *const other[] = {
        "https://10.0.0.5:9443/redfish/v1/SessionService/Sessions", /* another port */
        "https://10.0.0.6:8443/redfish/v1/Chassis",                 /* another host */
        "http://10.0.0.5:8443/redfish/v1/Chassis",                  /* another scheme */
        "//evil.example:8443/redfish/v1/Chassis",                   /* scheme-relative */
        "https://admin:pw@10.0.0.5:8443/redfish/v1/",               /* a user in it */
        "https://10.0.0.5/redfish/v1/",                             /* port 443, not 8443 */
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        err[0] = '\0';
        CHECKF(redfish_resolve(bmc, NULL, other[i], out, sizeof out, err, sizeof err) == -1 &&
                   strstr(err, "refused the BMC's URL") && strstr(err, other[i]),
               "%s: %s", other[i], err);
    }
    CHECK(strstr(err, "not on --bmc's origin https://10.0.0.5:8443"));
    /* A URL the BMC wrote is quoted on one line. */
    CHECK(redfish_resolve(bmc, NULL, "https://x\n/y", out, sizeof out, err, sizeof err) == -1 &&
          !strchr(err, '\n'));
    CHECK(redfish_resolve(bmc, NULL, "/redfish/v1/Chassis", out, 10, err, sizeof err) == -1);

    struct power_opts o = {0};
    snprintf(o.bmc, sizeof o.bmc, "https://admin:s3cret@10.0.0.5");
    CHECK(power_bmc_check(&o, err, sizeof err) == -1 && strstr(err, "user name or password") &&
          !strstr(err, "s3cret"));
    snprintf(o.bmc, sizeof o.bmc, "ipmi://admin:s3cret@10.0.0.5:623");
    CHECK(power_bmc_check(&o, err, sizeof err) == -1 && !strstr(err, "s3cret"));
    snprintf(o.bmc, sizeof o.bmc, "http://10.0.0.5/redfish/v1/Chassis/1");
    CHECK(power_bmc_check(&o, err, sizeof err) == 0); /* no credentials: a lab's mockup */
    snprintf(o.bmc_password, sizeof o.bmc_password, "s3cret");
    CHECK(power_bmc_check(&o, err, sizeof err) == -1 && strstr(err, "only over https://"));
    o.bmc_password[0] = '\0';
    snprintf(o.bmc_user, sizeof o.bmc_user, "admin");
    CHECK(power_bmc_check(&o, err, sizeof err) == -1);
    snprintf(o.bmc, sizeof o.bmc, "https://10.0.0.5/redfish/v1/Chassis/a@b"); /* '@' in a path */
    CHECK(power_bmc_check(&o, err, sizeof err) == 0);
    snprintf(o.bmc, sizeof o.bmc, "ipmi://10.0.0.5");
    CHECK(power_bmc_check(&o, err, sizeof err) == 0);
}

int main(void) {
    tmp = mkdtemp(tmpl);
    if (!tmp)
        return 1;
    test_dcmi();
    test_redfish_parse();
    test_readings();
    test_hwmon();
    test_selector();
    test_bmc_option();
    test_ipmi_stale();
    test_redfish_origin();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return 1;
    return unit_done("test_power");
}
