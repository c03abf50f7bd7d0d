/* power_ipmi.c -- IPMI DCMI "Get Power Reading", two rows of the source
 * table (power.h): in band through the kernel's IPMI device and out of band
 * to a BMC over RMCP+ (--bmc ipmi://HOST[:PORT]).
 *
 * In band is the kernel's interface of ipmi_si and ipmi_devintf: one
 * IPMICTL_SEND_COMMAND ioctl, a poll for the answer and one
 * IPMICTL_RECEIVE_MSG_TRUNC; no process is started per reading. Out of band
 * goes through FreeIPMI's libfreeipmi (an IPMI 2.0 session with the BMC,
 * kept open for the run; ipmi_cmd_raw sends the same bytes), loaded with
 * dlopen only when --bmc ipmi:// asks for it (freeipmi_abi.h says why). Both
 * read on a thread of their own: a KCS interface or a BMC on the network can
 * take tens of milliseconds to answer. The bytes come from dcmi.c.
 *
 * The kernel queues every message for the file: an answer that came after
 * its request gave up is still there at the next one. So a reading takes
 * the answer to its own request (msgid, NetFn, Cmd) and drops the stale
 * ones before it, until that answer or the timeout; one late answer must not
 * make every later reading fail. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ipmi.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../common/fsread.h"
#include "dcmi.h"
#include "freeipmi_abi.h"
#include "power.h"

static void set_detail_dcmi(struct power_src *s, const struct dcmi_power *p) {
    /* The statistics period is the span of the BMC's own min/max/average,
     * not how often its current reading changes: recorded, not used. */
    json_object_set_new(s->detail, "dcmi_statistics_period_s", json_real(p->period_ms / 1000.0));
    json_object_set_new(s->detail, "dcmi_average_w", json_integer(p->avg_w));
}

/* ---- in band: /dev/ipmi0 --------------------------------------------------------------- */

struct inband {
    int fd;
    long msgid;
    int (*ioctl_fn)(int fd, unsigned long req, void *arg);
};

static int sys_ioctl(int fd, unsigned long req, void *arg) {
    return ioctl(fd, req, arg);
}

/* One Get Power Reading through the kernel. rsp gets the answer from its
 * completion code on; messages that are not that answer (a late one to an
 * earlier request, an event) are dropped while waiting for it. */
static int inband_cmd(struct power_src *s, uint8_t *rsp, size_t *rlen, char *err, size_t errlen) {
    struct inband *ib = s->priv;
    uint8_t data[8] = {0};
    struct ipmi_system_interface_addr addr = {IPMI_SYSTEM_INTERFACE_ADDR_TYPE, IPMI_BMC_CHANNEL, 0};
    struct ipmi_req req = {0};
    req.addr = (unsigned char *)&addr;
    req.addr_len = sizeof addr;
    req.msgid = ++ib->msgid;
    req.msg.netfn = DCMI_NETFN;
    req.msg.cmd = DCMI_CMD_GET_POWER_READING;
    req.msg.data = data;
    req.msg.data_len = (unsigned short)dcmi_power_request(data, sizeof data);
    if (ib->ioctl_fn(ib->fd, IPMICTL_SEND_COMMAND, &req) < 0) {
        snprintf(err, errlen, "IPMICTL_SEND_COMMAND: %s", strerror(errno));
        return -1;
    }
    size_t cap = *rlen;
    int dropped = 0;
    /* Up to 5 s for the answer, however many other messages come first; in
     * slices so the end of the run is seen. */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long waited = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (atomic_load(&s->cancel) || waited >= 5000) {
            snprintf(err, errlen, "no answer from the BMC in %ld ms (%d other messages dropped)",
                     waited, dropped);
            return -1;
        }
        struct pollfd p = {ib->fd, POLLIN, 0};
        int r = poll(&p, 1, 200);
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
        if (r <= 0)
            continue;
        struct ipmi_addr raddr;
        struct ipmi_recv rv;
        memset(&raddr, 0, sizeof raddr);
        memset(&rv, 0, sizeof rv);
        memset(rsp, 0, cap);
        rv.addr = (unsigned char *)&raddr;
        rv.addr_len = sizeof raddr;
        rv.msg.data = rsp;
        rv.msg.data_len = (unsigned short)cap;
        if (ib->ioctl_fn(ib->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0 && errno != EMSGSIZE) {
            if (errno == EAGAIN || errno == EINTR)
                continue; /* taken by no one else: the queue was empty after all */
            snprintf(err, errlen, "IPMICTL_RECEIVE_MSG_TRUNC: %s", strerror(errno));
            return -1;
        }
        /* Ours: a response, to this msgid, for NetFn 2Ch's response NetFn
         * (2Dh) and Cmd 02h. Anything else was queued before it. */
        if (rv.recv_type == IPMI_RESPONSE_RECV_TYPE && rv.msgid == ib->msgid &&
            rv.msg.netfn == (DCMI_NETFN | 1) && rv.msg.cmd == DCMI_CMD_GET_POWER_READING) {
            *rlen = rv.msg.data_len < cap ? rv.msg.data_len : cap;
            return 0;
        }
        if (++dropped > 64) { /* a driver that answers everything else: give up */
            snprintf(err, errlen,
                     "64 messages that are not the answer (the last: type %d, id %ld, NetFn "
                     "%02xh, Cmd %02xh)",
                     rv.recv_type, rv.msgid, rv.msg.netfn, rv.msg.cmd);
            return -1;
        }
    }
}

static int inband_read(struct power_src *s, double dt, double *watts, char *err, size_t errlen) {
    (void)dt;
    uint8_t rsp[64] = {0};
    size_t n = sizeof rsp;
    struct dcmi_power p;
    char e[256];
    if (inband_cmd(s, rsp, &n, e, sizeof e) != 0 || dcmi_power_decode(rsp, n, &p, e, sizeof e)) {
        snprintf(err, errlen, "IPMI in band: %s", e);
        return -1;
    }
    *watts = p.current_w;
    return 0;
}

static int inband_open(struct power_src *s, const struct power_env *env) {
    static const char *const devs[] = {"/dev/ipmi0", "/dev/ipmi/0", "/dev/ipmidev/0"};
    char path[PATH_MAX];
    s->scope = PSCOPE_PLATFORM;
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        if (!sysroot_path(path, sizeof path, env->sysroot, devs[i]) || access(path, F_OK) != 0)
            continue;
        struct inband *ib = calloc(1, sizeof *ib);
        if (!ib) {
            snprintf(s->reason, sizeof s->reason, "out of memory");
            return -1;
        }
        s->priv = ib;
        ib->ioctl_fn = env->ioctl_fn ? env->ioctl_fn : sys_ioctl;
        ib->fd = env->open_fn(path, O_RDWR | O_CLOEXEC);
        if (ib->fd < 0) {
            snprintf(s->reason, sizeof s->reason, "IPMI in band: cannot open %s: %s%s", path,
                     strerror(errno), errno == EACCES ? " (run the harness as root)" : "");
            return -1;
        }
        s->detail = json_pack("{s:s}", "device", devs[i]);
        uint8_t rsp[64] = {0};
        size_t n = sizeof rsp;
        struct dcmi_power p;
        char e[512];
        if (inband_cmd(s, rsp, &n, e, sizeof e) != 0 ||
            dcmi_power_decode(rsp, n, &p, e, sizeof e) != 0) {
            snprintf(s->reason, sizeof s->reason, "IPMI in band (%s): %s", path, e);
            return -1;
        }
        set_detail_dcmi(s, &p);
        return 0;
    }
    snprintf(s->reason, sizeof s->reason,
             "no /dev/ipmi0 (IPMI in band: modprobe ipmi_si ipmi_devintf where there is a BMC)");
    return 1;
}

static void inband_close(struct power_src *s) {
    struct inband *ib = s->priv;
    if (ib && ib->fd >= 0)
        close(ib->fd);
    free(ib);
    s->priv = NULL;
}

const struct power_src_ops power_src_ipmi = {"ipmi", 1, inband_open, inband_read, inband_close};

/* ---- out of band: --bmc ipmi://HOST[:PORT] over RMCP+ ------------------------------------ */

struct lan {
    struct freeipmi fi;
    fi_ctx_t ctx;
    char host[300];
    const struct power_opts *o;
    uint8_t priv;
    unsigned wflags; /* the workaround the session needed */
};

/* FreeIPMI, loaded now that --bmc ipmi:// asks for it. */
static int lan_load(struct freeipmi *fi, char *err, size_t errlen) {
    if (!(fi->dl = dlopen(FI_SONAME, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(err, errlen,
                 "--bmc ipmi:// talks RMCP+ through FreeIPMI, and %s is not installed "
                 "(apt-get install libfreeipmi17)",
                 FI_SONAME);
        return -1;
    }
    static const struct {
        const char *name;
        size_t off;
    } fns[] = {
        {"ipmi_ctx_create", offsetof(struct freeipmi, ctx_create)},
        {"ipmi_ctx_open_outofband_2_0", offsetof(struct freeipmi, ctx_open_outofband_2_0)},
        {"ipmi_cmd_raw", offsetof(struct freeipmi, cmd_raw)},
        {"ipmi_ctx_errnum", offsetof(struct freeipmi, ctx_errnum)},
        {"ipmi_ctx_errormsg", offsetof(struct freeipmi, ctx_errormsg)},
        {"ipmi_ctx_close", offsetof(struct freeipmi, ctx_close)},
        {"ipmi_ctx_destroy", offsetof(struct freeipmi, ctx_destroy)},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *f = dlsym(fi->dl, fns[i].name);
        if (!f) {
            snprintf(err, errlen, "%s has no %s", FI_SONAME, fns[i].name);
            return -1;
        }
        memcpy((char *)fi + fns[i].off, &f, sizeof f);
    }
    return 0;
}

/* The IPMI 2.0 session, on a fresh context: at the privilege asked for,
 * cipher suite 3 (HMAC-SHA1, HMAC-SHA1-96, AES-CBC-128: what BMCs offer by
 * default); given up after 5 s without an answer (a BMC that is not there
 * is said at start, not 20 s later), a lost packet sent again after 0.5 s. */
static int lan_session(struct lan *l) {
    if (l->ctx)
        l->fi.ctx_destroy(l->ctx);
    if (!(l->ctx = l->fi.ctx_create()))
        return -1;
    return l->fi.ctx_open_outofband_2_0(l->ctx, l->host, l->o->bmc_user, l->o->bmc_password, NULL,
                                        0, l->priv, 3, 5000, 500, l->wflags, FI_FLAGS_DEFAULT);
}

/* rsp and *rlen are set only on success: a caller must not look at rsp
 * after a failure. */
static int lan_cmd(struct lan *l, uint8_t *rsp, size_t *rlen, char *err, size_t errlen) {
    uint8_t rq[8] = {0}, rs[80] = {0};
    rq[0] = DCMI_CMD_GET_POWER_READING;
    size_t n = 1 + dcmi_power_request(rq + 1, sizeof rq - 1);
    int got = l->fi.cmd_raw(l->ctx, 0, DCMI_NETFN, rq, (unsigned)n, rs, sizeof rs);
    if (got < 2) {
        snprintf(err, errlen, "%s", got < 0 ? l->fi.ctx_errormsg(l->ctx) : "a short answer");
        return -1;
    }
    /* rs[0] is the command, rs[1] the completion code */
    *rlen = (size_t)got - 1 < *rlen ? (size_t)got - 1 : *rlen;
    memcpy(rsp, rs + 1, *rlen);
    return 0;
}

static int lan_open(struct power_src *s, const struct power_env *env) {
    const char *url = env->opts ? env->opts->bmc : "";
    s->scope = PSCOPE_PLATFORM;
    if (strncmp(url, "ipmi://", 7) != 0)
        return 1; /* no --bmc ipmi:// (redfish's row says what --bmc takes) */
    s->asked = 1;
    struct lan *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(s->reason, sizeof s->reason, "out of memory");
        return -1;
    }
    s->priv = l;
    snprintf(l->host, sizeof l->host, "%s", url + 7);
    l->host[strcspn(l->host, "/")] = '\0';
    const struct power_opts *o = env->opts;
    if (!o->bmc_user[0] || !o->bmc_password[0]) {
        snprintf(s->reason, sizeof s->reason,
                 "IPMI BMC %s: no credentials (set BMC_USERNAME and BMC_PASSWORD)", l->host);
        return -1;
    }
    if (lan_load(&l->fi, s->reason, sizeof s->reason) != 0)
        return -1;
    static const uint8_t privs[] = {FI_PRIVILEGE_LEVEL_USER, FI_PRIVILEGE_LEVEL_OPERATOR,
                                    FI_PRIVILEGE_LEVEL_ADMIN};
    static const char *const pnames[] = {"user", "operator", "admin"};
    int pi = o->bmc_privilege >= 0 && o->bmc_privilege < 3 ? o->bmc_privilege : 0;
    const char *workaround = "none";
    l->o = o;
    l->priv = privs[pi];
    l->wflags = FI_WORKAROUND_FLAGS_DEFAULT;
    int rc = lan_session(l);
    if (rc < 0 && l->ctx && l->fi.ctx_errnum(l->ctx) == FI_ERR_PRIVILEGE_LEVEL_CANNOT_BE_OBTAINED) {
        /* BMCs that want the privilege in the Open Session Request itself
         * (FreeIPMI's "opensesspriv" workaround; OpenIPMI's ipmi_sim is one). */
        l->wflags = FI_WORKAROUND_FLAGS_OUTOFBAND_2_0_OPEN_SESSION_PRIVILEGE;
        rc = lan_session(l);
        workaround = "opensesspriv";
    }
    if (rc < 0 && !l->ctx) {
        snprintf(s->reason, sizeof s->reason, "IPMI BMC %s: ipmi_ctx_create failed", l->host);
        return -1;
    }
    if (rc < 0) {
        int en = l->fi.ctx_errnum(l->ctx);
        snprintf(s->reason, sizeof s->reason, "IPMI BMC %s over RMCP+: %s%s", l->host,
                 l->fi.ctx_errormsg(l->ctx),
                 en == FI_ERR_USERNAME_INVALID || en == FI_ERR_PASSWORD_INVALID
                     ? " (check BMC_USERNAME and BMC_PASSWORD)"
                     : "");
        return -1;
    }
    s->detail =
        json_pack("{s:s, s:s, s:s, s:s}", "bmc", url, "protocol", "IPMI 2.0 RMCP+ (FreeIPMI)",
                  "privilege", pnames[pi], "workaround", workaround);
    uint8_t rsp[80] = {0};
    size_t n = sizeof rsp;
    struct dcmi_power p;
    char e[512];
    int got = lan_cmd(l, rsp, &n, e, sizeof e) == 0; /* rsp is the BMC's only then */
    if (!got || dcmi_power_decode(rsp, n, &p, e, sizeof e) != 0) {
        snprintf(s->reason, sizeof s->reason, "IPMI BMC %s: %s%s", l->host, e,
                 got && n && rsp[0] == 0xD4 ? " at this session's privilege (--bmc-privilege "
                                              "operator or admin)"
                                            : "");
        return -1;
    }
    set_detail_dcmi(s, &p);
    return 0;
}

static int lan_read(struct power_src *s, double dt, double *watts, char *err, size_t errlen) {
    (void)dt;
    struct lan *l = s->priv;
    uint8_t rsp[80] = {0};
    size_t n = sizeof rsp;
    struct dcmi_power p;
    char e[256];
    int rc = lan_cmd(l, rsp, &n, e, sizeof e);
    if (rc != 0 && !atomic_load(&s->cancel)) {
        /* A session the BMC ended (idle past its timeout, a BMC reset):
         * a new one, once. */
        n = sizeof rsp;
        rc = lan_session(l) < 0 ? -1 : lan_cmd(l, rsp, &n, e, sizeof e);
    }
    if (rc != 0 || dcmi_power_decode(rsp, n, &p, e, sizeof e) != 0) {
        snprintf(err, errlen, "IPMI BMC %s: %s", l->host, e);
        return -1;
    }
    *watts = p.current_w;
    return 0;
}

static void lan_close(struct power_src *s) {
    struct lan *l = s->priv;
    if (l && l->ctx) {
        l->fi.ctx_close(l->ctx);
        l->fi.ctx_destroy(l->ctx);
    }
    if (l && l->fi.dl)
        dlclose(l->fi.dl);
    free(l);
    s->priv = NULL;
}

const struct power_src_ops power_src_ipmi_lan = {"ipmi_lan", 1, lan_open, lan_read, lan_close};
