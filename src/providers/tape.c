/* SCSI Tape (issue 17, node_exporter's tapestats): one instance per
 * /sys/class/scsi_tape/stN, named stN, id N.  The driver makes eight device
 * nodes per drive (stN, stNl, stNm, stNa and their nstN... no-rewind twins)
 * sharing one set of statistics: only the plain stN entries are instances.
 *
 * stats/ holds one decimal per file (drivers/scsi/st_sysfs, Documentation/
 * scsi/st.rst "Sysfs Statistics for SCSI Tape Devices", Linux >= 4.2):
 * read_byte_cnt, read_cnt, read_ns, write_byte_cnt, write_cnt, write_ns,
 * other_cnt, io_ns (time with any I/O outstanding), in_flight and resid_cnt
 * (reads or writes that ended with a residual).  The _ns times become
 * 100 ns ticks for the % time and average counters.  An older kernel without
 * stats/, a file that is unreadable or not a non-negative decimal, leaves
 * its counters unset; no tape drive is zero instances.  Files are kept open
 * and read with one pread each; the class is listed at each collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "sysattr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* the stats/ files, in the order of the fds below */
enum { F_RBYTES, F_RCNT, F_RNS, F_WBYTES, F_WCNT, F_WNS, F_OTHER, F_IONS, F_INFL, F_RESID, NF };
static const char *const files[NF] = {
    "read_byte_cnt", "read_cnt", "read_ns", "write_byte_cnt", "write_cnt", "write_ns",
    "other_cnt", "io_ns", "in_flight", "resid_cnt",
};

enum { C_RBYTES, C_WBYTES, C_READS, C_WRITES, C_OTHER, C_PREAD, C_PWRITE, C_PBUSY,
       C_AREAD, C_AREAD_B, C_AWRITE, C_AWRITE_B, C_INFL, C_RESID, NC };

#define TAPE_ROWS(R) \
    R(C_RBYTES, "Read Bytes/sec", "Bytes read from the tape (stats/read_byte_cnt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_WBYTES, "Write Bytes/sec", "Bytes written to the tape (stats/write_byte_cnt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_READS, "Reads/sec", "Read requests completed (stats/read_cnt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_WRITES, "Writes/sec", "Write requests completed (stats/write_cnt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_OTHER, "Other Operations/sec", "Requests that were neither reads nor writes " \
      "(rewind, space, erase ...; stats/other_cnt).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_PREAD, "% Read Time", "Share of the interval spent waiting for reads " \
      "(stats/read_ns in 100 ns).", \
      PERF_100NSEC_TIMER, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PWRITE, "% Write Time", "Share of the interval spent waiting for writes " \
      "(stats/write_ns in 100 ns).", \
      PERF_100NSEC_TIMER, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PBUSY, "% I/O Time", "Share of the interval with any request outstanding " \
      "(stats/io_ns in 100 ns).", \
      PERF_100NSEC_TIMER, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_AREAD, "Avg. sec/Read", "Mean time of a read over the interval (stats/read_ns " \
      "over stats/read_cnt).", \
      PERF_AVERAGE_TIMER, C_AREAD_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_AREAD_B, "Avg. sec/Read Base", "Reads, the base of Avg. sec/Read (stats/read_cnt).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_AWRITE, "Avg. sec/Write", "Mean time of a write over the interval (stats/write_ns " \
      "over stats/write_cnt).", \
      PERF_AVERAGE_TIMER, C_AWRITE_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_AWRITE_B, "Avg. sec/Write Base", "Writes, the base of Avg. sec/Write " \
      "(stats/write_cnt).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_INFL, "Requests In Flight", "Requests issued to the drive and not yet completed " \
      "(stats/in_flight).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_RESID, "Residual Transfers", "Reads and writes that ended with a residual (fewer " \
      "bytes than asked; stats/resid_cnt), since the driver was loaded.", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND())

static const pl_counter_def counters[] = { TAPE_ROWS(PL_ROW_COUNTER) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

/* the file each counter reads (the time counters also divide by 100) */
static const uint8_t src_of[NC] = {
    F_RBYTES, F_WBYTES, F_RCNT, F_WCNT, F_OTHER, F_RNS, F_WNS, F_IONS,
    F_RNS, F_RCNT, F_WNS, F_WCNT, F_INFL, F_RESID,
};

#define CLASS "sys/class/scsi_tape"
_Static_assert(NF <= PL_NUMDEV_FILES, "a descriptor per file");

/* st.c numbers its drives below 2^20 (the minor's bits); the other nodes
 * (nstN, stNa ...) do not match "st<N>" */
static int tape_open(pl_env *env, void **state)
{
    return pl_numclass_open(env, CLASS, "st", state);
}

/* stats/<file k> of d as a non-negative decimal: 1 with *v, else 0. */
static int read_stat(const pl_numclass *c, pl_numdev *d, int k, uint64_t *v)
{
    char rel[40], buf[32];
    int64_t n;
    snprintf(rel, sizeof rel, "stats/%s", files[k]);
    if (pl_numdev_read(c, d, k, rel, buf, sizeof buf) || pl_parse_i64_whole(buf, &n) || n < 0)
        return 0;
    *v = (uint64_t)n;
    return 1;
}

static int tape_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_numclass *c = state;
    int e;
    if ((e = pl_numclass_list(c, snap)) != 0)
        return e;
    for (uint32_t i = 0; i < c->devs.n; i++) {
        pl_numdev *d = (pl_numdev *)c->devs.v + i;
        uint64_t v[NF];
        uint8_t ok[NF] = { 0 }, tried[NF] = { 0 };
        for (uint32_t k = 0; k < NC; k++) {
            int f = src_of[k];
            if (wanted && !wanted[k])
                continue;
            if (!tried[f]) {
                tried[f] = 1;
                ok[f] = (uint8_t)read_stat(c, d, f, &v[f]);
            }
            if (!ok[f])
                continue;
            /* nanoseconds to the 100 ns ticks of the timer counters */
            pl_snap_set(snap, i, k, (f == F_RNS || f == F_WNS || f == F_IONS) ? v[f] / 100 : v[f]);
        }
    }
    return 0;
}

static const pl_provider_ops tape_ops = { tape_open, pl_numclass_close, pl_numclass_list,
                                          tape_collect, NULL, NULL };

const pl_counterset_def pl_tape_def = {
    /* UUIDv5(perflib namespace, "SCSI Tape") 13ef6eb1-2d86-5885-b3de-1db2ceba1aa4 */
    { 0x13ef6eb1, 0x2d86, 0x5885, { 0xb3, 0xde, 0x1d, 0xb2, 0xce, 0xba, 0x1a, 0xa4 } },
    "SCSI Tape",
    "Throughput, requests, busy and average times of each SCSI tape drive, from "
    "/sys/class/scsi_tape/stN/stats (st driver, Linux >= 4.2); no instances without tape "
    "drives.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &tape_ops, 61000, NULL,
};
