/* disclosure.c -- DMI, DIMMs, CPU and kernel settings, drives' and NICs'
 * placement (see disclosure.h). Runs once per run, so it allocates freely.
 *
 * Sources, all under the sysroot: /sys/class/dmi/id; dmidecode for the
 * DIMMs (the kernel has no DIMM list of its own); /proc/cpuinfo's
 * microcode; cpuN/cpufreq, cpufreq/boost, intel_pstate/no_turbo, smt/control,
 * cpuidle; /sys/kernel/mm/transparent_hugepage; cpu/vulnerabilities;
 * /proc/sys/kernel/numa_balancing; the current clocksource; /proc/cmdline;
 * the cpuinfo "hypervisor" flag with DMI and /sys/hypervisor/type for the
 * hypervisor (and on this machine, x86's CPUID leaf 0x40000000, as lscpu
 * does); for drives and NICs, the PCIe device above them in /sys/devices
 * (current_link_speed, current_link_width, numa_node). */
#include "disclosure.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "../common/fsread.h"

static char *rd(const char *root, const char *rel, char *buf, size_t len) {
    char path[PATH_MAX];
    if (!sysroot_path(path, sizeof path, root, rel) || fs_read_str(path, buf, len) < 0)
        return NULL;
    return fs_trim(buf);
}

static json_t *str_or_null(const char *s) {
    return s && *s ? json_string(s) : json_null();
}

static json_t *file_str(const char *root, const char *rel) {
    char buf[4096];
    return str_or_null(rd(root, rel, buf, sizeof buf));
}

static json_t *file_int(const char *root, const char *rel, long min) {
    char buf[64], *end;
    if (!rd(root, rel, buf, sizeof buf))
        return json_null();
    long v = strtol(buf, &end, 10);
    return end == buf || v < min ? json_null() : json_integer(v);
}

/* "always [madvise] never" -> "madvise". */
static json_t *bracketed(const char *root, const char *rel) {
    char buf[512];
    char *s = rd(root, rel, buf, sizeof buf), *a, *b;
    if (s && (a = strchr(s, '[')) && (b = strchr(a, ']'))) {
        *b = 0;
        return json_string(a + 1);
    }
    return str_or_null(s);
}

/* ---- DMI ---- */

static json_t *dmi_json(const char *root, json_t *sys) {
    static const char *const keys[][2] = {
        {"system_vendor", "sys_vendor"},        {"product_name", "product_name"},
        {"product_version", "product_version"}, {"board_vendor", "board_vendor"},
        {"board_name", "board_name"},           {"bios_vendor", "bios_vendor"},
        {"bios_version", "bios_version"},       {"bios_date", "bios_date"}};
    json_t *o = json_object();
    int any = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "/sys/class/dmi/id/%s", keys[i][1]);
        json_t *v = file_str(root, rel);
        any |= !json_is_null(v);
        json_object_set_new(o, keys[i][0], v);
    }
    if (!any)
        json_object_set_new(sys, "dmi_unavailable",
                            json_string("no /sys/class/dmi/id (no SMBIOS tables: a VM or a "
                                        "machine without DMI)"));
    return o;
}

/* ---- DIMMs, from dmidecode ---- */

/* "32 GB", "16384 MB", "No Module Installed" -> bytes, 0 for none, -1 unknown. */
static long long dimm_size(const char *v) {
    char unit[16] = "";
    unsigned long long n;
    if (sscanf(v, "%llu %15s", &n, unit) < 1)
        return strstr(v, "No Module") ? 0 : -1;
    int sh = !strcmp(unit, "kB") || !strcmp(unit, "KB")     ? 10
             : !strcmp(unit, "MB")                          ? 20
             : !strcmp(unit, "GB")                          ? 30
             : !strcmp(unit, "TB")                          ? 40
             : !strcmp(unit, "bytes") || !strcmp(unit, "B") ? 0
                                                            : -1;
    return sh < 0 ? -1 : (long long)(n << sh);
}

static json_t *mts(const char *v) {
    unsigned n;
    return v && sscanf(v, "%u", &n) == 1 && n > 0 ? json_integer(n) : json_null();
}

/* Add v to the array a unless it is there. */
static void add_distinct(json_t *a, json_t *v) {
    size_t i;
    json_t *x;
    if (json_is_null(v))
        return;
    json_array_foreach(a, i, x) {
        if (json_equal(x, v))
            return;
    }
    json_array_append(a, v);
}

json_t *disclosure_parse_dimms(const char *text) {
    json_t *dimms = json_array(), *cur = NULL;
    json_t *types = json_array(), *speeds = json_array(), *conf = json_array();
    int slots = 0, count = 0;
    long long total = 0;
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        p = nl ? nl + 1 : NULL;
        if (!strcmp(line, "Memory Device")) {
            cur = json_object();
            json_array_append_new(dimms, cur);
            slots++;
            continue;
        }
        if (line[0] != '\t') { /* a blank line or another structure ends the device */
            if (line[0] && strncmp(line, "Handle ", 7))
                cur = NULL;
            continue;
        }
        char *colon = strchr(line, ':');
        if (!cur || !colon || line[1] == '\t')
            continue;
        *colon = 0;
        char *k = fs_trim(line), *v = fs_trim(colon + 1);
        int unknown = !strcmp(v, "Unknown") || !strcmp(v, "Not Specified") || !*v;
        if (!strcmp(k, "Size")) {
            long long b = dimm_size(v);
            json_object_set_new(cur, "size_bytes", b >= 0 ? json_integer(b) : json_null());
        } else if (!strcmp(k, "Locator"))
            json_object_set_new(cur, "locator", str_or_null(v));
        else if (!strcmp(k, "Type"))
            json_object_set_new(cur, "type", unknown ? json_null() : json_string(v));
        else if (!strcmp(k, "Speed"))
            json_object_set_new(cur, "speed_mts", mts(v));
        else if (!strcmp(k, "Configured Memory Speed") || !strcmp(k, "Configured Clock Speed"))
            json_object_set_new(cur, "configured_speed_mts", mts(v));
        else if (!strcmp(k, "Manufacturer"))
            json_object_set_new(cur, "manufacturer", unknown ? json_null() : json_string(v));
        else if (!strcmp(k, "Part Number"))
            json_object_set_new(cur, "part_number", unknown ? json_null() : json_string(v));
    }
    /* Only populated slots are DIMMs. */
    json_t *pop = json_array();
    size_t i;
    json_t *d;
    json_array_foreach(dimms, i, d) {
        json_int_t b = json_integer_value(json_object_get(d, "size_bytes"));
        if (b <= 0)
            continue;
        count++;
        total += b;
        add_distinct(types, json_object_get(d, "type"));
        add_distinct(speeds, json_object_get(d, "speed_mts"));
        add_distinct(conf, json_object_get(d, "configured_speed_mts"));
        json_array_append(pop, d);
    }
    json_decref(dimms);
    if (!slots) {
        json_decref(pop);
        json_decref(types);
        json_decref(speeds);
        json_decref(conf);
        return NULL;
    }
    return json_pack("{s:i, s:i, s:I, s:o, s:o, s:o, s:o}", "slots", slots, "count", count,
                     "total_bytes", (json_int_t)total, "types", types, "speeds_mts", speeds,
                     "configured_speeds_mts", conf, "dimms", pop);
}

/* Run argv, its stdout and stderr into a malloc'd string (NULL: could not
 * run it); *status its wait status. */
static char *run_capture(char *const argv[], int *status) {
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0, cap = 65536;
    char *out = malloc(cap);
    ssize_t k;
    while (out && (k = read(fd[0], out + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (cap - len < 4096) {
            char *n = realloc(out, cap * 2);
            if (!n)
                break;
            out = n, cap *= 2;
        }
    }
    close(fd[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    if (out)
        out[len] = 0;
    return out;
}

static void dimms(const char *root, json_t *sys) {
    char dump[PATH_MAX], why[512] = "";
    const char *live = strcmp(root, "/") ? NULL : "live";
    char *argv[6] = {"dmidecode", "-t", "memory", NULL, NULL, NULL};
    if (!live) {
        if (!sysroot_path(dump, sizeof dump, root, "/dmidecode.bin") || access(dump, R_OK) != 0) {
            json_object_set_new(sys, "memory_dimms", json_null());
            json_object_set_new(sys, "memory_dimms_unavailable",
                                json_string("the sysroot holds no dmidecode.bin (dmidecode "
                                            "--dump-bin of the machine)"));
            return;
        }
        argv[1] = "--from-dump", argv[2] = dump, argv[3] = "-t", argv[4] = "memory";
    } else if (geteuid() != 0) {
        json_object_set_new(sys, "memory_dimms", json_null());
        json_object_set_new(sys, "memory_dimms_unavailable",
                            json_string("not root: dmidecode -t memory reads the SMBIOS tables, "
                                        "which only root may"));
        return;
    }
    int status = 0;
    char *out = run_capture(argv, &status);
    json_t *d =
        out && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? disclosure_parse_dimms(out) : NULL;
    if (!d) {
        /* dmidecode's last line says why ("/dev/mem: No such file or directory"). */
        char last[256] = "";
        for (char *l = out ? strtok(out, "\n") : NULL; l; l = strtok(NULL, "\n"))
            if (*fs_trim(l))
                snprintf(last, sizeof last, "%s", fs_trim(l));
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(why, sizeof why, "dmidecode is not installed (apt-get install dmidecode)");
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            snprintf(why, sizeof why, "dmidecode -t memory listed no memory device");
        else
            snprintf(why, sizeof why, "dmidecode -t memory found no SMBIOS tables (%s)",
                     last[0] ? last : "it failed");
    }
    json_object_set_new(sys, "memory_dimms", d ? d : json_null());
    if (!d)
        json_object_set_new(sys, "memory_dimms_unavailable", json_string(why));
    free(out);
}

/* ---- CPU settings ---- */

static json_t *microcode(const char *root) {
    char path[PATH_MAX], line[512];
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/cpuinfo") ? fs_fopen(path) : NULL;
    json_t *v = json_null();
    while (f && fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (!c)
            continue;
        *c = 0;
        if (!strcmp(fs_trim(line), "microcode")) {
            v = str_or_null(fs_trim(c + 1));
            break;
        }
    }
    if (f)
        fclose(f);
    return v;
}

/* Distinct values of cpuN/<rel> over every CPU (the governor, the driver). */
static json_t *per_cpu_distinct(const char *root, const char *rel) {
    char dir[PATH_MAX], path[PATH_MAX + 512], buf[256];
    json_t *a = json_array();
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/devices/system/cpu") ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, rel);
        if (fs_read_str(path, buf, sizeof buf) < 0)
            continue;
        json_t *v = json_string(fs_trim(buf));
        add_distinct(a, v);
        json_decref(v);
    }
    if (d)
        closedir(d);
    return a;
}

static json_t *boost(const char *root) {
    char buf[32];
    if (rd(root, "/sys/devices/system/cpu/cpufreq/boost", buf, sizeof buf))
        return json_string(atoi(buf) ? "on" : "off");
    if (rd(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof buf))
        return json_string(atoi(buf) ? "off" : "on");
    if (rd(root, "/sys/devices/system/cpu/cpu0/cpufreq/boost", buf, sizeof buf)) /* amd-pstate */
        return json_string(atoi(buf) ? "on" : "off");
    return json_null();
}

static json_t *cstates(const char *root) {
    json_t *a = json_array();
    for (int k = 0; k < 16; k++) {
        char rel[128], name[64], dis[16];
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/name", k);
        if (!rd(root, rel, name, sizeof name))
            break;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", k);
        int off = rd(root, rel, dis, sizeof dis) && atoi(dis);
        json_array_append_new(a, json_sprintf("%s%s", name, off ? " (disabled)" : ""));
    }
    return a;
}

static json_t *khz(const char *root, const char *file) {
    char rel[128];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cpufreq/%s", file);
    return file_int(root, rel, 0);
}

static json_t *cpu_settings(const char *root) {
    json_t *o = json_object();
    json_object_set_new(o, "microcode", microcode(root));
    json_object_set_new(o, "cpufreq_driver",
                        file_str(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"));
    json_object_set_new(o, "governors", per_cpu_distinct(root, "cpufreq/scaling_governor"));
    json_object_set_new(o, "scaling_min_khz", khz(root, "scaling_min_freq"));
    json_object_set_new(o, "scaling_max_khz", khz(root, "scaling_max_freq"));
    json_object_set_new(o, "cpuinfo_max_khz", khz(root, "cpuinfo_max_freq"));
    json_object_set_new(o, "intel_pstate",
                        file_str(root, "/sys/devices/system/cpu/intel_pstate/status"));
    json_object_set_new(o, "boost", boost(root));
    json_object_set_new(o, "smt_control", file_str(root, "/sys/devices/system/cpu/smt/control"));
    json_object_set_new(o, "cpuidle_driver",
                        file_str(root, "/sys/devices/system/cpu/cpuidle/current_driver"));
    json_object_set_new(o, "cstates", cstates(root));
    return o;
}

/* ---- kernel and memory ---- */

static json_t *vulnerabilities(const char *root) {
    char dir[PATH_MAX], path[PATH_MAX + 300], buf[1024];
    json_t *o = json_object();
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/devices/system/cpu/vulnerabilities")
                 ? opendir(dir)
                 : NULL;
    struct dirent *e;
    char *names[64];
    int n = 0;
    while (d && (e = readdir(d)) && n < 64)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    for (int i = 0; i < n; i++) /* by name, so two results list them alike */
        for (int j = i; j > 0 && names[j] && names[j - 1] && strcmp(names[j], names[j - 1]) < 0;
             j--) {
            char *x = names[j];
            names[j] = names[j - 1], names[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        if (!names[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (fs_read_str(path, buf, sizeof buf) >= 0)
            json_object_set_new(o, names[i], json_string(fs_trim(buf)));
        free(names[i]);
    }
    return o;
}

/* The hypervisor's name from DMI (QEMU, VMware...), or NULL. */
static const char *hv_from_dmi(const char *root) {
    char v[256] = "", p[256] = "";
    rd(root, "/sys/class/dmi/id/sys_vendor", v, sizeof v);
    rd(root, "/sys/class/dmi/id/product_name", p, sizeof p);
    if (strstr(v, "QEMU") || strstr(p, "KVM") || strstr(v, "Amazon EC2") || strstr(v, "Google"))
        return "KVM";
    if (strstr(v, "VMware"))
        return "VMware";
    if (strstr(v, "Microsoft") && strstr(p, "Virtual"))
        return "Microsoft";
    if (strstr(v, "Xen"))
        return "Xen";
    if (strstr(v, "innotek") || strstr(p, "VirtualBox"))
        return "Oracle";
    return NULL;
}

static int cpuinfo_has_flag(const char *root, const char *flag) {
    char path[PATH_MAX], line[8192];
    FILE *f = sysroot_path(path, sizeof path, root, "/proc/cpuinfo") ? fs_fopen(path) : NULL;
    int has = 0;
    while (f && !has && fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            for (char *t = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n"); t;
                 t = strtok(NULL, " \t\n"))
                has |= !strcmp(t, flag);
            break; /* the first CPU's flags */
        }
    if (f)
        fclose(f);
    return has;
}

static json_t *virtualization(const char *root) {
    char buf[256], src[64] = "";
    const char *vendor = NULL, *type = NULL;
    struct stat st;
    char path[PATH_MAX];
    int flag = cpuinfo_has_flag(root, "hypervisor");
#if defined(__x86_64__) || defined(__i386__)
    static char sig[13];
    unsigned a, b, c, d;
    if (!strcmp(root, "/") && flag) { /* CPUID 0x40000000: the hypervisor's own signature */
        __cpuid(0x40000000, a, b, c, d);
        memcpy(sig, &b, 4), memcpy(sig + 4, &c, 4), memcpy(sig + 8, &d, 4);
        sig[12] = 0;
        vendor = !strcmp(sig, "KVMKVMKVM")      ? "KVM"
                 : !strcmp(sig, "Microsoft Hv") ? "Microsoft"
                 : !strcmp(sig, "VMwareVMware") ? "VMware"
                 : !strcmp(sig, "XenVMMXenVMM") ? "Xen"
                 : !strcmp(sig, "TCGTCGTCGTCG") ? "QEMU TCG"
                 : sig[0]                       ? sig
                                                : NULL;
        if (vendor)
            snprintf(src, sizeof src, "cpuid");
    }
    (void)a;
#endif
    if (!vendor && rd(root, "/sys/hypervisor/type", buf, sizeof buf)) {
        static char t[64];
        snprintf(t, sizeof t, "%s", buf);
        vendor = !strcmp(t, "xen") ? "Xen" : t;
        snprintf(src, sizeof src, "/sys/hypervisor/type");
    }
    if (!vendor && (vendor = hv_from_dmi(root)))
        snprintf(src, sizeof src, "dmi");
    if (flag || vendor)
        type = "full";
    int container =
        (sysroot_path(path, sizeof path, root, "/.dockerenv") && stat(path, &st) == 0) ||
        (sysroot_path(path, sizeof path, root, "/run/.containerenv") && stat(path, &st) == 0);
    json_t *o = json_pack("{s:b, s:o, s:o, s:b}", "virtualized", type != NULL, "hypervisor",
                          str_or_null(vendor), "type", str_or_null(type), "container", container);
    json_object_set_new(o, "source", str_or_null(src[0] ? src : flag ? "cpuinfo flag" : NULL));
    return o;
}

static json_t *kernel_settings(const char *root) {
    json_t *o = json_object();
    json_object_set_new(o, "thp_enabled",
                        bracketed(root, "/sys/kernel/mm/transparent_hugepage/enabled"));
    json_object_set_new(o, "thp_defrag",
                        bracketed(root, "/sys/kernel/mm/transparent_hugepage/defrag"));
    json_object_set_new(o, "numa_balancing", file_int(root, "/proc/sys/kernel/numa_balancing", 0));
    json_object_set_new(
        o, "clocksource",
        file_str(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource"));
    json_object_set_new(o, "virtualization", virtualization(root));
    json_object_set_new(o, "cmdline", file_str(root, "/proc/cmdline"));
    json_object_set_new(o, "vulnerabilities", vulnerabilities(root));
    return o;
}

/* ---- devices ---- */

/* From dir (a real path inside root) up to root/sys/devices: the first PCI
 * device with a PCIe link, and the first numa_node on the way. */
static void pci_place(const char *root, const char *dir, json_t *o) {
    char d[PATH_MAX], p[PATH_MAX + 32], buf[128], top[PATH_MAX];
    json_t *speed = json_null(), *width = json_null(), *node = json_null();
    int have_node = 0, have_link = 0;
    snprintf(d, sizeof d, "%s", dir);
    if (!sysroot_path(top, sizeof top, root, "/sys/devices"))
        top[0] = 0;
    char rt[PATH_MAX];
    if (realpath(top, rt))
        snprintf(top, sizeof top, "%s", rt);
    while (strlen(d) > strlen(top) && !strncmp(d, top, strlen(top))) {
        snprintf(p, sizeof p, "%s/current_link_speed", d);
        if (!have_link && fs_read_str(p, buf, sizeof buf) >= 0) {
            have_link = 1;
            json_decref(speed);
            speed = json_string(fs_trim(buf));
            snprintf(p, sizeof p, "%s/current_link_width", d);
            if (fs_read_str(p, buf, sizeof buf) >= 0 && atoi(buf) > 0) {
                json_decref(width);
                width = json_integer(atoi(buf));
            }
        }
        snprintf(p, sizeof p, "%s/numa_node", d);
        if (!have_node && fs_read_str(p, buf, sizeof buf) >= 0) {
            have_node = 1;
            if (atoi(buf) >= 0) {
                json_decref(node);
                node = json_integer(atoi(buf));
            }
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            break;
        *slash = 0;
    }
    json_object_set_new(o, "pcie_link_speed", speed);
    json_object_set_new(o, "pcie_link_width", width);
    json_object_set_new(o, "numa_node", node);
}

void disclosure_disk(const char *root, const char *name, json_t *disk) {
    char rel[512], path[PATH_MAX], real[PATH_MAX];
    snprintf(rel, sizeof rel, "/sys/block/%s/device/firmware_rev", name);
    json_t *fw = file_str(root, rel);
    if (json_is_null(fw)) { /* SCSI and SATA: the revision */
        snprintf(rel, sizeof rel, "/sys/block/%s/device/rev", name);
        fw = file_str(root, rel);
    }
    json_object_set_new(disk, "firmware", fw);
    snprintf(rel, sizeof rel, "/sys/block/%s", name);
    if (sysroot_path(path, sizeof path, root, rel) && realpath(path, real))
        pci_place(root, real, disk);
    else
        pci_place(root, "", disk);
}

static json_t *nics(const char *root) {
    char dir[PATH_MAX], path[PATH_MAX + 300], real[PATH_MAX], link[PATH_MAX], buf[64];
    json_t *a = json_array();
    DIR *d = sysroot_path(dir, sizeof dir, root, "/sys/class/net") ? opendir(dir) : NULL;
    struct dirent *e;
    char *names[128];
    int n = 0;
    while (d && (e = readdir(d)) && n < 128) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/device", dir, e->d_name);
        if (access(path, F_OK) == 0) /* a device behind it: not lo, a bridge or a veth */
            names[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i; j > 0 && names[j] && names[j - 1] && strcmp(names[j], names[j - 1]) < 0;
             j--) {
            char *x = names[j];
            names[j] = names[j - 1], names[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        if (!names[i])
            continue;
        json_t *o = json_pack("{s:s}", "name", names[i]);
        snprintf(path, sizeof path, "%s/%s/device/driver", dir, names[i]);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k > 0) {
            link[k] = 0;
            json_object_set_new(o, "driver",
                                json_string(strrchr(link, '/') ? strrchr(link, '/') + 1 : link));
        } else
            json_object_set_new(o, "driver", json_null());
        snprintf(path, sizeof path, "%s/%s/speed", dir, names[i]);
        long sp = fs_read_str(path, buf, sizeof buf) >= 0 ? atol(buf) : -1;
        json_object_set_new(o, "speed_mbps", sp > 0 ? json_integer(sp) : json_null());
        snprintf(path, sizeof path, "%s/%s/device", dir, names[i]);
        pci_place(root, realpath(path, real) ? real : "", o);
        json_array_append_new(a, o);
        free(names[i]);
    }
    return a;
}

void disclosure_add(const char *root, json_t *sys) {
    json_object_set_new(sys, "dmi", dmi_json(root, sys));
    dimms(root, sys);
    json_object_set_new(sys, "cpu_settings", cpu_settings(root));
    json_object_set_new(sys, "kernel_settings", kernel_settings(root));
    json_object_set_new(sys, "nics", nics(root));
}
