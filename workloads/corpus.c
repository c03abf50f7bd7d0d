/* corpus.c -- `./harness corpus fetch`: the trees the search workload reads,
 * and their manifests.
 *
 * full: Linux from Debian's linux-source-6.1 package (its tarball) and
 * CPython from `apt-get source python3.11`, through a deb-src entry in a
 * private apt configuration that exists only while the command runs. small:
 * CPython plus a subset of Linux, hard-linked from the full trees. tiny: a
 * few MB generated from the seed, with the awkward files real trees contain
 * (binary files, hidden entries, symlinks, CRLF, invalid UTF-8, UTF-16 with
 * a BOM, long lines, deep directories). Each profile gets DIR/<profile>/manifest.json: package
 * version, file count, bytes and a digest over paths and sizes, so two runs
 * can be shown to have searched the same thing. Idempotent. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/util.h"
#include "search.h"
#include "workload.h"

#define TINY_GENERATOR "aops-harness tiny corpus v2" /* v2: UTF-16 files */

void corpus_profile_dir(const struct config *cfg, const struct search_opts *o, char *out,
                        size_t len) {
    snprintf(out, len, "%s/%s", o->corpus_dir, profile_name(cfg->profile));
}

int corpus_check(const struct config *cfg, const struct search_opts *o, char *err, size_t errlen) {
    char dir[4200], path[4300];
    corpus_profile_dir(cfg, o, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(err, errlen, "corpus missing at %s: run `./harness corpus fetch --profile %s%s%s`",
             dir, profile_name(cfg->profile), strcmp(o->corpus_dir, "") ? " --dir " : "",
             o->corpus_dir);
    return -1;
}

json_t *corpus_manifest_json(const struct config *cfg, const struct search_opts *o) {
    char dir[4200], path[4300];
    corpus_profile_dir(cfg, o, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = json_load_file(path, 0, NULL);
    return json_pack("{s:s, s:s, s:s, s:o}", "dir", dir, "profile", profile_name(cfg->profile),
                     "patterns", o->patterns_file, "manifest", m ? m : json_null());
}

/* ---- manifest: files, bytes, digest over sorted (path, size) ---- */

struct entry {
    char *path;
    uint64_t size;
    int regular;
};

static struct {
    struct entry *v;
    size_t n, cap, rootlen;
} scan; /* nftw has no user pointer; used by one call at a time, this file only */

static int scan_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
    (void)f;
    if (flag == FTW_D || flag == FTW_DP)
        return 0;
    if (scan.n == scan.cap) {
        scan.cap = scan.cap ? 2 * scan.cap : 4096;
        scan.v = realloc(scan.v, scan.cap * sizeof *scan.v);
        if (!scan.v)
            return -1;
    }
    const char *rel = path + scan.rootlen + (path[scan.rootlen] == '/');
    scan.v[scan.n++] =
        (struct entry){strdup(rel), (uint64_t)st->st_size, flag == FTW_F && S_ISREG(st->st_mode)};
    return 0;
}

static int entry_cmp(const void *a, const void *b) {
    return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static json_t *tree_manifest(const char *root, const char *source, const char *version) {
    scan.n = 0;
    scan.rootlen = strlen(root);
    if (nftw(root, scan_one, 64, FTW_PHYS) != 0)
        return NULL;
    qsort(scan.v, scan.n, sizeof *scan.v, entry_cmp);
    uint64_t h = 0xcbf29ce484222325ULL, files = 0, bytes = 0;
    for (size_t i = 0; i < scan.n; i++) {
        char sz[32];
        int l = snprintf(sz, sizeof sz, "\t%llu\n", (unsigned long long)scan.v[i].size);
        for (const char *p = scan.v[i].path; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
        for (int k = 0; k < l; k++)
            h = (h ^ (unsigned char)sz[k]) * 0x100000001b3ULL;
        if (scan.v[i].regular)
            files++, bytes += scan.v[i].size;
        free(scan.v[i].path);
    }
    char digest[40];
    snprintf(digest, sizeof digest, "fnv1a64:%016llx", (unsigned long long)h);
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "source", source, "version", version,
                     "files", (json_int_t)files, "bytes", (json_int_t)bytes, "entries",
                     (json_int_t)scan.n, "digest", digest);
}

static int write_manifest(const char *pdir, const char *profile, uint64_t seed,
                          const char *const trees[], const char *const sources[]) {
    json_t *t = json_object();
    for (int i = 0; trees[i]; i++) {
        char root[4300], vfile[4400], version[128] = "";
        snprintf(root, sizeof root, "%s/%s", pdir, trees[i]);
        snprintf(vfile, sizeof vfile, "%s/%s.version", pdir, trees[i]);
        FILE *f = fopen(vfile, "r");
        if (f) {
            if (fgets(version, sizeof version, f))
                version[strcspn(version, "\n")] = 0;
            fclose(f);
        }
        json_t *m = tree_manifest(root, sources[i], version);
        if (!m) {
            fprintf(stderr, "harness corpus: cannot read %s: %s\n", root, strerror(errno));
            json_decref(t);
            return -1;
        }
        json_object_set_new(t, trees[i], m);
    }
    free(scan.v);
    scan.v = NULL, scan.cap = 0;
    json_t *man = json_pack("{s:s, s:o}", "profile", profile, "trees", t);
    if (!strcmp(profile, "tiny")) {
        json_object_set_new(man, "generator", json_string(TINY_GENERATOR));
        json_object_set_new(man, "seed", json_integer((json_int_t)seed));
    }
    char path[4300];
    snprintf(path, sizeof path, "%s/manifest.json", pdir);
    int rc = json_write_atomic(path, man, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(man);
    if (rc == 0)
        return 0;
    fprintf(stderr, "harness corpus: cannot write %s: %s\n", path, strerror(errno));
    return -1;
}

/* ---- tiny: generated ---- */

static const char *const c_idents[] = {"task_struct",   "inode",       "sk_buff",   "net_device",
                                       "page",          "file",        "dentry",    "mm_struct",
                                       "device",        "work_struct", "list_head", "super_block",
                                       "request_queue", "pci_dev",     "bio"};
static const char *const c_funcs[] = {
    "probe", "remove",  "init",   "exit", "alloc",   "free",  "submit", "complete",  "flush",
    "reset", "suspend", "resume", "open", "release", "ioctl", "poll",   "read_page", "write_begin"};
static const char *const c_prefix[] = {"ext4", "btrfs", "tcp",  "udp", "sched",  "kvm", "nvme",
                                       "usb",  "drm",   "mlx5", "xfs", "virtio", "blk", "dma"};
static const char *const words[] = {
    "the",      "buffer",   "lock",    "is",      "held",     "when",    "we",        "return",
    "error",    "free",     "memory",  "device",  "queue",    "request", "timeout",   "retry",
    "callback", "page",     "cache",   "mapping", "race",     "with",    "interrupt", "context",
    "deadlock", "possible", "here",    "must",    "not",      "sleep",   "Straße",    "naïve",
    "café",     "日本語",   "Ünïcödé", "résumé",  "Ελληνικά", "Привет"};
static const char *const py_names[] = {"parse",  "load",    "dump",   "connect", "close",
                                       "read",   "write",   "encode", "decode",  "resolve",
                                       "format", "compile", "walk",   "join",    "split",
                                       "match",  "search",  "update", "copy"};
static const char *const py_classes[] = {"Path",   "Request", "Parser",  "Handler", "Thread",
                                         "Socket", "Decoder", "Counter", "Logger",  "Queue"};

#define PICK(r, a) (a)[rng_below(r, sizeof(a) / sizeof((a)[0]))]

static void sentence(struct rng *r, FILE *f, int n) {
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", PICK(r, words));
}

static void c_line(struct rng *r, FILE *f, const char *nl) {
    const char *pre = PICK(r, c_prefix), *fn = PICK(r, c_funcs), *id = PICK(r, c_idents);
    switch (rng_below(r, 18)) {
    case 0:
        fprintf(f, "static int %s_%s(struct %s *%c)%s{%s", pre, fn, id, id[0], nl, nl);
        break;
    case 1:
        fprintf(f, "\tspin_lock_irqsave(&%c->lock, flags);%s", id[0], nl);
        break;
    case 2:
        fprintf(f, "\tspin_unlock_irqrestore(&%c->lock, flags);%s", id[0], nl);
        break;
    case 3:
        fprintf(f, "\tif (!%c)%s\t\treturn -EINVAL;%s", id[0], nl, nl);
        break;
    case 4:
        fprintf(f, "\t/* TODO: ");
        sentence(r, f, 6);
        fprintf(f, " */%s", nl);
        break;
    case 5:
        fprintf(f, "\tmutex_lock(&%s_mutex);%s", pre, nl);
        break;
    case 6:
        fprintf(f, "\tkfree(%c);%s", id[0], nl);
        break;
    case 7:
        fprintf(f, "\tpr_err(\"%%s: failed to %s %s\\n\", __func__);%s", fn, id, nl);
        break;
    case 8:
        fprintf(f, "EXPORT_SYMBOL_GPL(%s_%s);%s", pre, fn, nl);
        break;
    case 9:
        fprintf(f, "#include <linux/%s.h>%s", pre, nl);
        break;
    case 10:
        fprintf(f, "#define %s_MAX_%s 0x%llx%s", pre, fn, (unsigned long long)rng_below(r, 1 << 20),
                nl);
        break;
    case 11:
        fprintf(f, "\treturn 0;%s}%s%s", nl, nl, nl);
        break;
    case 12:
        fprintf(f, "\t/* FIXME: ");
        sentence(r, f, 8);
        fprintf(f, " */%s", nl);
        break;
    case 13:
        fprintf(f, "\tstruct %s *%s_%s = kmalloc(sizeof(*%c), GFP_KERNEL);%s", id, pre, fn, id[0],
                nl);
        break;
    case 14:
        fprintf(f, "\tret = %s_%s(%c, %llu);%s", pre, fn, id[0],
                (unsigned long long)rng_below(r, 4096), nl);
        break;
    case 15:
        fprintf(f, " * ");
        sentence(r, f, 10);
        fprintf(f, "%s", nl);
        break;
    case 16:
        fprintf(f, "\tgoto out_unlock;%s", nl);
        break;
    default:
        fprintf(f, "\tWARN_ON(%c->refcount < 0);%s", id[0], nl);
        break;
    }
}

static void py_line(struct rng *r, FILE *f, const char *nl) {
    const char *n = PICK(r, py_names), *c = PICK(r, py_classes);
    switch (rng_below(r, 16)) {
    case 0:
        fprintf(f, "class %s%s(object):%s", c, n[0] == 'p' ? "Base" : "", nl);
        break;
    case 1:
        fprintf(f, "    def %s(self, %s=None):%s", n, c[0] == 'P' ? "path" : "data", nl);
        break;
    case 2:
        fprintf(f, "        \"\"\"");
        sentence(r, f, 7);
        fprintf(f, "\"\"\"%s", nl);
        break;
    case 3:
        fprintf(f, "        raise ValueError(\"cannot %s %s\")%s", n, c, nl);
        break;
    case 4:
        fprintf(f, "import %s%s", n, nl);
        break;
    case 5:
        fprintf(f, "from %s import %s%s", n, c, nl);
        break;
    case 6:
        fprintf(f, "        return self._%s%s", n, nl);
        break;
    case 7:
        fprintf(f, "    # FIXME: ");
        sentence(r, f, 5);
        fprintf(f, "%s", nl);
        break;
    case 8:
        fprintf(f, "static PyObject *%s_%s(PyObject *self, PyObject *args)%s", c, n, nl);
        break;
    case 9:
        fprintf(f, "    Py_DECREF(%s);%s", n, nl);
        break;
    case 10:
        fprintf(f, "    if (PyErr_Occurred()) {%s        return NULL;%s    }%s", nl, nl, nl);
        break;
    case 11:
        fprintf(f, "def test_%s_%s(self):%s", n, c, nl);
        break;
    case 12:
        fprintf(f, "        self.assertEqual(%s(%llu), %llu)%s", n,
                (unsigned long long)rng_below(r, 100), (unsigned long long)rng_below(r, 100), nl);
        break;
    case 13:
        fprintf(f, "   :func:`%s.%s` ", c, n);
        sentence(r, f, 6);
        fprintf(f, "%s", nl);
        break;
    case 14:
        fprintf(f, "        async with %s() as %s:%s", c, n, nl);
        break;
    default:
        fprintf(f, "    %s = %s.%s(%s)%s", n, c, n, "*args, **kwargs", nl);
        break;
    }
}

static FILE *create(const char *root, const char *rel) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        fprintf(stderr, "harness corpus: cannot create %s: %s\n", path, strerror(errno));
    return f;
}

static int gen_text(const char *root, const char *rel, struct rng *r, int py, size_t bytes,
                    const char *nl) {
    FILE *f = create(root, rel);
    if (!f)
        return -1;
    while ((size_t)ftell(f) < bytes)
        py ? py_line(r, f, nl) : c_line(r, f, nl);
    return fclose(f);
}

/* One UTF-16 code unit, little or big endian. */
static void put_unit(FILE *f, unsigned u, int be) {
    fputc(be ? (int)(u >> 8) : (int)(u & 0xFF), f);
    fputc(be ? (int)(u & 0xFF) : (int)(u >> 8), f);
}

/* UTF-8 text as UTF-16 (surrogate pairs beyond U+FFFF). */
static void put_utf16(FILE *f, const char *utf8, int be) {
    const unsigned char *s = (const unsigned char *)utf8;
    while (*s) {
        unsigned c = *s, n = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
        c &= n == 0 ? 0x7F : n == 1 ? 0x1F : n == 2 ? 0x0F : 0x07;
        for (unsigned k = 1; k <= n; k++)
            c = c << 6 | (s[k] & 0x3F);
        s += n + 1;
        if (c >= 0x10000) {
            put_unit(f, 0xD800 + ((c - 0x10000) >> 10), be);
            put_unit(f, 0xDC00 + ((c - 0x10000) & 0x3FF), be);
        } else
            put_unit(f, c, be);
    }
}

/* One generated line of code, written as UTF-16LE. */
static void gen_line16(struct rng *r, FILE *f, int py) {
    char *line = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&line, &cap);
    if (!m)
        return;
    py ? py_line(r, m, "\n") : c_line(r, m, "\n");
    fclose(m);
    put_utf16(f, line, 0);
    free(line);
}

/* Files with a UTF-16 BOM, which ripgrep transcodes to UTF-8 and searches
 * as text: both byte orders, CRLF, characters beyond the BMP, unpaired
 * surrogates, an odd last byte, a BOM alone, U+0000 early and past 64 KiB,
 * and one larger than a read with a surrogate pair across reads. */
static int gen_utf16(const char *root, struct rng *r, int py) {
    static const char text[] = "TODO: utf-16 text, spin_lock_irqsave(&x) and def parse(self):\r\n"
                               "Straße naïve café 日本語 Ünïcödé FIXME\n"
                               "beyond the BMP \xF0\x9F\x98\x80 return self._x\n"
                               "EXPORT_SYMBOL_GPL(late) Py_DECREF(x) raise ValueError(\n"
                               "trailing blanks  \nlast line without newline TODO";
    FILE *f;
    int rc = 0;
    for (int be = 0; be < 2; be++) {
        if (!(f = create(root, be ? "Documentation/utf16/be.txt" : "Documentation/utf16/le.txt")))
            return -1;
        put_unit(f, 0xFEFF, be);
        put_utf16(f, text, be);
        rc |= fclose(f);
    }
    /* Unpaired surrogates, then an odd last byte. */
    if (!(f = create(root, "Documentation/utf16/bad.txt")))
        return -1;
    put_unit(f, 0xFEFF, 0);
    put_utf16(f, "lone lead ", 0);
    put_unit(f, 0xD83D, 0);
    put_utf16(f, "TODO x\nlone trail ", 0);
    put_unit(f, 0xDE00, 0);
    put_utf16(f, " FIXME\nlead at the end ", 0);
    put_unit(f, 0xD83D, 0);
    put_utf16(f, "\nodd byte TODO", 0);
    fputc('!', f);
    rc |= fclose(f);
    if (!(f = create(root, "Documentation/utf16/bom_only.txt")))
        return -1;
    put_unit(f, 0xFEFF, 0);
    rc |= fclose(f);
    /* U+0000: binary after transcoding; past 64 KiB of text, a match
     * before it is still listed by -l. */
    if (!(f = create(root, "firmware/utf16_nul.bin")))
        return -1;
    put_unit(f, 0xFEFF, 0);
    put_utf16(f, "TODO: before the NUL\n", 0);
    put_unit(f, 0, 0);
    put_utf16(f, "FIXME after it\n", 0);
    rc |= fclose(f);
    if (!(f = create(root, "firmware/utf16_late_nul.bin")))
        return -1;
    put_unit(f, 0xFEFF, 1);
    put_utf16(f, "TODO: spin_lock_irqsave Py_DECREF\n", 1);
    for (int i = 0; i < 3000; i++)
        put_utf16(f, "0123456789abcdef0123456789abcdef def parse(\n", 1);
    put_unit(f, 0, 1);
    put_utf16(f, "late NUL\n", 1);
    rc |= fclose(f);
    /* Larger than a read (128 KiB): lines of generated code, with a
     * surrogate pair across the first read's end (raw offset 131072). */
    if (!(f = create(root, py ? "Lib/test/utf16_big.py" : "drivers/utf16/big.c")))
        return -1;
    put_unit(f, 0xFEFF, 0);
    while (ftell(f) < 131070 - 400)
        gen_line16(r, f, py);
    while (ftell(f) < 131070)
        put_unit(f, ' ', 0);
    put_utf16(f, "\xF0\x9F\x98\x80 TODO across reads\n", 0);
    for (int i = 0; i < 2000; i++)
        gen_line16(r, f, py);
    rc |= fclose(f);
    return rc ? -1 : 0;
}

/* The awkward files, in both trees so every pattern's tag meets them. */
static int gen_edges(const char *root, struct rng *r, int py) {
    FILE *f;
    int rc = 0;
    /* NUL early: ripgrep stops at once and prints nothing. */
    if (!(f = create(root, "firmware/blob_early.bin")))
        return -1;
    fputs("TODO: mutex_lock(&x) def parse(self):\n", f);
    fputc(0, f);
    for (int i = 0; i < 200; i++)
        py ? py_line(r, f, "\n") : c_line(r, f, "\n");
    rc |= fclose(f);
    /* NUL late (past ripgrep's 64 KiB buffer), a match before it: -c
     * prints nothing, -l lists it. */
    if (!(f = create(root, "firmware/blob_late.bin")))
        return -1;
    fputs("TODO: spin_lock_irqsave Py_DECREF raise ValueError\n", f);
    while (ftell(f) < 150000)
        py ? py_line(r, f, "\n") : c_line(r, f, "\n");
    fputs("\0late NUL\n", f);
    fputc(0, f);
    fputs("kfree(x); return self._parse\n", f);
    rc |= fclose(f);
    /* NUL late and matches only near it: -l does not list it either. */
    if (!(f = create(root, "firmware/blob_late2.bin")))
        return -1;
    for (int i = 0; i < 2000; i++)
        fputs("0123456789abcdef0123456789abcdef0123456789abcdef\n", f);
    fputs("EXPORT_SYMBOL_GPL(late) def parse(self): FIXME\n", f);
    fputc(0, f);
    rc |= fclose(f);
    /* With -P ripgrep reads through its 8 KiB decoder: a match 10 KB before
     * the NUL is listed by -l (a separate read), one 4 KB before it is not
     * (the same read); with a UTF-8 BOM too. */
    static const char *const mids[][2] = {{"firmware/blob_mid.bin", ""},
                                          {"firmware/blob_mid_bom.bin", "\xEF\xBB\xBF"},
                                          {"firmware/blob_mid_near.bin", ""}};
    for (int k = 0; k < 3; k++) {
        if (!(f = create(root, mids[k][0])))
            return -1;
        fputs(mids[k][1], f);
        for (int i = 0; i < (k == 2 ? 1200 : 600); i++)
            fprintf(f, "%05d filler line of text here....\n", i);
        fputs("TODO: FIXME mid-file match\n", f);
        for (int i = 0; i < (k == 2 ? 110 : 280); i++)
            fprintf(f, "%05d filler line of text here....\n", i);
        fputc(0, f);
        fputs("TODO after the NUL\n", f);
        rc |= fclose(f);
    }
    /* Hidden files and directories: skipped. */
    rc |= gen_text(root, ".hidden_notes.c", r, py, 4000, "\n");
    rc |= gen_text(root, ".tmp_versions/cached.c", r, py, 4000, "\n");
    rc |= gen_text(root, "scripts/.config/settings.py", r, py, 3000, "\n");
    /* Empty files. */
    for (int i = 0; i < 3; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "%s/empty%d%s", i ? "include" : "scripts", i, py ? ".py" : ".h");
        if (!(f = create(root, rel)))
            return -1;
        rc |= fclose(f);
    }
    /* Very long lines: one past 64 KiB and one of 600 KB, matches at both ends. */
    if (!(f = create(root, "tools/generated/long_lines.txt")))
        return -1;
    fputs("TODO start ", f);
    for (int i = 0; i < 9000; i++)
        fputs("kfree(x); ", f);
    fputs("FIXME end\nshort line EXPORT_SYMBOL_GPL(y)\n", f);
    for (int i = 0; i < 60000; i++)
        fputs("def parse( ", f);
    fputs("mutex_lock end\n", f);
    rc |= fclose(f);
    /* CRLF line ends: `$` does not match before "\r". */
    rc |= gen_text(root, py ? "PC/windows_crlf.py" : "drivers/crlf/windows_crlf.c", r, py, 20000,
                   "\r\n");
    /* Invalid UTF-8 next to matches, non-ASCII text, a BOM, no final newline. */
    if (!(f = create(root, "Documentation/translations/mixed_encoding.txt")))
        return -1;
    fputs("valid: Straße naïve 日本語 TODO\n", f);
    fputs("latin-1 caf\xe9 TODO spin_lock\n", f);
    fputs("stray \xff\xfe bytes FIXME def parse(\n", f);
    fputs("truncated \xe6\x97 sequence Ünïcödé\n", f);
    fputs("overlong \xc0\xaf and surrogate \xed\xa0\x80 return 0;\n", f);
    fputs("\xc3\x28 TODO at start after invalid\n", f);
    rc |= fclose(f);
    if (!(f = create(root, "Documentation/bom.txt")))
        return -1;
    fputs("\xef\xbb\xbfTODO: first line after a BOM\nsecond TODO\n", f);
    rc |= fclose(f);
    if (!(f = create(root, "scripts/no_final_newline.txt")))
        return -1;
    fputs("first TODO\nlast line FIXME without newline", f);
    rc |= fclose(f);
    if (gen_utf16(root, r, py) < 0)
        return -1;
    /* Deep directories. */
    char deep[2048] = "deep";
    for (int i = 0; i < 40; i++)
        snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "/d%02d", i);
    strcat(deep, py ? "/bottom.py" : "/bottom.c");
    rc |= gen_text(root, deep, r, py, 3000, "\n");
    /* A file past the search buffer (1 MiB), read in pieces. */
    rc |= gen_text(root, py ? "Lib/test/big_generated.py" : "drivers/gpu/big_generated.h", r, py,
                   (size_t)1300 << 10, "\n");
    /* Symlinks to a file, a directory, and nowhere: not followed. */
    char path[8192];
    snprintf(path, sizeof path, "%s/link_to_file.c", root);
    rc |= symlink(py ? "Lib/mod000.py" : "kernel/mod000.c", path);
    snprintf(path, sizeof path, "%s/link_to_dir", root);
    rc |= symlink(py ? "Lib" : "kernel", path);
    snprintf(path, sizeof path, "%s/dangling_link", root);
    rc |= symlink("does/not/exist", path);
    return rc ? -1 : 0;
}

static int gen_tree(const char *root, uint64_t seed, int py) {
    struct rng r;
    rng_seed(&r, seed, py, 0x636f72707573ULL);
    if (mkdir(root, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "harness corpus: cannot create %s: %s\n", root, strerror(errno));
        return -1;
    }
    static const char *const cdirs[] = {"kernel",          "mm",          "fs/ext4",
                                        "net/ipv4",        "drivers/net", "include/linux",
                                        "arch/x86/kernel", "lib"};
    static const char *const pydirs[] = {"Lib",    "Lib/test",    "Objects",     "Modules",
                                         "Python", "Doc/library", "Lib/asyncio", "Parser"};
    int nfiles = py ? 120 : 180;
    for (int i = 0; i < nfiles; i++) {
        char rel[256];
        const char *d = i < 8 ? (py ? pydirs : cdirs)[i] : PICK(&r, cdirs);
        if (py)
            d = i < 8 ? pydirs[i] : PICK(&r, pydirs);
        const char *ext = py ? (strstr(d, "Objects") || strstr(d, "Modules") ||
                                        strstr(d, "Python") || strstr(d, "Parser")
                                    ? ".c"
                                : strstr(d, "Doc") ? ".rst"
                                                   : ".py")
                             : (strstr(d, "include") ? ".h" : ".c");
        snprintf(rel, sizeof rel, "%s/mod%03d%s", d, i, ext);
        if (i == 0) /* the symlinks' target */
            snprintf(rel, sizeof rel, "%s/mod000%s", py ? "Lib" : "kernel", py ? ".py" : ".c");
        if (gen_text(root, rel, &r, py, 2000 + rng_below(&r, 14000), "\n") < 0)
            return -1;
    }
    return gen_edges(root, &r, py);
}

/* The full and small fetches: a constant script; the paths it works on
 * reach it through the environment (AOPS_PDIR, ...), quoted there, so no
 * user input is ever parsed by the shell. */
static int run_sh(const char *script) {
    int rc = system(script);
    return rc == 0 ? 0 : -1;
}

/* rm -rf without a shell (the path is the user's --dir, never to be parsed):
 * depth first, symlinks removed as links, never followed. A missing path is
 * nothing to remove. */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
    (void)st, (void)flag, (void)f;
    if (remove(path) == 0 || errno == ENOENT)
        return 0;
    fprintf(stderr, "harness corpus: cannot remove %s: %s\n", path, strerror(errno));
    return -1;
}

static int remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return 0;
    return nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

static int generate_tiny(const char *pdir, uint64_t seed);

/* The tiny corpus in pdir is this generator's for this seed already. */
static int tiny_up_to_date(const char *pdir, uint64_t seed) {
    char path[4300];
    snprintf(path, sizeof path, "%s/manifest.json", pdir);
    json_t *m = json_load_file(path, 0, NULL);
    const char *gen = json_string_value(json_object_get(m, "generator"));
    int ok = gen && !strcmp(gen, TINY_GENERATOR) &&
             (uint64_t)json_integer_value(json_object_get(m, "seed")) == seed;
    json_decref(m);
    return ok;
}

/* Idempotent, and safe to run several at once (parallel test jobs, pods
 * sharing a volume): one generates under a lock, the others find it done. */
static int fetch_tiny(const char *pdir, uint64_t seed) {
    char lock[4300];
    snprintf(lock, sizeof lock, "%s/.lock", pdir);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        fprintf(stderr, "harness corpus: cannot lock %s: %s\n", lock, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    int rc = tiny_up_to_date(pdir, seed) ? 0 : generate_tiny(pdir, seed);
    close(lfd); /* releases the lock */
    return rc;
}

static int generate_tiny(const char *pdir, uint64_t seed) {
    char root[4300];
    static const char *const old[] = {"linux", "cpython", "manifest.json"};
    for (int k = 0; k < 3; k++) {
        snprintf(root, sizeof root, "%s/%s", pdir, old[k]);
        if (remove_tree(root) < 0)
            return -1;
    }
    snprintf(root, sizeof root, "%s/linux", pdir);
    if (gen_tree(root, seed, 0) < 0)
        return -1;
    snprintf(root, sizeof root, "%s/cpython", pdir);
    if (gen_tree(root, seed, 1) < 0)
        return -1;
    static const char *const trees[] = {"linux", "cpython", NULL};
    static const char *const src[] = {"generated", "generated"};
    return write_manifest(pdir, "tiny", seed, trees, src);
}

/* The real trees: shell, because apt and tar are the ordinary clients. The
 * deb-src entry lives in a temporary apt configuration, removed on exit. */
static const char fetch_full_sh[] =
    "set -eu\n"
    "P=\"$AOPS_PDIR\"; C=\"$AOPS_CACHE\"; mkdir -p \"$P\" \"$C\"\n"
    "if [ ! -d \"$P/linux\" ]; then\n"
    "  cd \"$C\"; ls linux-source-6.1_*.deb >/dev/null 2>&1 || apt-get download linux-source-6.1\n"
    "  deb=$(ls linux-source-6.1_*.deb | sort -V | tail -1)\n"
    "  rm -rf x \"$P/linux.tmp\"; mkdir -p x \"$P/linux.tmp\"; dpkg-deb -x \"$deb\" x\n"
    /* AOPS_LINUX_SUBSET: only those directories (the small profile's, when no full tree is
     * there to hard-link from): the whole stream is still decompressed, but a tenth of it
     * is written. */
    "  sub=''; for d in ${AOPS_LINUX_SUBSET:-}; do sub=\"$sub linux-source-6.1/$d\"; done\n"
    "  echo \"unpacking $deb${AOPS_LINUX_SUBSET:+ (${AOPS_LINUX_SUBSET})}\"\n"
    "  tar -xJf x/usr/src/linux-source-6.1.tar.xz -C \"$P/linux.tmp\" --strip-components=1 $sub\n"
    "  dpkg-deb -f \"$deb\" Version > \"$P/linux.version\"; rm -rf x; mv \"$P/linux.tmp\" "
    "\"$P/linux\"\n"
    "fi\n"
    "if [ ! -d \"$P/cpython\" ]; then\n"
    "  command -v dpkg-source >/dev/null || apt-get install -y dpkg-dev\n"
    "  T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT\n"
    "  mkdir -p \"$T/lists/partial\" \"$T/cache/archives/partial\" \"$T/parts\" \"$T/src\"\n"
    /* The machine's own Debian mirror, main suite only (security sources
     * are not always mirrored), as a deb-src line. */
    "  U=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security "
    "| head -1)\n"
    "  [ -n \"$U\" ] || U=$(sed -n 's/^deb \\(\\[[^]]*\\] \\)\\{0,1\\}\\([^ ]*\\) .*/\\2/p' "
    "/etc/apt/sources.list 2>/dev/null | grep -v security | head -1)\n"
    "  [ -n \"$U\" ] || { echo 'no Debian mirror is configured in /etc/apt' >&2; exit 1; }\n"
    "  . /etc/os-release; echo \"deb-src $U ${VERSION_CODENAME:-bookworm} main\" > "
    "\"$T/sources.list\"\n"
    "  A=\"-o Dir::Etc::SourceList=$T/sources.list -o Dir::Etc::SourceParts=$T/parts -o "
    "Dir::State::Lists=$T/lists -o Dir::Cache=$T/cache\"\n"
    "  apt-get $A update >/dev/null\n"
    "  (cd \"$T/src\" && apt-get $A source python3.11)\n"
    "  d=$(ls -d \"$T\"/src/python3.11-*/ | head -1); v=$(ls \"$T\"/src/*.dsc | sed 's/.*_//; "
    "s/\\.dsc$//')\n"
    "  rm -rf \"$P/cpython.tmp\"; mv \"$d\" \"$P/cpython.tmp\"; echo \"$v\" > "
    "\"$P/cpython.version\"\n"
    "  mv \"$P/cpython.tmp\" \"$P/cpython\"\n"
    "fi\n";

/* small: CPython whole, Linux's core subsystems: hard links to the full trees when
 * those are there, else unpacked straight from the same packages (fetch_full_sh with
 * AOPS_LINUX_SUBSET); the same files either way. */
#define SMALL_LINUX_DIRS "kernel mm fs/ext4 include/linux lib net/ipv4 block"
static const char fetch_small_sh[] =
    "set -eu\n"
    "F=\"$AOPS_FULL\"; P=\"$AOPS_PDIR\"; mkdir -p \"$P\"\n"
    "if [ ! -d \"$P/linux\" ]; then rm -rf \"$P/linux.tmp\"; mkdir -p \"$P/linux.tmp\"\n"
    "  for d in " SMALL_LINUX_DIRS "; do\n"
    "    mkdir -p \"$P/linux.tmp/$(dirname $d)\"; cp -al \"$F/linux/$d\" \"$P/linux.tmp/$d\"; "
    "done\n"
    "  cp \"$F/linux.version\" \"$P/linux.version\"; mv \"$P/linux.tmp\" \"$P/linux\"; fi\n"
    "if [ ! -d \"$P/cpython\" ]; then cp -al \"$F/cpython\" \"$P/cpython.tmp\";\n"
    "  cp \"$F/cpython.version\" \"$P/cpython.version\"; mv \"$P/cpython.tmp\" \"$P/cpython\"; "
    "fi\n";

int corpus_fetch(const struct config *cfg, const struct search_opts *o) {
    const char *dir = o->corpus_dir;
    char pdir[4200], cache[4200], full[4200];
    corpus_profile_dir(cfg, o, pdir, sizeof pdir);
    snprintf(cache, sizeof cache, "%s/.cache", dir);
    snprintf(full, sizeof full, "%s/full", dir);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "harness corpus: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    mkdir(pdir, 0755);
    static const char *const trees[] = {"linux", "cpython", NULL};
    int rc;
    if (cfg->profile == PROFILE_TINY) {
        rc = fetch_tiny(pdir, cfg->seed);
    } else {
        static const char *const src[] = {"debian:linux-source-6.1",
                                          "debian:python3.11 (apt-get source)"};
        static const char *const ssrc[] = {"debian:linux-source-6.1 (" SMALL_LINUX_DIRS ")",
                                           "debian:python3.11 (apt-get source)"};
        char fl[4300], fc[4300];
        snprintf(fl, sizeof fl, "%s/linux", full);
        snprintf(fc, sizeof fc, "%s/cpython", full);
        int have_full = access(fl, F_OK) == 0 && access(fc, F_OK) == 0;
        setenv("AOPS_CACHE", cache, 1);
        if (cfg->profile == PROFILE_SMALL && !have_full) {
            /* Straight into the small profile: no 1.5 GB Linux tree to unpack first. */
            setenv("AOPS_PDIR", pdir, 1);
            setenv("AOPS_LINUX_SUBSET", SMALL_LINUX_DIRS, 1);
            rc = run_sh(fetch_full_sh);
            unsetenv("AOPS_LINUX_SUBSET");
        } else {
            setenv("AOPS_PDIR", full, 1);
            rc = run_sh(fetch_full_sh);
            if (rc == 0)
                rc = write_manifest(full, "full", cfg->seed, trees, src);
            if (rc == 0 && cfg->profile == PROFILE_SMALL) {
                setenv("AOPS_FULL", full, 1);
                setenv("AOPS_PDIR", pdir, 1);
                rc = run_sh(fetch_small_sh);
            }
        }
        if (rc == 0 && cfg->profile == PROFILE_SMALL)
            rc = write_manifest(pdir, "small", cfg->seed, trees, ssrc);
    }
    if (rc < 0) {
        fprintf(stderr, "harness corpus: fetching the %s corpus into %s failed (see above)\n",
                profile_name(cfg->profile), pdir);
        return 1;
    }
    printf("corpus %s ready at %s\n", profile_name(cfg->profile), pdir);
    return 0;
}
