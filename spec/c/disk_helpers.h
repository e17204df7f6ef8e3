/* Helpers shared by the disk family's C tests (test_disk.c, test_logicaldisk.c):
 * one collection of a tree, formatted values as numbers, the disk family's
 * ids (provider states and fmt2 are ctest_snap.h's). */
#ifndef DISK_HELPERS_H
#define DISK_HELPERS_H

#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define MS 10000ull
#define ID(maj, min) ((uint32_t)(maj) << 20 | (uint32_t)(min))
#define TOTAL_ID 0xFFFFFFFEu

/* ---- a provider state kept across collections -------------------------- */

static inline int pc_open(pctx *p, const char *root, const char *set)
{
    return pc_open_set(p, root, set, 0, 0);
}

static inline int collect_tree(const char *root, const char *set, const uint8_t *wanted, pl_snapshot *s)
{
    return pc_collect_tree(root, set, 0, 0, wanted, s);
}

/* ---- snapshot accessors ------------------------------------------------ */

static inline pl_status status2(const pl_snapshot *s0, const pl_snapshot *s1, const char *inst, const char *ctr)
{
    double v;
    return fmt2(s0, s1, inst, ctr, &v);
}

/* ---- temporary trees --------------------------------------------------- */

/* Every I/O counter of one device from its diskstats fields (20-field line). */
typedef struct dsl {
    uint64_t rd, rdm, rds, rdms, wr, wrm, wrs, wrms, infl, ioms, wms, dc, dcm, dcs, dcms, fl, flms;
} dsl;

static inline void expect_io(int line, const pl_snapshot *s, const char *inst, const dsl *d, int nf)
{
    expect(line, s, inst, "% Disk Time", (d->rdms + d->wrms) * MS);
    expect(line, s, inst, "Avg. Disk Queue Length", d->wms * MS);
    expect(line, s, inst, "% Disk Read Time", d->rdms * MS);
    expect(line, s, inst, "Avg. Disk Read Queue Length", d->rdms * MS);
    expect(line, s, inst, "% Disk Write Time", d->wrms * MS);
    expect(line, s, inst, "Avg. Disk Write Queue Length", d->wrms * MS);
    expect(line, s, inst, "Avg. Disk sec/Transfer", (d->rdms + d->wrms) * MS);
    expect(line, s, inst, "Avg. Disk sec/Transfer Base", d->rd + d->wr);
    expect(line, s, inst, "Avg. Disk sec/Read", d->rdms * MS);
    expect(line, s, inst, "Avg. Disk sec/Read Base", d->rd);
    expect(line, s, inst, "Avg. Disk sec/Write", d->wrms * MS);
    expect(line, s, inst, "Avg. Disk sec/Write Base", d->wr);
    expect(line, s, inst, "Disk Transfers/sec", d->rd + d->wr);
    expect(line, s, inst, "Disk Reads/sec", d->rd);
    expect(line, s, inst, "Disk Writes/sec", d->wr);
    expect(line, s, inst, "Disk Bytes/sec", (d->rds + d->wrs) * 512);
    expect(line, s, inst, "Disk Read Bytes/sec", d->rds * 512);
    expect(line, s, inst, "Disk Write Bytes/sec", d->wrs * 512);
    expect(line, s, inst, "Avg. Disk Bytes/Transfer", (d->rds + d->wrs) * 512);
    expect(line, s, inst, "Avg. Disk Bytes/Transfer Base", d->rd + d->wr);
    expect(line, s, inst, "Avg. Disk Bytes/Read", d->rds * 512);
    expect(line, s, inst, "Avg. Disk Bytes/Read Base", d->rd);
    expect(line, s, inst, "Avg. Disk Bytes/Write", d->wrs * 512);
    expect(line, s, inst, "Avg. Disk Bytes/Write Base", d->wr);
    expect(line, s, inst, "% Idle Time", d->ioms * MS);
    expect(line, s, inst, "Current Disk Queue Length", d->infl);
    expect(line, s, inst, "% Disk Utilization", d->ioms * MS);
    expect(line, s, inst, "Merged Reads/sec", d->rdm);
    expect(line, s, inst, "Merged Writes/sec", d->wrm);
    if (nf >= 18) {
        expect(line, s, inst, "Discards/sec", d->dc);
        expect(line, s, inst, "Discard Bytes/sec", d->dcs * 512);
        expect(line, s, inst, "Avg. Disk sec/Discard", d->dcms * MS);
        expect(line, s, inst, "Avg. Disk sec/Discard Base", d->dc);
    } else {
        expect_unset(line, s, inst, "Discards/sec");
        expect_unset(line, s, inst, "Discard Bytes/sec");
        expect_unset(line, s, inst, "Avg. Disk sec/Discard");
        expect_unset(line, s, inst, "Avg. Disk sec/Discard Base");
    }
    if (nf >= 20) {
        expect(line, s, inst, "Flushes/sec", d->fl);
        expect(line, s, inst, "Avg. Disk sec/Flush", d->flms * MS);
        expect(line, s, inst, "Avg. Disk sec/Flush Base", d->fl);
    } else {
        expect_unset(line, s, inst, "Flushes/sec");
        expect_unset(line, s, inst, "Avg. Disk sec/Flush");
        expect_unset(line, s, inst, "Avg. Disk sec/Flush Base");
    }
}

#define EXPECT_IO(s, inst, d, nf) expect_io(__LINE__, s, inst, d, nf)

/* disk-vm lines (fields 4..20) */
#define VDA_F { 93914, 16267, 4712914, 72881, 19084, 16014, 3786160, 12662, 0, 11560, 86447, \
                         6143, 41, 1445096, 783, 2804, 119 }
#define VDB_F { 5000, 100, 80000, 4000, 3000, 200, 64000, 6000, 2, 7000, 10500, \
                         10, 0, 800, 20, 30, 60 }
#define VDB1_F { 4000, 90, 70000, 3500, 2500, 150, 50000, 5000, 1, 6000, 8600, \
                          5, 0, 400, 10, 0, 0 }
#define VDB2_F { 900, 10, 9000, 450, 400, 50, 12000, 900, 0, 900, 1350, 5, 0, 400, 10, 0, 0 }

static inline dsl dsl_sum(const dsl *a, const dsl *b)
{
    dsl r;
    const uint64_t *x = &a->rd, *y = &b->rd;
    uint64_t *z = &r.rd;
    for (size_t i = 0; i < sizeof r / sizeof r.rd; i++)
        z[i] = x[i] + y[i];
    return r;
}

/* A 20-field vda line with the given values. */
static inline void vda_line(char *buf, size_t n, const dsl *d, const char *name, int minor)
{
    snprintf(buf, n, " 254 %d %s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
             "%llu %llu %llu\n", minor, name,
             (unsigned long long)d->rd, (unsigned long long)d->rdm, (unsigned long long)d->rds,
             (unsigned long long)d->rdms, (unsigned long long)d->wr, (unsigned long long)d->wrm,
             (unsigned long long)d->wrs, (unsigned long long)d->wrms, (unsigned long long)d->infl,
             (unsigned long long)d->ioms, (unsigned long long)d->wms, (unsigned long long)d->dc,
             (unsigned long long)d->dcm, (unsigned long long)d->dcs, (unsigned long long)d->dcms,
             (unsigned long long)d->fl, (unsigned long long)d->flms);
}

#endif
