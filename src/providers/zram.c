/* ZRAM (one instance per /sys/block/zramN, named zramN, id N): the
 * compressed RAM block device (Documentation/admin-guide/blockdev/zram.rst,
 * PCP's zram metrics).  disksize; mm_stat's memory figures; io_stat's error
 * and free counts; bd_stat's writeback to a backing device when the kernel
 * has it (CONFIG_ZRAM_WRITEBACK); % Compression Ratio (orig_data_size over
 * compr_data_size: 300 is 3:1) and % Of Memory Limit (mem_used_total over
 * mem_limit, no value without a limit).  comp_algorithm's [selected] one is
 * a text fact.
 *
 * mm_stat grew over kernels (zram.h); a field the line does not have is
 * no_data, as is every field of a line that is not all decimals.  An
 * unreadable file leaves its counters unset.  No zram devices: zero
 * instances.  Files are read with one pread each and kept open. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "sysattr.h"
#include "zram.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* The fields of one device: disksize, mm_stat, io_stat, bd_stat. */
enum { F_DISK, F_MM, F_IO = F_MM + PL_ZMM_FIELDS, F_BD = F_IO + PL_ZIO_FIELDS,
       NF = F_BD + PL_ZBD_FIELDS };
typedef struct zrow {
    uint64_t v[NF];
    uint8_t st[NF];
} zrow;
enum { S_ROW, NSRC };

#define MM(f) PL_FIELD(S_ROW, F_MM + PL_ZMM_##f)
#define IO(f) PL_FIELD(S_ROW, F_IO + PL_ZIO_##f)
#define BD(f) PL_FIELD(S_ROW, F_BD + PL_ZBD_##f)

enum { C_DISK, C_ORIG, C_COMPR, C_USED, C_LIMIT, C_USED_MAX, C_SAME, C_COMPACTED, C_HUGE,
       C_HUGE_SINCE, C_RATIO, C_RATIO_BASE, C_PCT_LIMIT, C_PCT_LIMIT_BASE, C_FREADS, C_FWRITES,
       C_INVALID, C_NOTIFY, C_BD_BYTES, C_BD_READS, C_BD_WRITES, NC };

#define Z_ROWS(R) \
    R(C_DISK, "Disk Size", "Size of the device in bytes (disksize).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, F_DISK)) \
    R(C_ORIG, "Original Data Bytes", "Uncompressed size of the data stored (mm_stat " \
      "orig_data_size).", RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), MM(ORIG)) \
    R(C_COMPR, "Compressed Data Bytes", "Compressed size of the data stored (mm_stat " \
      "compr_data_size).", RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), MM(COMPR)) \
    R(C_USED, "Memory Used Bytes", "Memory the device uses, with allocator overhead (mm_stat " \
      "mem_used_total).", RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), MM(USED)) \
    R(C_LIMIT, "Memory Limit Bytes", "Most memory the device may use, 0 for no limit " \
      "(mm_stat mem_limit).", RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), MM(LIMIT)) \
    R(C_USED_MAX, "Max Memory Used Bytes", "Most memory the device has used (mm_stat " \
      "mem_used_max).", RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), MM(USED_MAX)) \
    R(C_SAME, "Same Pages", "Pages filled with one repeated value, stored without memory " \
      "(mm_stat same_pages).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), MM(SAME)) \
    R(C_COMPACTED, "Pages Compacted/sec", "Pages freed by compaction per second (mm_stat " \
      "pages_compacted).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), MM(COMPACTED)) \
    R(C_HUGE, "Huge Pages", "Pages stored uncompressed because they did not compress " \
      "(mm_stat huge_pages; later kernels).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), MM(HUGE)) \
    R(C_HUGE_SINCE, "Huge Pages Since", "Incompressible pages stored since the device was " \
      "set up (mm_stat huge_pages_since; later kernels).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      MM(HUGE_SINCE)) \
    R(C_RATIO, "% Compression Ratio", "Uncompressed over compressed size as a percentage: 300 " \
      "is 3:1 (mm_stat orig_data_size / compr_data_size).", PERF_LARGE_RAW_FRACTION, \
      C_RATIO_BASE, NOV, 0, PL_U(NONE, 1, GAUGE), MM(ORIG)) \
    R(C_RATIO_BASE, "% Compression Ratio Base", "compr_data_size, the base of % Compression " \
      "Ratio (mm_stat).", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), MM(COMPR)) \
    R(C_PCT_LIMIT, "% Of Memory Limit", "mem_used_total as a percentage of mem_limit; no " \
      "value without a limit (mm_stat).", PERF_LARGE_RAW_FRACTION, C_PCT_LIMIT_BASE, NOV, 0, \
      PL_U(NONE, 1, GAUGE), MM(USED)) \
    R(C_PCT_LIMIT_BASE, "% Of Memory Limit Base", "mem_limit, the base of % Of Memory Limit " \
      "(mm_stat).", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), MM(LIMIT)) \
    R(C_FREADS, "Failed Reads/sec", "Reads that failed per second (io_stat failed_reads).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), IO(FAILED_READS)) \
    R(C_FWRITES, "Failed Writes/sec", "Writes that failed per second (io_stat " \
      "failed_writes).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), IO(FAILED_WRITES)) \
    R(C_INVALID, "Invalid I/O/sec", "Requests not aligned to the device's pages per second " \
      "(io_stat invalid_io).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), IO(INVALID)) \
    R(C_NOTIFY, "Notify Free/sec", "Slots freed because their swap slot was freed, per " \
      "second (io_stat notify_free).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), IO(NOTIFY_FREE)) \
    R(C_BD_BYTES, "Backing Device Bytes", "Data written back to the backing device, in bytes " \
      "(bd_stat bd_count x 4096; CONFIG_ZRAM_WRITEBACK).", RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), \
      BD(COUNT)) \
    R(C_BD_READS, "Backing Reads Bytes/sec", "Bytes read from the backing device per second " \
      "(bd_stat bd_reads x 4096).", BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), BD(READS)) \
    R(C_BD_WRITES, "Backing Writes Bytes/sec", "Bytes written to the backing device per " \
      "second (bd_stat bd_writes x 4096).", BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), \
      BD(WRITES))

static const pl_counter_def counters[] = { Z_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { Z_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, zrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

enum { FD_DISK, FD_MM, FD_IO, FD_BD, FD_ALG, NFD };
static const char *const files[NFD] = { "disksize", "mm_stat", "io_stat", "bd_stat",
                                        "comp_algorithm" };

_Static_assert(NFD <= PL_NUMDEV_FILES, "a pl_numdev keeps every file");

/* The state is a pl_numclass of sys/block's zram<N> entries (sysattr.h):
 * each device's files kept open, read with pl_numdev_read. */
static int z_open(pl_env *env, void **state)
{
    return pl_numclass_open(env, "sys/block", "zram", state);
}

/* File k's decimals into r's fields from first on, scaled by mul; the
 * fields the line lacks stay unset. */
static void take(const pl_numclass *c, pl_numdev *d, int k, zrow *r, int first, int max,
                 uint64_t mul)
{
    char buf[512];
    uint64_t v[PL_ZMM_FIELDS];
    int n;
    if (pl_numdev_read(c, d, k, files[k], buf, sizeof buf) ||
        (n = pl_zram_fields(buf, v, max)) < 0)
        return;
    for (int i = 0; i < n; i++)
        if (pl_mul_ok(v[i], mul, &r->v[first + i]))
            r->st[first + i] = PL_NS_OK;
}

static int z_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_numclass *c = state;
    pl_feed_in in;
    zrow r;
    int e;
    if ((e = pl_numclass_list(c, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < c->devs.n; i++) {
        pl_numdev *d = (pl_numdev *)c->devs.v + i;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        take(c, d, FD_DISK, &r, F_DISK, 1, 1);
        take(c, d, FD_MM, &r, F_MM, PL_ZMM_FIELDS, 1);
        take(c, d, FD_IO, &r, F_IO, PL_ZIO_FIELDS, 1);
        take(c, d, FD_BD, &r, F_BD, PL_ZBD_FIELDS, 4096);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

/* comp_algorithm: "lzo [lz4] zstd" -> the bracketed one. */
static int z_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    const pl_numclass *c = state;
    char buf[256], val[64];
    const char *a, *b;
    unsigned num;
    pl_numdev d;
    int e;
    if (!instance || !pl_entry_number(instance, "zram", 1u << 20, &num))
        return ENOENT;
    memset(&d, 0, sizeof d);
    d.num = num;
    d.fd[FD_ALG] = -1;       /* a record of its own, not kept */
    if ((e = pl_numdev_read(c, &d, FD_ALG, files[FD_ALG], buf, sizeof buf)) == 0 &&
        (a = strchr(buf, '[')) && (b = strchr(a, ']')) && b - a - 1 < (long)sizeof val && b > a + 1) {
        memcpy(val, a + 1, (size_t)(b - a - 1));
        val[b - a - 1] = '\0';
        pl_fact_escape(val, buf, sizeof buf);
        emit(ud, "comp_algorithm", buf);
    }
    if (d.fd[FD_ALG] >= 0)
        close(d.fd[FD_ALG]);
    return e == ENOENT ? ENOENT : 0;     /* no such device; else facts as far as readable */
}

static const pl_provider_ops z_ops = { z_open, pl_numclass_close, pl_numclass_list, z_collect,
                                        NULL, z_info };

const pl_counterset_def pl_zram_def = {
    /* UUIDv5(perflib namespace, "ZRAM") */
    { 0x3bf1727b, 0x440b, 0x5255, { 0x8c, 0x8f, 0x79, 0x2c, 0xe6, 0xf2, 0x63, 0x0b } },
    "ZRAM",
    "Compressed RAM block devices (/sys/block/zram*): size, stored and compressed bytes, "
    "memory used and its limit, compression ratio, failed I/O and writeback; the "
    "compression algorithm as a text fact.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &z_ops, 57000, NULL,
};
