/* libperflib-provider: the PerfLib V2 provider API over a shared-memory
 * segment (appseg_layout.h).  Definitions and instances are written under
 * the handle's lock; counter updates are one aligned store or atomic add
 * into the mapped file, found through a per-set table from counter id to
 * offset. */
#include "perflib_provider.h"
#include "appseg_layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PUBLIC __attribute__((visibility("default")))
#define PROV_MAGIC 0x50524f56u
#define MAX_ID 498u                      /* perflib's PL_MAX_COUNTER_ID */
#define NO_SLOT 0xFFFFFFFFu
#define SLOT_4 0x40000000u               /* a 4-byte counter */
#define SLOT_REF 0x20000000u             /* a by-reference counter */
#define SLOT_OFF 0x0000FFFFu
#define INITIAL_FILE 65536u
#define RESERVE ((size_t)256 << 20)      /* address space for the file to grow into */
#define NAME8_MAX 1023u

typedef struct pset {
    GUID guid;
    uint32_t ncounters, area, instance_type;
    uint32_t map_n;
    uint32_t map[MAX_ID + 1];            /* counter id -> offset | SLOT_* flags */
    uint32_t *free_off;                  /* deleted records of this set */
    uint32_t nfree, capfree;
} pset;

typedef struct prov {
    uint32_t magic;
    int fd;
    int memfd;                           /* the segment is a sealed memfd, the path a link to it */
    uint8_t *base;
    size_t file_size;
    appseg_hdr *hdr;
    pthread_mutex_t lock;
    uint32_t nsets;
    pset *sets[APPSEG_MAX_SETS];
    char path[PATH_MAX];
} prov;

static _Thread_local ULONG last_error;
static unsigned seg_counter;

PUBLIC ULONG PerfGetLastError(void) { return last_error; }

/* ---- segment file --------------------------------------------------------------- */

static uint64_t self_start_time(void)
{
    char buf[1024];
    unsigned long long st = 0;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    /* after ")": state is field 3, starttime field 22 */
    for (int f = 2; p && f < 22; f++)
        p = strchr(p + 1, ' ');
    if (p)
        sscanf(p + 1, "%llu", &st);
    return st;
}

/* The directory segments go to: $PERFLIB_APPSEG_DIR, $XDG_RUNTIME_DIR/perflib,
 * /run/perflib for root, else /dev/shm/perflib-<uid> (made 0700). */
static int seg_dir(char *out, size_t size)
{
    const char *d = getenv("PERFLIB_APPSEG_DIR"), *x = getenv("XDG_RUNTIME_DIR");
    mode_t mode = 0755;
    if (d && *d) {
        const char *colon = strchr(d, ':');
        snprintf(out, size, "%.*s", colon ? (int)(colon - d) : (int)strlen(d), d);
    } else if (geteuid() == 0) {
        snprintf(out, size, "/run/perflib");
    } else if (x && *x == '/') {
        snprintf(out, size, "%s/perflib", x);
    } else {
        snprintf(out, size, "/dev/shm/perflib-%u", (unsigned)geteuid());
        mode = 0700;
    }
    if (mkdir(out, mode) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

/* The segment's memory: a memfd sealed against shrinking, so that readers
 * may map it without fear of SIGBUS (only this user's processes and root
 * can open it, through /proc/<pid>/fd), or with PERFLIB_APPSEG_FILE a file
 * in the directory, which other users may read (readers pread it).  -1
 * with errno when neither can be made. */
static int seg_fd(prov *p, const char *tmp, mode_t mode)
{
    if (!getenv("PERFLIB_APPSEG_FILE")) {
        int fd = memfd_create("perflib-segment", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd >= 0) {
            p->memfd = 1;
            fchmod(fd, 0600);
            return fd;
        }
    }
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0)
        fchmod(fd, mode);                /* whatever the umask */
    return fd;
}

/* Removes this user's links to the memfds of providers that have exited
 * (a crash leaves its link behind; the memory went with the process). */
static void sweep_links(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char path[PATH_MAX], target[64];
    struct stat st;
    unsigned pid, n;
    size_t sl = strlen(APPSEG_SUFFIX);
    if (!dp)
        return;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= sl || strcmp(de->d_name + len - sl, APPSEG_SUFFIX) != 0 ||
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
            continue;
        ssize_t k = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid == geteuid()
                        ? readlink(path, target, sizeof target - 1) : -1;
        if (k <= 0 || (size_t)k >= sizeof target - 1)
            continue;
        target[k] = '\0';
        if (sscanf(target, "/proc/%u/fd/%u", &pid, &n) == 2 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            unlink(path);
    }
    closedir(dp);
}

/* Puts the written segment where readers look, whole or not at all. */
static int seg_publish(prov *p, const char *tmp)
{
    char target[64];
    if (!p->memfd)
        return rename(tmp, p->path);
    snprintf(target, sizeof target, "/proc/%ld/fd/%d", (long)getpid(), p->fd);
    return symlink(target, p->path);
}

static ULONG seg_create(prov *p, const GUID *g)
{
    char dir[PATH_MAX - 96], tmp[PATH_MAX];
    mode_t mode = getenv("PERFLIB_APPSEG_PRIVATE") ? 0600 : 0644;
    unsigned n = __atomic_fetch_add(&seg_counter, 1, __ATOMIC_RELAXED);
    if (seg_dir(dir, sizeof dir))
        return ERROR_ACCESS_DENIED;
    snprintf(p->path, sizeof p->path, "%s/%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x.%ld.%u" APPSEG_SUFFIX,
             dir, g->Data1, g->Data2, g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3],
             g->Data4[4], g->Data4[5], g->Data4[6], g->Data4[7], (long)getpid(), n);
    snprintf(tmp, sizeof tmp, "%s/.new.%ld.%u", dir, (long)getpid(), n);
    p->fd = seg_fd(p, tmp, mode);
    if (p->fd < 0)
        return ERROR_ACCESS_DENIED;
    if (p->memfd)
        sweep_links(dir);
    p->base = MAP_FAILED;
    if (ftruncate(p->fd, INITIAL_FILE) == 0 && (!p->memfd || fcntl(p->fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0))
        p->base = mmap(NULL, RESERVE, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
    if (p->base == MAP_FAILED) {
        if (!p->memfd)
            unlink(tmp);
        close(p->fd);
        return ERROR_OUTOFMEMORY;
    }
    p->file_size = INITIAL_FILE;
    p->hdr = (appseg_hdr *)p->base;
    p->hdr->magic = APPSEG_MAGIC;
    p->hdr->version = APPSEG_VERSION;
    p->hdr->hdr_size = APPSEG_HDR_SIZE;
    p->hdr->size = APPSEG_HDR_SIZE;
    p->hdr->start_time = self_start_time();
    p->hdr->pid = (uint32_t)getpid();
    memcpy(&p->hdr->provider, g, sizeof p->hdr->provider);
    if (seg_publish(p, tmp) != 0) {
        if (!p->memfd)
            unlink(tmp);
        munmap(p->base, RESERVE);
        close(p->fd);
        return ERROR_ACCESS_DENIED;
    }
    return ERROR_SUCCESS;
}

/* Room for n more bytes at the end: the file grows (never the mapping). */
static int seg_reserve(prov *p, size_t n)
{
    size_t need = p->hdr->size + n, ns = p->file_size;
    if (need > RESERVE)
        return ENOSPC;
    while (ns < need)
        ns *= 2;
    if (ns > RESERVE)
        ns = RESERVE;
    if (ns != p->file_size) {
        if (ftruncate(p->fd, (off_t)ns) != 0)
            return errno;
        p->file_size = ns;
    }
    return 0;
}

/* The header's generation is a sequence lock over identities: odd while a
 * set or an instance comes or goes (under p->lock), so that a reader that
 * finds the same even value before and after loading values knows no record
 * changed hands meanwhile (appseg_live.c). */
static void gen_begin(prov *p)
{
    __atomic_store_n(&p->hdr->generation, p->hdr->generation + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void gen_end(prov *p)
{
    __atomic_store_n(&p->hdr->generation, p->hdr->generation + 1, __ATOMIC_RELEASE);
}

/* A record changes: head and tail odd, then the body may be written. */
static void rec_begin(appseg_rec *r, uint64_t *tail)
{
    uint64_t s = __atomic_load_n(&r->seq, __ATOMIC_RELAXED) | 1u;
    __atomic_store_n(&r->seq, s, __ATOMIC_RELAXED);
    __atomic_store_n(tail, s, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void rec_end(appseg_rec *r, uint64_t *tail)
{
    uint64_t s = __atomic_load_n(&r->seq, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(tail, s, __ATOMIC_RELEASE);
    __atomic_store_n(&r->seq, s, __ATOMIC_RELEASE);
}

static uint64_t *rec_tail(appseg_rec *r) { return (uint64_t *)((uint8_t *)r + r->size - 8); }

/* ---- start and stop ---------------------------------------------------------------- */

PUBLIC ULONG PerfStartProviderEx(LPGUID ProviderGuid, PPERF_PROVIDER_CONTEXT ctx, PHANDLE phProvider)
{
    prov *p;
    ULONG e;
    if (!ProviderGuid || !phProvider || (ctx && ctx->ContextSize == 0))
        return ERROR_INVALID_PARAMETER;
    p = calloc(1, sizeof *p);
    if (!p)
        return ERROR_OUTOFMEMORY;
    e = seg_create(p, ProviderGuid);
    if (e) {
        free(p);
        return e;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->magic = PROV_MAGIC;
    *phProvider = p;
    return ERROR_SUCCESS;
}

PUBLIC ULONG PerfStartProvider(LPGUID ProviderGuid, PERFLIBREQUEST ControlCallback, HANDLE *phProvider)
{
    (void)ControlCallback;               /* readers never call back into the provider */
    return PerfStartProviderEx(ProviderGuid, NULL, phProvider);
}

PUBLIC ULONG PerfStopProvider(HANDLE hProvider)
{
    prov *p = hProvider;
    if (!p || p->magic != PROV_MAGIC)
        return ERROR_INVALID_PARAMETER;
    p->magic = 0;
    __atomic_fetch_or(&p->hdr->flags, APPSEG_FLAG_STOPPED, __ATOMIC_RELEASE);
    unlink(p->path);
    munmap(p->base, RESERVE);
    close(p->fd);
    for (uint32_t i = 0; i < p->nsets; i++) {
        free(p->sets[i]->free_off);
        free(p->sets[i]);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
    return ERROR_SUCCESS;
}

PUBLIC const char *PerfProviderSegmentPath(HANDLE hProvider)
{
    prov *p = hProvider;
    return p && p->magic == PROV_MAGIC ? p->path : NULL;
}

/* ---- counter sets -------------------------------------------------------------------- */

static pset *find_set(prov *p, const GUID *g)
{
    for (uint32_t i = 0; i < p->nsets; i++)
        if (memcmp(&p->sets[i]->guid, g, sizeof *g) == 0)
            return p->sets[i];
    return NULL;
}

/* The template's counters: sizes, alignment, no overlap, ids unique and in
 * range; fills s->map and s->area. */
static ULONG check_counters(const PERF_COUNTER_INFO *c, uint32_t n, pset *s)
{
    uint32_t end = 0;
    for (uint32_t i = 0; i <= MAX_ID; i++)
        s->map[i] = NO_SLOT;
    for (uint32_t i = 0; i < n; i++) {
        int ref = (c[i].Attrib & PERF_ATTRIB_BY_REFERENCE) != 0;
        uint32_t size = c[i].Size;
        if (c[i].CounterId > MAX_ID || s->map[c[i].CounterId] != NO_SLOT || (size != 4 && size != 8) ||
            (ref && size != 8) || c[i].Offset % size || c[i].Offset > 0x8000u || c[i].Scale < -10 ||
            c[i].Scale > 10)
            return ERROR_INVALID_PARAMETER;
        for (uint32_t j = 0; j < i; j++)
            if (c[i].Offset < c[j].Offset + c[j].Size && c[j].Offset < c[i].Offset + size)
                return ERROR_INVALID_PARAMETER;
        s->map[c[i].CounterId] = c[i].Offset | (size == 4 ? SLOT_4 : 0) | (ref ? SLOT_REF : 0);
        if (c[i].CounterId + 1 > s->map_n)
            s->map_n = c[i].CounterId + 1;
        if (c[i].Offset + size > end)
            end = c[i].Offset + size;
    }
    s->area = (end + 7u) & ~7u;
    return ERROR_SUCCESS;
}

static void copy_text(char *dst, size_t size, const char *src)
{
    if (src)
        snprintf(dst, size, "%s", src);
}

static void write_set(appseg_set *r, const PERF_COUNTERSET_INFO *t, const pset *s, uint32_t ordinal,
                      const PERFLIB_COUNTERSET_NAMES *nm)
{
    const PERF_COUNTER_INFO *c = (const PERF_COUNTER_INFO *)(t + 1);
    appseg_counter *out = (appseg_counter *)(r + 1);
    const GUID *g = &t->CounterSetGuid;
    memcpy(&r->guid, g, sizeof r->guid);
    r->ordinal = ordinal;
    r->instance_type = s->instance_type;
    r->ncounters = s->ncounters;
    r->area = s->area;
    snprintf(r->name, sizeof r->name, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->Data1, g->Data2,
             g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
             g->Data4[6], g->Data4[7]);
    if (nm)
        copy_text(r->name, sizeof r->name, nm->Name), copy_text(r->help, sizeof r->help, nm->Help);
    for (uint32_t i = 0; i < s->ncounters; i++) {
        out[i].id = c[i].CounterId;
        out[i].type = c[i].Type;
        out[i].attrib = c[i].Attrib;
        out[i].size = c[i].Size;
        out[i].detail = c[i].DetailLevel;
        out[i].scale = c[i].Scale;
        out[i].offset = c[i].Offset;
        snprintf(out[i].name, sizeof out[i].name, "Counter %u", c[i].CounterId);
        if (nm && nm->CounterNames)
            copy_text(out[i].name, sizeof out[i].name, nm->CounterNames[i]);
        if (nm && nm->CounterHelp)
            copy_text(out[i].help, sizeof out[i].help, nm->CounterHelp[i]);
        if (nm && nm->CounterUnits)
            copy_text(out[i].unit, sizeof out[i].unit, nm->CounterUnits[i]);
        if (nm && nm->CounterSemantics)
            copy_text(out[i].semantics, sizeof out[i].semantics, nm->CounterSemantics[i]);
    }
}

static ULONG add_set(prov *p, PPERF_COUNTERSET_INFO t, const PERFLIB_COUNTERSET_NAMES *nm)
{
    uint32_t n = t->NumCounters, size = (uint32_t)APPSEG_SET_REC_SIZE(n);
    pset *s;
    ULONG e;
    if (find_set(p, &t->CounterSetGuid))
        return ERROR_ALREADY_EXISTS;
    if (p->nsets == APPSEG_MAX_SETS)
        return ERROR_NOT_ENOUGH_MEMORY;
    s = calloc(1, sizeof *s);
    if (!s)
        return ERROR_OUTOFMEMORY;
    s->guid = t->CounterSetGuid;
    s->ncounters = n;
    s->instance_type = (t->InstanceType & 2u) ? PERF_COUNTERSET_MULTI_INSTANCES : PERF_COUNTERSET_SINGLE_INSTANCE;
    e = check_counters((const PERF_COUNTER_INFO *)(t + 1), n, s);
    if (!e && seg_reserve(p, size))
        e = ERROR_OUTOFMEMORY;
    if (e) {
        free(s);
        return e;
    }
    appseg_set *r = (appseg_set *)(p->base + p->hdr->size);
    r->rec.size = size;
    gen_begin(p);
    rec_begin(&r->rec, rec_tail(&r->rec));
    r->rec.kind = APPSEG_KIND_SET;
    write_set(r, t, s, p->nsets, nm);
    rec_end(&r->rec, rec_tail(&r->rec));
    p->sets[p->nsets++] = s;
    __atomic_store_n(&p->hdr->nsets, p->nsets, __ATOMIC_RELEASE);
    __atomic_store_n(&p->hdr->size, p->hdr->size + size, __ATOMIC_RELEASE);
    gen_end(p);
    return ERROR_SUCCESS;
}

PUBLIC ULONG PerfSetCounterSetInfoEx(HANDLE hProvider, PPERF_COUNTERSET_INFO t, ULONG dwTemplateSize,
                                     const PERFLIB_COUNTERSET_NAMES *names)
{
    prov *p = hProvider;
    ULONG e;
    if (!p || p->magic != PROV_MAGIC || !t || dwTemplateSize < sizeof *t || t->NumCounters == 0 ||
        t->NumCounters > APPSEG_MAX_COUNTERS ||
        dwTemplateSize < sizeof *t + (size_t)t->NumCounters * sizeof(PERF_COUNTER_INFO))
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&p->lock);
    e = add_set(p, t, names);
    pthread_mutex_unlock(&p->lock);
    return e;
}

PUBLIC ULONG PerfSetCounterSetInfo(HANDLE hProvider, PPERF_COUNTERSET_INFO pTemplate, ULONG dwTemplateSize)
{
    return PerfSetCounterSetInfoEx(hProvider, pTemplate, dwTemplateSize, NULL);
}

/* ---- instances ---------------------------------------------------------------------- */

/* UTF-16 name to UTF-8 (unpaired surrogates become U+FFFD); *units: code
 * units before the NUL.  -1 when the name is too long. */
static long name_to_utf8(const WCHAR *s, char *out, size_t cap, size_t *units)
{
    size_t k = 0, i = 0;
    for (; s[i]; i++) {
        uint32_t c = s[i];
        if (c >= 0xD800 && c < 0xDC00 && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (s[++i] - 0xDC00u);
        else if (c >= 0xD800 && c < 0xE000)
            c = 0xFFFD;
        if (k + 4 >= cap)
            return -1;
        if (c < 0x80) {
            out[k++] = (char)c;
        } else if (c < 0x800) {
            out[k++] = (char)(0xC0 | c >> 6), out[k++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[k++] = (char)(0xE0 | c >> 12), out[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[k++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[k++] = (char)(0xF0 | c >> 18), out[k++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[k++] = (char)(0x80 | ((c >> 6) & 0x3F)), out[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[k] = '\0';
    *units = i;
    return (long)k;
}

/* UTF-8 to UTF-16 (invalid bytes become U+FFFD); units without the NUL, or
 * -1 when too long. */
static long name_to_utf16(const char *s, WCHAR *out, size_t cap)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t k = 0;
    while (*u) {
        uint32_t c = *u++;
        int more = c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (c >= 0x80 && !more) {
            c = 0xFFFD;
        } else if (more) {
            c &= 0x3Fu >> more;
            for (int m = 0; m < more; m++) {
                if ((*u & 0xC0) != 0x80) {
                    c = 0xFFFD;
                    break;
                }
                c = c << 6 | (*u++ & 0x3Fu);
            }
        }
        if (k + 3 >= cap)
            return -1;
        if (c >= 0x10000 && c < 0x110000) {
            out[k++] = (WCHAR)(0xD800 + ((c - 0x10000) >> 10));
            out[k++] = (WCHAR)(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
            out[k++] = (WCHAR)(c >= 0x110000 || (c >= 0xD800 && c < 0xE000) ? 0xFFFD : c);
        }
    }
    out[k] = 0;
    return (long)k;
}

/* A record for an instance of s with room for need bytes: a freed one of
 * the same set that is big enough, else a new one at the end. */
static appseg_rec *take_record(prov *p, pset *s, uint32_t need, int *fresh)
{
    for (uint32_t i = 0; i < s->nfree; i++) {
        appseg_rec *r = (appseg_rec *)(p->base + s->free_off[i]);
        if (r->size >= need) {
            s->free_off[i] = s->free_off[--s->nfree];
            *fresh = 0;
            return r;
        }
    }
    if (seg_reserve(p, need))
        return NULL;
    appseg_rec *r = (appseg_rec *)(p->base + p->hdr->size);
    r->size = need;
    r->seq = 0;
    *fresh = 1;
    return r;
}

static PPERF_COUNTERSET_INSTANCE create(prov *p, const GUID *g, const WCHAR *n16, size_t units, const char *n8,
                                        size_t len8, ULONG id)
{
    pset *s = find_set(p, g);
    uint32_t ordinal = 0, name16 = (uint32_t)(units + 1) * 2, dw, need;
    int fresh;
    if (!s) {
        last_error = ERROR_NOT_FOUND;
        return NULL;
    }
    while (p->sets[ordinal] != s)
        ordinal++;
    dw = (APPSEG_INST_HDR + s->area + name16 + 7u) & ~7u;
    need = (uint32_t)sizeof(appseg_rec) + dw + (((uint32_t)len8 + 1 + 7u) & ~7u) + 8u;
    appseg_rec *r = take_record(p, s, need, &fresh);
    if (!r) {
        last_error = ERROR_OUTOFMEMORY;
        return NULL;
    }
    uint64_t *tail = rec_tail(r);
    gen_begin(p);
    rec_begin(r, tail);
    PERF_COUNTERSET_INSTANCE *inst = (PERF_COUNTERSET_INSTANCE *)(r + 1);
    memset(inst, 0, (size_t)((uint8_t *)tail - (uint8_t *)inst));
    inst->CounterSetGuid = *g;
    inst->dwSize = dw;
    inst->InstanceId = id;
    inst->InstanceNameOffset = APPSEG_INST_HDR + s->area;
    inst->InstanceNameSize = name16;
    memcpy((uint8_t *)inst + inst->InstanceNameOffset, n16, name16);
    r->name8_off = (uint32_t)sizeof(appseg_rec) + dw;
    r->name8_len = (uint32_t)len8;
    memcpy((uint8_t *)r + r->name8_off, n8, len8 + 1);
    r->kind = ordinal;
    rec_end(r, tail);
    if (fresh)
        __atomic_store_n(&p->hdr->size, p->hdr->size + need, __ATOMIC_RELEASE);
    gen_end(p);
    last_error = ERROR_SUCCESS;
    return inst;
}

static int check_handle(prov *p, const GUID *g, const void *name)
{
    if (!p || p->magic != PROV_MAGIC || !g) {
        last_error = ERROR_INVALID_PARAMETER;
        return 0;
    }
    if (!find_set(p, g)) {
        last_error = ERROR_NOT_FOUND;    /* before the name, as Windows checks */
        return 0;
    }
    if (!name) {
        last_error = ERROR_INVALID_PARAMETER;
        return 0;
    }
    return 1;
}

PUBLIC PPERF_COUNTERSET_INSTANCE PerfCreateInstance(HANDLE hProvider, LPCGUID CounterSetGuid,
                                                    PCWSTR szInstanceName, ULONG dwInstance)
{
    prov *p = hProvider;
    char n8[NAME8_MAX + 1];
    size_t units;
    long len8;
    PPERF_COUNTERSET_INSTANCE inst;
    if (!check_handle(p, CounterSetGuid, szInstanceName))
        return NULL;
    len8 = name_to_utf8(szInstanceName, n8, sizeof n8, &units);
    if (len8 < 0) {
        last_error = ERROR_INVALID_PARAMETER;
        return NULL;
    }
    pthread_mutex_lock(&p->lock);
    inst = create(p, CounterSetGuid, szInstanceName, units, n8, (size_t)len8, dwInstance);
    pthread_mutex_unlock(&p->lock);
    return inst;
}

PUBLIC PPERF_COUNTERSET_INSTANCE PerfCreateInstanceUtf8(HANDLE hProvider, LPCGUID CounterSetGuid, const char *name,
                                                        ULONG dwInstance)
{
    prov *p = hProvider;
    WCHAR n16[NAME8_MAX + 1];
    long units;
    PPERF_COUNTERSET_INSTANCE inst;
    if (!check_handle(p, CounterSetGuid, name))
        return NULL;
    units = name_to_utf16(name, n16, sizeof n16 / sizeof *n16);
    if (units < 0 || strlen(name) > NAME8_MAX) {
        last_error = ERROR_INVALID_PARAMETER;
        return NULL;
    }
    pthread_mutex_lock(&p->lock);
    inst = create(p, CounterSetGuid, n16, (size_t)units, name, strlen(name), dwInstance);
    pthread_mutex_unlock(&p->lock);
    return inst;
}

/* The record of an instance this handle made, or NULL. */
static appseg_rec *inst_rec(prov *p, PPERF_COUNTERSET_INSTANCE inst)
{
    if (!inst)
        return NULL;
    uint8_t *r = (uint8_t *)inst - sizeof(appseg_rec);
    if (r < p->base + APPSEG_HDR_SIZE || r >= p->base + p->hdr->size || (size_t)(r - p->base) % 8 ||
        ((appseg_rec *)r)->kind >= p->nsets)
        return NULL;
    return (appseg_rec *)r;
}

PUBLIC ULONG PerfDeleteInstance(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE InstanceBlock)
{
    prov *p = hProvider;
    appseg_rec *r;
    ULONG e = ERROR_SUCCESS;
    if (!p || p->magic != PROV_MAGIC || !InstanceBlock)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&p->lock);
    r = inst_rec(p, InstanceBlock);
    pset *s = r ? p->sets[r->kind] : NULL;
    if (!s) {
        e = ERROR_NOT_FOUND;
    } else if (s->nfree == s->capfree) {
        uint32_t nc = s->capfree ? s->capfree * 2 : 16;
        uint32_t *f = realloc(s->free_off, nc * sizeof *f);
        if (f)
            s->free_off = f, s->capfree = nc;
        else
            e = ERROR_OUTOFMEMORY;
    }
    if (!e) {
        uint64_t *tail = rec_tail(r);
        gen_begin(p);
        rec_begin(r, tail);
        r->kind = APPSEG_KIND_FREE;
        rec_end(r, tail);
        gen_end(p);
        s->free_off[s->nfree++] = (uint32_t)((uint8_t *)r - p->base);
    }
    pthread_mutex_unlock(&p->lock);
    return e;
}

/* ---- updates: one table look-up and one store ---------------------------------------- */

/* The slot of counter id in inst, or NULL; *flags: SLOT_* bits. */
static inline uint8_t *slot(HANDLE h, PPERF_COUNTERSET_INSTANCE inst, ULONG id, uint32_t *flags)
{
    const prov *p = h;
    if (__builtin_expect(!p || !inst, 0))
        return NULL;
    uint32_t k = ((const appseg_rec *)inst - 1)->kind;
    if (__builtin_expect(k >= p->nsets, 0))
        return NULL;
    const pset *s = p->sets[k];
    if (__builtin_expect(id >= s->map_n || s->map[id] == NO_SLOT, 0))
        return NULL;
    *flags = s->map[id];
    return (uint8_t *)(inst + 1) + (*flags & SLOT_OFF);
}

/* A store, or an atomic add as Windows' interlocked updates (threads may
 * share an instance); add is a constant where this is inlined. */
static inline ULONG update(HANDLE h, PPERF_COUNTERSET_INSTANCE inst, ULONG id, uint64_t v, int add)
{
    uint32_t f = 0;
    uint8_t *p = slot(h, inst, id, &f);
    if (!p)
        return ERROR_NOT_FOUND;
    if (f & SLOT_REF)
        return ERROR_INVALID_PARAMETER;
    if ((f & SLOT_4) && add)
        __atomic_fetch_add((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_RELAXED);
    else if (f & SLOT_4)
        __atomic_store_n((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_RELAXED);
    else if (add)
        __atomic_fetch_add((uint64_t *)(void *)p, v, __ATOMIC_RELAXED);
    else
        __atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELAXED);
    return ERROR_SUCCESS;
}

#define set_value(h, i, id, v) update(h, i, id, v, 0)
#define add_value(h, i, id, v) update(h, i, id, v, 1)

PUBLIC ULONG PerfSetULongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONG v)
{
    return set_value(h, i, id, v);
}
PUBLIC ULONG PerfSetULongLongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONGLONG v)
{
    return set_value(h, i, id, v);
}
PUBLIC ULONG PerfIncrementULongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONG v)
{
    return add_value(h, i, id, v);
}
PUBLIC ULONG PerfIncrementULongLongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONGLONG v)
{
    return add_value(h, i, id, v);
}
PUBLIC ULONG PerfDecrementULongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONG v)
{
    return add_value(h, i, id, 0u - (uint64_t)v);
}
PUBLIC ULONG PerfDecrementULongLongCounterValue(HANDLE h, PPERF_COUNTERSET_INSTANCE i, ULONG id, ULONGLONG v)
{
    return add_value(h, i, id, 0u - v);
}

PUBLIC ULONG PerfSetCounterRefValue(HANDLE h, PPERF_COUNTERSET_INSTANCE inst, ULONG id, PVOID lpAddr)
{
    uint32_t f = 0;
    uint8_t *p = slot(h, inst, id, &f);
    if (!p)
        return ERROR_NOT_FOUND;
    if (!(f & SLOT_REF))
        return ERROR_INVALID_PARAMETER;
    __atomic_store_n((uint64_t *)(void *)p, (uint64_t)(uintptr_t)lpAddr, __ATOMIC_RELAXED);
    return ERROR_SUCCESS;
}
