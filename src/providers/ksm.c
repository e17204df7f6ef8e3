/* KSM (single instance): kernel samepage merging, from the attributes of
 * /sys/kernel/mm/ksm (ksm.h), each a kernel source read once per collect
 * and only for the counters that need it.  A set made only of rows
 * (pl_rowset_ops): nothing here but the rows and their derives.
 *
 * pages_sharing is the memory KSM saves (the pages that point at a shared
 * copy); pages_shared the copies themselves.  Without CONFIG_KSM no file
 * exists and the set fails with ENOENT; a file a kernel does not have
 * leaves its counter unset. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "ksm.h"

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_SHARED, S_SHARING, S_UNSHARED, S_VOLATILE, S_ZERO, S_FULL_SCANS, S_SCANNED, S_RUN, NSRC };

/* Pages of source s in bytes (in->ctx is the pl_env: pl_rowset_ops). */
static int pages(pl_feed_in *in, unsigned s, uint64_t *v)
{
    uint64_t n;
    return pl_feed_field(in, s, 0, &n) && pl_mul_ok(n, (uint64_t)pl_env_page_size(in->ctx), v);
}

#define PAGES_FN(fn, s) \
    static int fn(pl_feed_in *in, uint64_t *v) { return pages(in, s, v); }
PAGES_FN(shared_bytes, S_SHARED)
PAGES_FN(sharing_bytes, S_SHARING)
PAGES_FN(unshared_bytes, S_UNSHARED)
PAGES_FN(volatile_bytes, S_VOLATILE)
PAGES_FN(zero_bytes, S_ZERO)

#define BYTES(R, id, name, s, fn, det, file, what) \
    R(id, name, what ", in bytes (/sys/kernel/mm/ksm/" file " x the page size).", LRAW, PL_NO_ID, \
      det, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(s), fn))

#define KSM_ROWS(R) \
    BYTES(R, 0, "Sharing Bytes", S_SHARING, sharing_bytes, NOV, "pages_sharing", \
          "Memory KSM saves: the pages that map a shared copy instead of their own") \
    BYTES(R, 1, "Shared Bytes", S_SHARED, shared_bytes, NOV, "pages_shared", \
          "The shared copies KSM keeps") \
    BYTES(R, 2, "Unshared Bytes", S_UNSHARED, unshared_bytes, ADV, "pages_unshared", \
          "Pages KSM checks for merging that are unique so far") \
    BYTES(R, 3, "Volatile Bytes", S_VOLATILE, volatile_bytes, ADV, "pages_volatile", \
          "Pages that change too fast to be merged") \
    BYTES(R, 4, "Zero Pages Bytes", S_ZERO, zero_bytes, ADV, "ksm_zero_pages", \
          "Empty pages merged with the kernel's zero page (use_zero_pages; 6.5 and later)") \
    R(5, "Full Scans", "Complete passes of KSM over the mergeable memory since it started " \
      "(/sys/kernel/mm/ksm/full_scans).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_FULL_SCANS, 0)) \
    R(6, "Pages Scanned/sec", "Pages KSM scanned per second (/sys/kernel/mm/ksm/pages_scanned; " \
      "6.7 and later).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_SCANNED, 0)) \
    R(7, "Run State", "KSM's mode: 0 stopped, 1 merging, 2 unmerging everything " \
      "(/sys/kernel/mm/ksm/run).", LRAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), \
      PL_FIELD(S_RUN, 0))

static const pl_counter_def counters[] = { KSM_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { KSM_ROWS(PL_ROW_FEED) };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_ksm_shared, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_sharing, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_unshared, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_volatile, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_zero, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_full_scans, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_scanned, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ksm_run, pl_sysnum),
};

static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_ksm_def = {
    /* UUIDv5(perflib namespace, "KSM") */
    { 0x28742517, 0xcd0f, 0x5d81, { 0x9a, 0x8d, 0xb9, 0x0a, 0x1a, 0x6d, 0x85, 0xcc } },
    "KSM",
    "Kernel samepage merging of the whole machine, from /sys/kernel/mm/ksm: the memory it "
    "saves, the copies it keeps and its scanning; absent without CONFIG_KSM.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 33000, &rowset,
};
