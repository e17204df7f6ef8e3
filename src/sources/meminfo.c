/* /proc/meminfo and /proc/vmstat as kernel sources: see meminfo.h. */
#include "meminfo.h"
#include "pl_provider.h"
#include "srcparse.h"

#include <string.h>

typedef struct mkey {
    const char *key;
    unsigned char len;
} mkey;
#define K(s) { s, sizeof s - 1 }

static const mkey mi_key[PL_MI_N] = {
    K("MemTotal"), K("MemFree"), K("MemAvailable"), K("Buffers"), K("Cached"), K("SwapCached"),
    K("Active"), K("Inactive"), K("Active(anon)"), K("Inactive(anon)"), K("Active(file)"),
    K("Inactive(file)"), K("Unevictable"), K("Mlocked"), K("HighTotal"), K("HighFree"),
    K("LowTotal"), K("LowFree"), K("MmapCopy"), K("SwapTotal"), K("SwapFree"),
    K("Zswap"), K("Zswapped"), K("Dirty"), K("Writeback"), K("AnonPages"), K("Mapped"),
    K("Shmem"), K("KReclaimable"), K("Slab"), K("SReclaimable"), K("SUnreclaim"),
    K("KernelStack"), K("ShadowCallStack"), K("PageTables"), K("SecPageTables"),
    K("NFS_Unstable"), K("Bounce"), K("WritebackTmp"), K("CommitLimit"), K("Committed_AS"),
    K("VmallocTotal"), K("VmallocUsed"), K("VmallocChunk"), K("Percpu"),
    K("HardwareCorrupted"), K("AnonHugePages"), K("ShmemHugePages"), K("ShmemPmdMapped"),
    K("FileHugePages"), K("FilePmdMapped"), K("CmaTotal"), K("CmaFree"), K("Unaccepted"),
    K("Balloon"), K("HugePages_Total"), K("HugePages_Free"), K("HugePages_Rsvd"),
    K("HugePages_Surp"), K("Hugepagesize"), K("Hugetlb"), K("DirectMap4k"), K("DirectMap4M"),
    K("DirectMap2M"), K("DirectMap1G"),
};
_Static_assert(PL_MI_N < 255, "at[] holds key + 1 in a byte");

/* zoned: also <key>_<zone> lines, summed */
static const struct { mkey k; int zoned; } vm_key[PL_VM_N] = {
    {K("pgpgin"), 0}, {K("pgpgout"), 0}, {K("pswpin"), 0}, {K("pswpout"), 0},
    {K("pgfault"), 0}, {K("pgmajfault"), 0}, {K("pgfree"), 0},
    {K("pgscan_kswapd"), 1}, {K("pgscan_direct"), 1},
    {K("pgsteal_kswapd"), 1}, {K("pgsteal_direct"), 1},
    {K("allocstall"), 1}, {K("workingset_refault"), 0},
    {K("workingset_refault_anon"), 0}, {K("workingset_refault_file"), 0},
    {K("oom_kill"), 0},
};

/* Zone suffixes; anything else (pgscan_direct_throttle) is a different counter. */
static const mkey zones[] = { K("dma"), K("dma32"), K("normal"), K("high"), K("movable"), K("device") };

/* ---- meminfo ------------------------------------------------------------------ */

static int mi_is(const char *p, size_t klen, unsigned k)
{
    return mi_key[k].len == klen && memcmp(p, mi_key[k].key, klen) == 0;
}

/* The key of a line whose remembered key did not match: every key, from the
 * one after the last match (the kernel's order). */
static int mi_search(const char *p, size_t klen, unsigned from)
{
    for (unsigned n = 0, k = from % PL_MI_N; n < PL_MI_N; n++, k = k + 1 == PL_MI_N ? 0 : k + 1)
        if (mi_is(p, klen, k))
            return (int)k;
    return -1;
}

int pl_parse_meminfo(const char *buf, size_t len, void *out)
{
    pl_meminfo *m = out;
    const char *end = buf + len, *nl;
    unsigned line = 0, next = 0;
    memset(m->st, PL_NS_ABSENT, sizeof m->st);
    for (const char *p = buf; p < end; p = nl + 1, line++) {
        const char *colon;
        size_t klen;
        int k;
        if (!(nl = memchr(p, '\n', (size_t)(end - p))))
            break;           /* a cut last line is no line */
        colon = memchr(p, ':', (size_t)(nl - p));
        if (!colon) {
            if (line < PL_MI_LINES)
                m->at[line] = 0;
            continue;
        }
        klen = (size_t)(colon - p);
        k = line < PL_MI_LINES ? (int)m->at[line] - 1 : -1;
        if (k < 0 || !mi_is(p, klen, (unsigned)k))
            k = mi_search(p, klen, next);
        if (line < PL_MI_LINES)
            m->at[line] = (uint8_t)(k + 1);
        if (k < 0)
            continue;
        next = (unsigned)k + 1;
        if (m->st[k] == PL_NS_ABSENT)
            m->st[k] = pl_parse_kb_line(colon + 1, &m->v[k]) ? PL_NS_OK : PL_NS_BAD;
    }
    return 0;
}

/* ---- vmstat ------------------------------------------------------------------- */

static int is_zone(const char *s, size_t n)
{
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++)
        if (zones[z].len == n && memcmp(s, zones[z].key, n) == 0)
            return 1;
    return 0;
}

static int vm_is(const char *p, size_t klen, unsigned i)
{
    size_t n = vm_key[i].k.len;
    if (klen < n || p[0] != vm_key[i].k.key[0] || (klen > n && !vm_key[i].zoned) ||
        memcmp(p, vm_key[i].k.key, n) != 0)
        return 0;
    if (klen == n)
        return 1;
    return p[n] == '_' && is_zone(p + n + 1, klen - n - 1);
}

#define VM_NOT_OURS 0xFF    /* at[]: the line held none of our keys */

/* Most lines are nr_*; only these initials can be ours. */
static int vm_initial(char c)
{
    return c == 'p' || c == 'a' || c == 'w' || c == 'o';
}

/* FNV-1a of a key: a line whose key hashes as last time, when it was none
 * of ours, is skipped without a search.  Two keys sharing a 64-bit hash
 * could at worst leave one of ours absent, never take another line's value. */
static uint64_t key_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 0x100000001b3u;
    return h;
}

static int vm_search(const char *p, size_t klen)
{
    if (!vm_initial(*p))
        return -1;
    for (unsigned i = 0; i < PL_VM_N; i++)
        if (vm_is(p, klen, i))
            return (int)i;
    return -1;
}

static void vm_take(pl_vmstat *m, unsigned i, const char *val)
{
    uint64_t v;
    if (!pl_parse_kb_line(val, &v)) {
        m->st[i] = PL_NS_BAD;
    } else if (m->st[i] == PL_NS_ABSENT) {
        m->v[i] = v;
        m->st[i] = PL_NS_OK;
    } else if (vm_key[i].zoned && m->st[i] == PL_NS_OK) {
        if (!pl_add_ok(m->v[i], v, &m->v[i]))
            m->st[i] = PL_NS_BAD;
    }
}

int pl_parse_vmstat(const char *buf, size_t len, void *out)
{
    pl_vmstat *m = out;
    const char *end = buf + len, *nl;
    unsigned line = 0;
    memset(m->st, PL_NS_ABSENT, sizeof m->st);
    for (const char *p = buf; p < end; p = nl + 1, line++) {
        const char *sp;
        int k;
        if (!(nl = memchr(p, '\n', (size_t)(end - p))))
            break;
        sp = memchr(p, ' ', (size_t)(nl - p));
        if (!sp || sp == p) {
            if (line < PL_VM_LINES)
                m->at[line] = 0;
            continue;
        }
        if (!vm_initial(*p)) {   /* nr_*, numa_* ...: cannot be ours */
            if (line < PL_VM_LINES) {
                m->at[line] = VM_NOT_OURS;
                m->other[line] = 0;
            }
            continue;
        }
        if (line < PL_VM_LINES && m->at[line] == VM_NOT_OURS &&
            m->other[line] == key_hash(p, (size_t)(sp - p)))
            continue;        /* the same key as last time, not one of ours: no search */
        k = line < PL_VM_LINES ? (int)m->at[line] - 1 : -1;
        if (k < 0 || k >= PL_VM_N || !vm_is(p, (size_t)(sp - p), (unsigned)k))
            k = vm_search(p, (size_t)(sp - p));
        if (line < PL_VM_LINES) {
            m->at[line] = k >= 0 ? (uint8_t)(k + 1) : VM_NOT_OURS;
            if (k < 0)
                m->other[line] = key_hash(p, (size_t)(sp - p));
        }
        if (k >= 0)
            vm_take(m, (unsigned)k, sp);
    }
    return 0;
}

const pl_ksrc_def pl_ksrc_meminfo = { "proc/meminfo", sizeof(pl_meminfo), PL_KSRC_WHOLE,
                                      pl_parse_meminfo, NULL };
const pl_ksrc_def pl_ksrc_vmstat = { "proc/vmstat", sizeof(pl_vmstat), 0, pl_parse_vmstat, NULL };

/* One "low <pages>" line's number, q just past "low": 1 with *v. */
static int zone_low(const char *q, const char *nl, uint64_t *v)
{
    if (pl_src_num(&q, nl, v))
        return 0;
    while (q < nl && pl_src_blank(*q))
        q++;
    if (nl - q >= 2 && q[0] == 'k' && q[1] == 'B')
        q += 2;
    while (q < nl && pl_src_blank(*q))
        q++;
    return q == nl;
}

int pl_parse_zoneinfo(const char *buf, size_t len, void *out)
{
    pl_zoneinfo *z = out;
    const char *end = buf + len, *nl;
    uint64_t sum = 0;
    z->st[PL_ZI_LOW] = PL_NS_OK;
    for (const char *p = buf; p < end; p = nl + 1) {
        uint64_t v;
        if (!(nl = memchr(p, '\n', (size_t)(end - p))))
            break;
        while (p < nl && pl_src_blank(*p))
            p++;
        if (nl - p < 4 || memcmp(p, "low", 3) != 0 || !pl_src_blank(p[3]))
            continue;
        if (!zone_low(p + 3, nl, &v) || v > UINT64_MAX - sum) {
            z->st[PL_ZI_LOW] = PL_NS_BAD;
            return 0;
        }
        sum += v;
    }
    z->v[PL_ZI_LOW] = sum;
    return 0;
}

const pl_ksrc_def pl_ksrc_zoneinfo = { "proc/zoneinfo", sizeof(pl_zoneinfo), 0, pl_parse_zoneinfo,
                                       NULL };
