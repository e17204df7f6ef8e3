/* MD RAID: the health of each md array, from /proc/mdstat (mdstat.h), a
 * kernel source read once per collect.  Instances are the arrays ("md0",
 * id N of mdN, else 0x40000000 + the array's place in the file); no
 * _Total: health does not add up.  Without the md driver the file is
 * missing and the set has no instances (an error ENOENT naming the file);
 * with md but no array, no instances.
 *
 * State codes: 0 inactive, 1 active, 2 read-only, 3 auto-read-only (active,
 * read-only until the first write).  Sync Action codes: 0 idle, 1 resync
 * (also "repair", which mdstat shows as resync), 2 recovery (rebuilding onto
 * a replacement or spare), 3 reshape, 4 check, 5 resync delayed (waits for
 * another array on the same disks), 6 resync pending (auto-read-only).
 * What mdstat does not show (raid0 and linear have no [n/m]; an idle array
 * has no progress) is unset, never 0; mismatch_cnt is a sysfs file per
 * array (md/mismatch_cnt) and is not read here. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "mdstat.h"

#include <errno.h>
#include <stdlib.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_MD, NSRC };

#define DISKS(R, id, name, what) \
    R(PL_MD_##id, name, what " (/proc/mdstat).", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_MD, PL_MD_##id))

#define MD_ROWS(R) \
    R(PL_MD_STATE, "State", "0 inactive, 1 active, 2 read-only, 3 auto-read-only (/proc/mdstat, " \
      "the word after the array's name).", RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), \
      PL_FIELD(S_MD, PL_MD_STATE)) \
    DISKS(R, DEGRADED, "Degraded Disks", "Devices the array lacks to be whole, 0 when it is: raid " \
          "disks minus those in sync, [n/m]; unset for raid0 and linear") \
    DISKS(R, RAID_DISKS, "Raid Disks", "Devices the array is made of when whole, n of [n/m]") \
    DISKS(R, IN_SYNC, "In Sync Disks", "Devices in sync and working, m of [n/m]") \
    DISKS(R, FAILED, "Failed Disks", "Members marked (F), faulty") \
    DISKS(R, SPARE, "Spare Disks", "Members marked (S), spares") \
    DISKS(R, MEMBERS, "Member Disks", "Members listed on the array's line, whatever their role") \
    R(PL_MD_ACTION, "Sync Action", "0 idle, 1 resync or repair, 2 recovery, 3 reshape, 4 check, " \
      "5 resync delayed, 6 resync pending (/proc/mdstat progress line).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(NONE, 1, GAUGE), PL_FIELD(S_MD, PL_MD_ACTION)) \
    R(PL_MD_DONE, "% Sync Completed", "Share of the running resync, recovery, reshape or check " \
      "done (/proc/mdstat progress line, done over total); unset when idle.", \
      PERF_LARGE_RAW_FRACTION, PL_MD_TOTAL, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_MD, PL_MD_DONE)) \
    R(PL_MD_TOTAL, "% Sync Completed Base", "KiB the running operation covers (/proc/mdstat " \
      "progress line, total), the base of % Sync Completed.", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, \
      0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MD, PL_MD_TOTAL)) \
    R(PL_MD_SIZE, "Size Bytes", "Size of the array in bytes (/proc/mdstat blocks of 1 KiB).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_MD, PL_MD_SIZE)) \
    R(PL_MD_SPEED, "Sync Speed", "Speed of the running operation in bytes per second, the " \
      "kernel's recent average (/proc/mdstat speed=, KiB/s); unset when idle.", RAW, PL_NO_ID, \
      ADV, 0, PL_U(BYTES_PER_SECOND, 1, GAUGE), PL_FIELD(S_MD, PL_MD_SPEED))

static const pl_counter_def counters[] = { MD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { MD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, pl_mdrow) };

#define NC (sizeof counters / sizeof counters[0])

typedef struct md_state {
    pl_env *env;
    pl_ksrc *k;
} md_state;

static void md_close(void *state)
{
    md_state *s = state;
    if (!s)
        return;
    pl_env_unref(s->env);
    free(s);
}

static int md_open(pl_env *env, void **state)
{
    md_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_mdstat))) {
        md_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* N of "mdN" (N < 2^20), else 0x40000000 + the row's place. */
static uint32_t md_id(const char *name, uint32_t n)
{
    uint32_t v = 0;
    const char *p = name + 2;
    if (name[0] != 'm' || name[1] != 'd' || !*p)
        return 0x40000000u + n;
    for (; *p >= '0' && *p <= '9' && v < (1u << 20); p++)
        v = v * 10 + (uint32_t)(*p - '0');
    return *p || v >= (1u << 20) ? 0x40000000u + n : v;
}

static int md_read(md_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_mdtab *t;
    const void *data;
    pl_feed_in in;
    int e;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t n = 0; t && n < t->n; n++) {
        const pl_mdrow *r = (const pl_mdrow *)t->row + n;
        int k = pl_snap_add(snap, r->name, md_id(r->name, n));
        if (k < 0)
            return ENOMEM;
        if (!values)
            continue;
        pl_feed_put(&in, S_MD, r);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    return 0;
}

PL_READ_OPS(md, md_open, md_close, md_read);

const pl_counterset_def pl_mdraid_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xfa12fab1, 0x2280, 0x53dc, { 0xa4, 0x71, 0x68, 0x20, 0xd9, 0xbf, 0x94, 0x60 } },
    "MD RAID",
    "The health of each md (software RAID) array, from /proc/mdstat: state, devices missing, "
    "in sync, failed and spare, the running resync, recovery, reshape or check and its "
    "progress; no instances without arrays.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &md_ops, 39000, NULL,
};
