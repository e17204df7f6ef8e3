/* Block devices beyond whole disks (issue 17 item 1): dm and md volumes in
 * PhysicalDisk (named as users know them, out of _Total), partitions as the
 * Disk Partition set, Rotational, and the disks' text facts through the info
 * op, against spec/fixtures/disk-blk (run from the repository root) and the
 * live machine.
 *
 * The tree follows the kernel's layouts: Documentation/ABI/stable/
 * sysfs-block (queue/rotational, wwid of an NVMe namespace, <disk>/<part>/
 * partition and start), drivers/scsi/scsi_sysfs.c (device/vendor, model, rev,
 * wwid; ATA pads vendor and model with blanks), drivers/nvme/host/core.c
 * (device/ is the controller: model, serial, firmware_rev),
 * Documentation/ABI/testing/sysfs-block-dm (dm/name, dm/uuid) and
 * Documentation/admin-guide/md.rst (md/level).
 *
 * diskstats fields after the name: rd rdm rds rdms wr wrm wrs wrms infl ioms
 * wms | dc dcm dcs dcms | fl flms; ms x 10^4 = 100 ns, sectors x 512 = bytes. */
#include "disk_helpers.h"

#include <string.h>

#define BLK FX "disk-blk"

/* ---- PhysicalDisk ------------------------------------------------------------ */

/* nvme0n1, sda and sdb have a device link; md0 and dm-0/dm-1 are volumes;
 * loop0 (a device link here), its partition, zram0 and the partitions of the
 * disks are left out. */
static void test_volumes(void)
{
    static const uint32_t ids[] = { ID(259, 0), ID(8, 0), ID(8, 16), ID(9, 0), ID(253, 0),
                                    ID(253, 1), TOTAL_ID };
    pl_snapshot s;
    CHECK(collect_tree(BLK, "PhysicalDisk", NULL, &s) == 0);
    /* dm-1 has no dm/name to read: its kernel name alone */
    INSTS(&s, ids, "nvme0n1", "sda", "sdb", "md0", "dm-0 vg0-root", "dm-1", "_Total");
    EXPECT(&s, "md0", "Disk Reads/sec", 1350);
    EXPECT(&s, "md0", "Disk Write Bytes/sec", 7000 * 512ull);
    EXPECT(&s, "dm-0 vg0-root", "Disk Reads/sec", 2800);
    EXPECT(&s, "dm-0 vg0-root", "% Disk Time", (1000 + 1200) * MS);
    EXPECT(&s, "dm-1", "Disk Reads/sec", 5);
    /* _Total: the whole disks only (nvme0n1 + sda + sdb); the volumes'
     * I/O is already theirs */
    EXPECT(&s, "_Total", "Disk Reads/sec", 3000 + 1000 + 70);
    EXPECT(&s, "_Total", "Disk Read Bytes/sec", (240000 + 16000 + 560) * 512ull);
    EXPECT(&s, "_Total", "% Disk Time", (900 + 1100 + 400 + 300 + 90 + 60) * MS);
    EXPECT(&s, "_Total", "Flushes/sec", 8 + 20 + 5);
    EXPECT(&s, "_Total", "Current Disk Queue Length", 1);     /* nvme0n1's in flight */
    /* Rotational from queue/rotational; unset where the file is missing */
    EXPECT(&s, "nvme0n1", "Rotational", 0);
    EXPECT(&s, "sda", "Rotational", 0);
    EXPECT(&s, "sdb", "Rotational", 1);
    EXPECT(&s, "dm-0 vg0-root", "Rotational", 0);
    UNSET(&s, "md0", "Rotational");
    UNSET(&s, "dm-1", "Rotational");
    UNSET(&s, "_Total", "Rotational");
    pl_snap_free(&s);
}

/* Rotational is set when wanted (alone too) and only then. */
static void test_rotational_wanted(void)
{
    pctx p;
    pl_snapshot s = {0};
    uint8_t *wanted;
    CHECK(pc_open(&p, BLK, "PhysicalDisk") == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    wanted = calloc(p.cs->ncounters, 1);
    CHECK(wanted != NULL);
    if (wanted) {
        wanted[p.cs->ncounters - 1] = 1;
        CHECK_STR(p.cs->counters[p.cs->ncounters - 1].name, "Rotational");
        pl_snap_init(&s, p.cs);
        CHECK(pc_collect(&p, wanted, &s) == 0);
        EXPECT(&s, "sdb", "Rotational", 1);
        memset(wanted, 1, p.cs->ncounters);
        wanted[p.cs->ncounters - 1] = 0;
        CHECK(pc_collect(&p, wanted, &s) == 0);
        UNSET(&s, "sdb", "Rotational");
        EXPECT(&s, "sdb", "Disk Reads/sec", 70);
        pl_snap_free(&s);
    }
    free(wanted);
    pc_close(&p);
}

/* ---- Disk Partition ------------------------------------------------------------ */

static void test_partitions(void)
{
    static const uint32_t ids[] = { ID(259, 1), ID(8, 1), ID(8, 2), ID(259, 2), TOTAL_ID };
    /* 8 2 sda2 400 0 6400 150 200 0 3200 100 0 250 250 0 0 0 0 0 0 */
    static const dsl sda2 = { 400, 0, 6400, 150, 200, 0, 3200, 100, 0, 250, 250, 0, 0, 0, 0, 0, 0 };
    pl_snapshot s;
    const pl_counterset_def *cs;
    CHECK(collect_tree(BLK, "Disk Partition", NULL, &s) == 0);
    cs = s.cs;
    CHECK(cs != NULL && cs->index == 37000 && cs->ncounters == 36);
    /* loop0p1 (its disk is a loop device) is left out, whole disks and volumes too */
    INSTS(&s, ids, "nvme0n1p1", "sda1", "sda2", "md0p1", "_Total");
    EXPECT_IO(&s, "sda2", &sda2, 20);
    EXPECT(&s, "nvme0n1p1", "Disk Reads/sec", 2900);
    EXPECT(&s, "nvme0n1p1", "Discard Bytes/sec", 64 * 512);
    EXPECT(&s, "md0p1", "Disk Writes/sec", 690);
    /* _Total: every partition once (2900 + 600 + 400 + 1300 reads) */
    EXPECT(&s, "_Total", "Disk Reads/sec", 5200);
    EXPECT(&s, "_Total", "Disk Write Bytes/sec", (150000 + 4800 + 3200 + 6900) * 512ull);
    EXPECT(&s, "_Total", "Avg. Disk Queue Length", (1880 + 450 + 250 + 0) * MS);
    pl_snap_free(&s);
}

/* ---- text facts -------------------------------------------------------------- */

typedef struct facts {
    char text[1024];
    int stop_after;          /* 0: never stop */
    int n;
} facts;

static int collect_fact(void *ud, const char *key, const char *value)
{
    facts *f = ud;
    size_t at = strlen(f->text);
    snprintf(f->text + at, sizeof f->text - at, "%s=%s;", key, value);
    return ++f->n == f->stop_after;
}

static void expect_facts(int line, pctx *p, const char *inst, int rc, const char *want)
{
    facts f = { "", 0, 0 };
    int e = p->cs->ops->info(p->st, inst, collect_fact, &f);
    if (e != rc || strcmp(f.text, want) != 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s: %d \"%s\", want %d \"%s\"\n", line, inst ? inst : "(null)", e,
                f.text, rc, want);
    }
}

#define FACTS(p, inst, rc, want) expect_facts(__LINE__, p, inst, rc, want)

static void test_disk_facts(void)
{
    pctx p;
    facts f = { "", 2, 0 };
    CHECK(pc_open(&p, BLK, "PhysicalDisk") == 0);
    if (!p.st || !p.cs->ops->info) {
        CHECK(p.cs && p.cs->ops->info != NULL);
        pc_close(&p);
        return;
    }
    /* SCSI/ATA: vendor and model in device/, blanks cut; serial only in VPD pages */
    FACTS(&p, "sda", 0, "model=Samsung SSD 860;vendor=ATA;wwn=naa.5002538e40a1b2c3;firmware=4B6Q;");
    /* a tab, a backslash and a control byte in a model: \xNN */
    FACTS(&p, "sdb", 0, "model=WDC\\x09WD40\\x5cX\\x01;vendor=ATA;");
    /* NVMe: wwid on the namespace, the rest on the controller */
    FACTS(&p, "nvme0n1", 0, "model=Samsung SSD 970 EVO Plus 1TB;serial=S4EWNX0R123456A;"
          "wwn=eui.0025385b71b2c3d4;firmware=2B2QEXM7;");
    FACTS(&p, "dm-0 vg0-root", 0, "dm_name=vg0-root;dm_uuid=LVM-Qm1x2y3z;");
    FACTS(&p, "dm-1", 0, "dm_uuid=CRYPT-LUKS2-0a1b-data;");
    FACTS(&p, "md0", 0, "md_level=raid1;");
    FACTS(&p, "_Total", ENOENT, "");
    FACTS(&p, "sda1", ENOENT, "");           /* a partition is not a PhysicalDisk instance */
    FACTS(&p, "dm-0", ENOENT, "");           /* instances go by their whole name */
    FACTS(&p, NULL, ENOENT, "");
    /* emit's nonzero stops the walk */
    CHECK(p.cs->ops->info(p.st, "nvme0n1", collect_fact, &f) == 0);
    CHECK_STR(f.text, "model=Samsung SSD 970 EVO Plus 1TB;serial=S4EWNX0R123456A;");
    pc_close(&p);
    CHECK(pc_open(&p, BLK, "Disk Partition") == 0);
    if (p.st) {
        FACTS(&p, "sda2", 0, "disk=sda;partition=2;start=1050624;");
        FACTS(&p, "nvme0n1p1", 0, "disk=nvme0n1;partition=1;start=2048;");
        FACTS(&p, "md0p1", 0, "disk=md0;partition=1;start=2048;");
        FACTS(&p, "sda", ENOENT, "");
    }
    pc_close(&p);
}

/* A dm name with a control character and a backslash: '_' in the instance
 * name (pl_name_sanitize), which a counter path can hold. */
static void test_odd_dm_name(void)
{
    char dir[] = "/tmp/pl-diskblk-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/block/dm-3/dm/name", "a\\b\tc\n"));
    CHECK(put(dir, "proc/diskstats", " 253 3 dm-3 1 0 8 0 0 0 0 0 0 0 0\n"));
    CHECK(collect_tree(dir, "PhysicalDisk", NULL, &s) == 0);
    NAMES(&s, "dm-3 a_b_c", "_Total");
    EXPECT(&s, "dm-3 a_b_c", "Disk Reads/sec", 1);
    EXPECT(&s, "_Total", "Disk Reads/sec", 0);    /* no whole disk */
    pl_snap_free(&s);
    /* no sys/block at all: the set fails naming it */
    rm_tree(dir);
    strcpy(dir, "/tmp/pl-diskblk-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/diskstats", " 8 0 sda 1 0 8 0 0 0 0 0 0 0 0\n"));
    CHECK(collect_tree(dir, "Disk Partition", NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "sys/block");
    pl_snap_free(&s);
    rm_tree(dir);
}

/* Live: every listed partition has a disk fact naming a PhysicalDisk
 * instance; PhysicalDisk's whole disks answer info. */
static void test_live(void)
{
    pctx p, q;
    pl_snapshot s = {0}, d = {0};
    if (access("/proc/diskstats", R_OK) != 0) {
        printf("  skip: no /proc/diskstats\n");
        return;
    }
    CHECK(pc_open(&p, "/", "Disk Partition") == 0);
    CHECK(pc_open(&q, "/", "PhysicalDisk") == 0);
    if (p.st && q.st) {
        pl_snap_init(&s, p.cs);
        pl_snap_init(&d, q.cs);
        CHECK(pc_collect(&p, NULL, &s) == 0);
        CHECK(pc_collect(&q, NULL, &d) == 0);
        CHECK(s.ninst >= 1 && d.ninst >= 1);     /* _Total at least */
        for (uint32_t i = 0; i + 1 < s.ninst; i++) {
            facts f = { "", 0, 0 };
            const char *name = pl_snap_name(&s, i);
            CHECK(p.cs->ops->info(p.st, name, collect_fact, &f) == 0);
            CHECK(strncmp(f.text, "disk=", 5) == 0);
        }
        for (uint32_t i = 0; i + 1 < d.ninst; i++) {
            facts f = { "", 0, 0 };
            CHECK(q.cs->ops->info(q.st, pl_snap_name(&d, i), collect_fact, &f) == 0);
        }
        pl_snap_free(&s);
        pl_snap_free(&d);
    }
    pc_close(&p);
    pc_close(&q);
}

int main(void)
{
    RUN(test_volumes);
    RUN(test_rotational_wanted);
    RUN(test_partitions);
    RUN(test_disk_facts);
    RUN(test_odd_dm_name);
    RUN(test_live);
    return CT_END();
}
