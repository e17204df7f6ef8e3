/* /proc/diskstats for PhysicalDisk and LogicalDisk: the rows of the
 * machine's diskstats source (diskstats.h, one read and parse per collect
 * for both sets), and over them each set's per-device 32-bit unwrapping of the ms fields, re-registration resets and
 * a _Total that neither falls when a device leaves nor jumps when a mounted
 * partition joins.  Also the I/O rows both sets share (same ids).
 * Private to the disk family (disk.c, logicaldisk.c). */
#ifndef PL_DISK_H
#define PL_DISK_H

#include "pl_provider.h"
#include "pl_rowset.h"
#include "diskstats.h"

/* Published values of one device, in the order of the diskstats fields 4..20,
 * with the ms fields (7, 11, 13, 14, 18, 20) unwrapped to 64 bits, still ms. */
enum {
    DS_RD, DS_RDM, DS_RDS, DS_RDMS, DS_WR, DS_WRM, DS_WRS, DS_WRMS, DS_INFL, DS_IOMS,
    DS_WMS, DS_DC, DS_DCM, DS_DCS, DS_DCMS, DS_FL, DS_FLMS, DS_NV
};
_Static_assert(DS_NV == PL_DS_FIELDS, "a row holds every value");

/* What a device (or _Total) publishes: the row the sets' walk reads, its
 * first nf values present (11, 15 or 17 as the kernel wrote; 0: none). */
typedef struct pl_dsvals {
    int nf;
    uint64_t v[DS_NV];
} pl_dsvals;

/* Source PL_DS_ROW of both sets: the pl_dsvals their collect hands. */
enum { PL_DS_ROW = 0 };
#define PL_DS_NEED PL_BIT(PL_DS_ROW)
#define PL_DS_SRC PL_FEED_SRC_N(NULL, pl_dsvals, v, nf)

/* What the classifying set makes of a device (pl_dsdev.physical), by the
 * set's kind (pl_diskstats_init's classify): PhysicalDisk (PL_DS_DISKS)
 * lists whole disks (in its _Total) and dm-N / mdN volumes (not in it:
 * they sit on whole disks whose I/O _Total already counts); Disk Partition
 * (PL_DS_PARTS) lists partitions. */
enum { PL_DS_NONE, PL_DS_WHOLE, PL_DS_STACKED, PL_DS_PART };
enum { PL_DS_DISKS = 1, PL_DS_PARTS = 2 };

typedef struct pl_dsdev {
    uint32_t major, minor;
    char name[40];
    char label[176];         /* instance name: the name, "dm-0 vg-root" for dm */
    int rotational;          /* queue/rotational when classified, -1 unknown */
    int physical;            /* PL_DS_* (when classified) */
    int seen;                /* in the last read */
    int primed;              /* raw holds a previous read */
    int reset;               /* the last read was a re-registration */
    int member, want;        /* counted in _Total last time / this time */
    uint64_t raw[DS_NV];     /* last good raw fields */
    pl_dsvals pub;           /* published values (ms unwrapped); nf 0: malformed line */
    uint64_t tv[DS_NV];      /* v when last counted in _Total: what it leaves behind */
} pl_dsdev;

typedef struct pl_diskstats {
    pl_ksrc *src;            /* the machine's /proc/diskstats reader */
    int blockfd;             /* sys/block, for classification; -1 if not asked for */
    int classify;            /* 0 (LogicalDisk: every device), PL_DS_DISKS, PL_DS_PARTS */
    int join_offset;         /* members joining after the first total add only their growth */
    int primed;              /* a total was computed */
    pl_dsdev *dev;
    uint32_t ndev, cap;
    uint64_t adj[DS_NV];     /* _Total adjustment (mod 2^64): retired and joined members */
    pl_dsvals total;         /* nf: fields every member had; 0 = some member malformed */
} pl_diskstats;

/* 0, or ENOMEM (the source's reader). */
int pl_diskstats_init(pl_diskstats *d, pl_env *env, int classify, int join_offset);
void pl_diskstats_free(pl_diskstats *d);
/* Takes this collect's rows of /proc/diskstats (read once per collect for
 * every set; an empty file has no devices) and classifies new devices below
 * sys/block when asked.  values = 0: names and ids only, accumulators
 * untouched.  0 or errno; *err_path names the file. */
int pl_diskstats_update(pl_diskstats *d, const pl_env *env, int values, const char **err_path);
/* Device with this major:minor in the last read, or NULL. */
pl_dsdev *pl_diskstats_find(pl_diskstats *d, uint32_t major, uint32_t minor);
/* _Total over the devices whose `want` is set (cleared afterwards). */
void pl_diskstats_total(pl_diskstats *d);

#define PL_DISK_NIO 36
/* The derives of the I/O rows: ms in 100 ns, sectors in bytes, sums; a
 * value and its base are set together or not at all (an absurd count that
 * overflows leaves both unset, never wrapped). */
pl_derive_fn pl_disk_rwt, pl_disk_wt, pl_disk_rdt, pl_disk_wrt, pl_disk_rwt_x, pl_disk_ops_t,
    pl_disk_rd_t, pl_disk_wr_t, pl_disk_rwb, pl_disk_rdb, pl_disk_wrb, pl_disk_rwb_x,
    pl_disk_ops_b, pl_disk_rd_b, pl_disk_wr_b, pl_disk_iot, pl_disk_infl, pl_disk_dcb,
    pl_disk_dct, pl_disk_flt;

#define PL_DISK_TOTAL_ID 0xFFFFFFFEu

/* The I/O rows (ids 0-25 and 32-41, PL_DISK_NIO of them) shared by both
 * sets, as pl_rowset.h rows R(id, name, help, type, base, detail, scale,
 * units, feed), fed by a device's published values (a pl_dsvals handed as
 * source PL_DS_ROW of the set).  SRC names the file in the help texts. */
#define PL_DISK_IO_ROWS(R, SRC) \
    R(0, "% Disk Time", "Sum of the durations of completed reads and writes over the interval, " \
      "so above 100 with parallel requests as on Windows (" SRC " fields 7 + 11, ms).", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rwt)) \
    R(1, "Avg. Disk Queue Length", "Average number of requests queued or in service: the " \
      "weighted time of " SRC " field 14 over the interval, iostat's aqu-sz.", \
      PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wt)) \
    R(2, "% Disk Read Time", "Sum of the durations of completed reads over the interval " \
      "(" SRC " field 7, ms).", PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rdt)) \
    R(3, "Avg. Disk Read Queue Length", "Average number of reads in progress: read time " \
      "over the interval (" SRC " field 7).", PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rdt)) \
    R(4, "% Disk Write Time", "Sum of the durations of completed writes over the interval " \
      "(" SRC " field 11, ms).", PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wrt)) \
    R(5, "Avg. Disk Write Queue Length", "Average number of writes in progress: write time " \
      "over the interval (" SRC " field 11).", PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wrt)) \
    R(6, "Avg. Disk sec/Transfer", "Average time of a read or write in seconds, iostat's " \
      "await (" SRC " fields 7 + 11 over 4 + 8).", PERF_AVERAGE_TIMER, 7, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rwt_x)) \
    R(7, "Avg. Disk sec/Transfer Base", "Completed reads and writes (" SRC " fields 4 + 8), " \
      "the base of Avg. Disk sec/Transfer.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_ops_t)) \
    R(8, "Avg. Disk sec/Read", "Average time of a read in seconds, iostat's r_await " \
      "(" SRC " field 7 over field 4).", PERF_AVERAGE_TIMER, 9, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rdt)) \
    R(9, "Avg. Disk sec/Read Base", "Completed reads (" SRC " field 4), the base of " \
      "Avg. Disk sec/Read.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rd_t)) \
    R(10, "Avg. Disk sec/Write", "Average time of a write in seconds, iostat's w_await " \
      "(" SRC " field 11 over field 8).", PERF_AVERAGE_TIMER, 11, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wrt)) \
    R(11, "Avg. Disk sec/Write Base", "Completed writes (" SRC " field 8), the base of " \
      "Avg. Disk sec/Write.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wr_t)) \
    R(12, "Disk Transfers/sec", "Completed reads and writes per second (" SRC " fields " \
      "4 + 8; discards and flushes are not counted).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_SUM(PL_DS_ROW, DS_RD, DS_WR)) \
    R(13, "Disk Reads/sec", "Completed reads per second (" SRC " field 4).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_RD)) \
    R(14, "Disk Writes/sec", "Completed writes per second (" SRC " field 8).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_WR)) \
    R(15, "Disk Bytes/sec", "Bytes read and written per second (" SRC " fields 6 + 10, " \
      "512-byte sectors).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rwb)) \
    R(16, "Disk Read Bytes/sec", "Bytes read per second (" SRC " field 6, 512-byte " \
      "sectors).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rdb)) \
    R(17, "Disk Write Bytes/sec", "Bytes written per second (" SRC " field 10, 512-byte " \
      "sectors).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wrb)) \
    R(18, "Avg. Disk Bytes/Transfer", "Average size of a read or write in bytes (" SRC \
      " fields 6 + 10 in bytes over 4 + 8).", PERF_AVERAGE_BULK, 19, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rwb_x)) \
    R(19, "Avg. Disk Bytes/Transfer Base", "Completed reads and writes (" SRC " fields " \
      "4 + 8), the base of Avg. Disk Bytes/Transfer.", PERF_AVERAGE_BASE, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_ops_b)) \
    R(20, "Avg. Disk Bytes/Read", "Average size of a read in bytes, iostat's rareq-sz " \
      "(" SRC " field 6 in bytes over field 4).", PERF_AVERAGE_BULK, 21, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rdb)) \
    R(21, "Avg. Disk Bytes/Read Base", "Completed reads (" SRC " field 4), the base of " \
      "Avg. Disk Bytes/Read.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_rd_b)) \
    R(22, "Avg. Disk Bytes/Write", "Average size of a write in bytes, iostat's wareq-sz " \
      "(" SRC " field 10 in bytes over field 8).", PERF_AVERAGE_BULK, 23, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wrb)) \
    R(23, "Avg. Disk Bytes/Write Base", "Completed writes (" SRC " field 8), the base of " \
      "Avg. Disk Bytes/Write.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_wr_b)) \
    R(24, "% Idle Time", "Share of the interval with no request in service, 100 - iostat's " \
      "%util (" SRC " field 13, io_ticks, as the busy term).", PERF_100NSEC_TIMER_INV, \
      PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_iot)) \
    R(25, "Current Disk Queue Length", "Requests in flight at the time of the read (" SRC \
      " field 12); a transiently bogus count above 2^31 reads as 0.", PERF_COUNTER_RAWCOUNT, \
      PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, GAUGE), \
      PL_DERIVE(PL_DS_NEED, pl_disk_infl)) \
    R(32, "% Disk Utilization", "Share of the interval with at least one request in " \
      "service, iostat's %util (" SRC " field 13, io_ticks).", PERF_100NSEC_TIMER, PL_NO_ID, \
      PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_iot)) \
    R(33, "Merged Reads/sec", "Adjacent reads merged into one request per second (" SRC \
      " field 5).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_RDM)) \
    R(34, "Merged Writes/sec", "Adjacent writes merged into one request per second (" SRC \
      " field 9).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_WRM)) \
    R(35, "Discards/sec", "Completed discard (TRIM) requests per second (" SRC " field 15, " \
      "kernel 4.18 and later).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_DC)) \
    R(36, "Discard Bytes/sec", "Bytes discarded per second (" SRC " field 17, 512-byte " \
      "sectors; kernel 4.18 and later).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, \
      PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_dcb)) \
    R(37, "Avg. Disk sec/Discard", "Average time of a discard in seconds, iostat's d_await " \
      "(" SRC " field 18 over field 15).", PERF_AVERAGE_TIMER, 38, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_dct)) \
    R(38, "Avg. Disk sec/Discard Base", "Completed discards (" SRC " field 15), the base " \
      "of Avg. Disk sec/Discard.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_DC)) \
    R(39, "Flushes/sec", "Completed cache flush requests per second (" SRC " field 19, " \
      "kernel 5.5 and later).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_FL)) \
    R(40, "Avg. Disk sec/Flush", "Average time of a flush in seconds, iostat's f_await " \
      "(" SRC " field 20 over field 19).", PERF_AVERAGE_TIMER, 41, PERF_DETAIL_ADVANCED, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_DS_NEED, pl_disk_flt)) \
    R(41, "Avg. Disk sec/Flush Base", "Completed flushes (" SRC " field 19), the base of " \
      "Avg. Disk sec/Flush.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(PL_DS_ROW, DS_FL))

#endif
