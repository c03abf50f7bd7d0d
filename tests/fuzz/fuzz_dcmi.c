/* fuzz_dcmi.c -- DCMI Get Power Reading answers as a BMC sends them
 * (telemetry/dcmi.c), and the in-band reader's queue (telemetry/
 * power_ipmi.c) that a BMC fills: late answers, other commands' answers,
 * events, before or instead of the one asked for.
 *
 * The input is two parts split at FUZZ_SPLIT. The first is a response from
 * its completion code on, decoded as is; a decoded reading must be the
 * specification's bytes (table 6-16), recomputed here. The second is the
 * queue the played driver (power_env.ioctl_fn) holds after each request:
 * records of type, msgid offset from the request's, NetFn, Cmd, length and
 * that many data bytes. The reader must take only its own answer, drop the
 * rest, never read past a message, and say a failure in one line. */
#include <linux/ipmi.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "../../telemetry/dcmi.h"
#include "../../telemetry/power.h"
#include "fuzz.h"

static void one_line(const char *err) {
    if (!err[0] || strchr(err, '\n'))
        abort();
}

static void decode_part(const uint8_t *d, size_t n) {
    struct dcmi_power p;
    char err[256];
    /* A copy of exactly n bytes: ASan sees a read past the answer. */
    uint8_t *rsp = malloc(n ? n : 1);
    if (!rsp)
        abort();
    memcpy(rsp, d, n);
    if (dcmi_power_decode(rsp, n, &p, err, sizeof err) == 0) {
        if (n < 19 || rsp[0] || rsp[1] != 0xDC || !(rsp[18] & 0x40) ||
            p.current_w != (unsigned)(rsp[2] | rsp[3] << 8) ||
            p.avg_w != (unsigned)(rsp[8] | rsp[9] << 8) ||
            p.period_ms != ((uint32_t)rsp[14] | (uint32_t)rsp[15] << 8 | (uint32_t)rsp[16] << 16 |
                            (uint32_t)rsp[17] << 24))
            abort();
    } else {
        one_line(err);
    }
    if (n)
        (void)ipmi_cc_name(rsp[0]);
    free(rsp);
}

/* ---- the played driver ---- */

static const uint8_t *q;
static size_t qlen, qoff;
static long last_msgid;
static struct power_src *src;

static int fake_ioctl(int fd, unsigned long req, void *arg) {
    (void)fd;
    if (req == IPMICTL_SEND_COMMAND) {
        last_msgid = ((struct ipmi_req *)arg)->msgid;
        qoff = 0; /* each request finds the same queue */
        return 0;
    }
    if (req != IPMICTL_RECEIVE_MSG_TRUNC)
        return errno = ENOTTY, -1;
    struct ipmi_recv *rv = arg;
    if (qoff + 5 > qlen) {
        atomic_store(&src->cancel, 1); /* nothing more will come: end the wait now */
        return errno = EAGAIN, -1;
    }
    const uint8_t *m = q + qoff;
    size_t dl = m[4];
    if (qoff + 5 + dl > qlen)
        dl = qlen - qoff - 5;
    qoff += 5 + dl;
    rv->recv_type = m[0] % 4;
    rv->msgid = last_msgid + (int8_t)m[1];
    rv->msg.netfn = m[2], rv->msg.cmd = m[3];
    size_t n = dl < rv->msg.data_len ? dl : rv->msg.data_len;
    memcpy(rv->msg.data, m + 5, n);
    rv->msg.data_len = (unsigned short)n;
    return dl > n ? (errno = EMSGSIZE, -1) : 0;
}

static int pipe_fd[2] = {-1, -1};
static int fake_open(const char *path, int flags) {
    (void)path, (void)flags;
    return dup(pipe_fd[0]);
}

static void inband_part(const uint8_t *d, size_t n) {
    /* The sysroot with its dev/ipmi0, made again whenever it is gone (a
     * `tests/fuzz/run` elsewhere empties /dev/shm/aops-fuzz-*). */
    static char root[128], dev[160];
    if (!root[0]) {
        snprintf(root, sizeof root, "%s/root", fuzz_dir());
        snprintf(dev, sizeof dev, "%s/dev/ipmi0", root);
        if (pipe(pipe_fd) != 0 || write(pipe_fd[1], "x", 1) != 1)
            abort();
    }
    if (access(dev, F_OK) != 0) {
        char dir[160];
        snprintf(dir, sizeof dir, "%s/dev", root);
        mkdir(fuzz_dir(), 0700), mkdir(root, 0700), mkdir(dir, 0700);
        int fd = open(dev, O_WRONLY | O_CREAT, 0600);
        if (fd < 0)
            abort();
        close(fd);
    }
    q = d, qlen = n, qoff = 0;
    struct power_src s = {.ops = &power_src_ipmi};
    struct power_env env = {.sysroot = root, .open_fn = fake_open, .ioctl_fn = fake_ioctl};
    src = &s;
    int rc = power_src_ipmi.open(&s, &env);
    if (rc == 1)
        abort(); /* the device is there: the reader must have been reached */
    if (rc == 0) {
        double w;
        char err[256];
        atomic_store(&s.cancel, 0);
        if (power_src_ipmi.read(&s, 1, &w, err, sizeof err) != 0)
            one_line(err);
    } else {
        one_line(s.reason);
    }
    power_src_ipmi.close(&s);
    json_decref(s.detail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[2];
    size_t len[2];
    fuzz_split(data, size, 2, part, len);
    decode_part(part[0], len[0]);
    inband_part(part[1], len[1]);
    return 0;
}
