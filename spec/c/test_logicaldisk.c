/* LogicalDisk and Paging File (the rest of the disk family; test_disk.c has
 * PhysicalDisk) through their ops and queries, against spec/fixtures/disk-*
 * and temporary trees.  Expected values are worked out by hand.
 *
 * disk-vm statvfs fixture files: "frsize blocks bfree bavail files ffree".
 *   27 /            4096 66053016 20978800 20901464 16777216 16362008
 *   30 /dev/shm     4096 256 256 256 3085512 3085511 (covers 25, also /dev/shm)
 *   40 /boot        1024 500000 300000 274000 131072 130000   (254:17)
 *   41 /mnt/my disk 4096 2500 1000 1000 6400 6000             (254:18, ro mount)
 *   42 /srv         a bind mount of 254:17: the same figures as 40
 *   43 /mnt/nfs     nfs4: not read unless PERFLIB_STATVFS_REMOTE=1
 *   45 /data        btrfs, 4096 1000000 400000 400000 0 0 (no inode limit)
 *   46 /media/cd\x  vfat, 2048 1000 0 0 0 0 (ro superblock) */
#include "disk_helpers.h"

static const dsl VDA = VDA_F, VDB1 = VDB1_F, VDB2 = VDB2_F;

static void expect_space(int line, const pl_snapshot *s, const char *inst, uint64_t frsize,
                         uint64_t blocks, uint64_t bfree, uint64_t bavail)
{
    expect(line, s, inst, "% Free Space", bavail * frsize);
    expect(line, s, inst, "% Free Space Base", blocks * frsize);
    expect(line, s, inst, "Free Megabytes", bavail * frsize >> 20);
    expect(line, s, inst, "Total Megabytes", blocks * frsize >> 20);
    expect(line, s, inst, "Free Bytes", bavail * frsize);
    expect(line, s, inst, "Total Bytes", blocks * frsize);
    expect(line, s, inst, "Used Bytes", (blocks - bfree) * frsize);
}

static void expect_inodes(int line, const pl_snapshot *s, const char *inst, uint64_t files, uint64_t ffree)
{
    expect(line, s, inst, "% Free Inodes", ffree);
    expect(line, s, inst, "% Free Inodes Base", files);
    expect(line, s, inst, "Free Inodes", ffree);
    expect(line, s, inst, "Total Inodes", files);
}

static const char *const SPACE[] = { "% Free Space", "% Free Space Base", "Free Megabytes",
    "Total Megabytes", "Free Bytes", "Total Bytes", "Used Bytes", "% Free Inodes",
    "% Free Inodes Base", "Free Inodes", "Total Inodes", NULL };

static void expect_no_space(int line, const pl_snapshot *s, const char *inst)
{
    for (int k = 0; SPACE[k]; k++)
        expect_unset(line, s, inst, SPACE[k]);
}

#define SPACE_(s, i, f, b, bf, ba) expect_space(__LINE__, s, i, f, b, bf, ba)
#define INODES(s, i, f, ff) expect_inodes(__LINE__, s, i, f, ff)
#define NO_SPACE(s, i) expect_no_space(__LINE__, s, i)

static const uint32_t LD_IDS[] = { 27, 30, 40, 41, 42, 43, 45, 46, TOTAL_ID };
#define LD_NAMES "/", "/dev/shm", "/boot", "/mnt/my disk", "/srv", "/mnt/nfs", "/data", \
    "/media/cd\\x", "_Total"

static void test_ld_vm(void)
{
    pctx p;
    pl_snapshot s = {0};
    unsetenv("PERFLIB_STATVFS_REMOTE");
    CHECK(pc_open(&p, FX "disk-vm", "LogicalDisk") == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    pl_snap_init(&s, p.cs);
    /* proc, sysfs, devtmpfs and overlay are left out; 25 is under 30 */
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    INSTS(&s, LD_IDS, LD_NAMES);
    for (uint32_t i = 0; i < s.ninst * s.cs->ncounters; i++)
        CHECK(!s.have[i]);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, LD_IDS, LD_NAMES);
    SPACE_(&s, "/", 4096, 66053016, 20978800, 20901464);
    EXPECT(&s, "/", "Free Megabytes", 81646);            /* 20901464 x 4096 / 2^20 = 81646.3 */
    EXPECT(&s, "/", "Used Bytes", 184623988736ull);      /* (66053016 - 20978800) x 4096 */
    INODES(&s, "/", 16777216, 16362008);
    SPACE_(&s, "/dev/shm", 4096, 256, 256, 256);         /* the upper tmpfs, 1 MiB */
    EXPECT(&s, "/dev/shm", "Total Megabytes", 1);
    INODES(&s, "/dev/shm", 3085512, 3085511);
    SPACE_(&s, "/boot", 1024, 500000, 300000, 274000);
    INODES(&s, "/boot", 131072, 130000);
    SPACE_(&s, "/mnt/my disk", 4096, 2500, 1000, 1000);
    SPACE_(&s, "/srv", 1024, 500000, 300000, 274000);
    NO_SPACE(&s, "/mnt/nfs");                            /* remote: not statvfs'd */
    SPACE_(&s, "/data", 4096, 1000000, 400000, 400000);
    for (int k = 7; SPACE[k]; k++)
        UNSET(&s, "/data", SPACE[k]);                    /* f_files 0: no inode counts */
    SPACE_(&s, "/media/cd\\x", 2048, 1000, 0, 0);
    EXPECT(&s, "/", "Read Only", 0);
    EXPECT(&s, "/mnt/my disk", "Read Only", 1);          /* mount option ro */
    EXPECT(&s, "/media/cd\\x", "Read Only", 1);          /* superblock option ro */
    EXPECT(&s, "/mnt/nfs", "Read Only", 0);
    UNSET(&s, "_Total", "Read Only");
    /* I/O through major:minor */
    EXPECT_IO(&s, "/", &VDA, 20);
    EXPECT_IO(&s, "/boot", &VDB1, 20);
    EXPECT_IO(&s, "/srv", &VDB1, 20);
    EXPECT_IO(&s, "/mnt/my disk", &VDB2, 20);
    UNSET(&s, "/dev/shm", "Disk Reads/sec");             /* 0:27 has no diskstats line */
    UNSET(&s, "/data", "% Idle Time");
    /* _Total: each filesystem once (/srv is /boot), nfs left out, in bytes:
     *   size  66053016x4096 + 256x4096 + 500000x1024 + 2500x4096 + 1000000x4096 + 1000x2048
     *   free  20978800x4096 + 256x4096 + 300000x1024 + 1000x4096 +  400000x4096 + 0
     *   avail 20901464x4096 + 256x4096 + 274000x1024 + 1000x4096 +  400000x4096 + 0 */
    uint64_t size = 66053016ull * 4096 + 256 * 4096 + 500000 * 1024 + 2500 * 4096 + 1000000ull * 4096 + 2048000;
    uint64_t bfree = 20978800ull * 4096 + 256 * 4096 + 300000 * 1024 + 1000 * 4096 + 400000ull * 4096;
    uint64_t avail = 20901464ull * 4096 + 256 * 4096 + 274000 * 1024 + 1000 * 4096 + 400000ull * 4096;
    SPACE_(&s, "_Total", 1, size, bfree, avail);
    EXPECT(&s, "_Total", "Total Bytes", 275174490112ull);
    INODES(&s, "_Total", 16777216 + 3085512 + 131072 + 6400, 16362008 + 3085511 + 130000 + 6000);
    dsl t = dsl_sum(&VDA, &VDB1);                        /* vdb1 once for /boot and /srv */
    t = dsl_sum(&t, &VDB2);
    EXPECT_IO(&s, "_Total", &t, 20);
    pl_snap_free(&s);
    pc_close(&p);

    /* with the option, the nfs mount is statvfs'd and counted */
    setenv("PERFLIB_STATVFS_REMOTE", "1", 1);
    CHECK(collect_tree(FX "disk-vm", "LogicalDisk", NULL, &s) == 0);
    unsetenv("PERFLIB_STATVFS_REMOTE");
    SPACE_(&s, "/mnt/nfs", 4096, 1000, 500, 500);
    INODES(&s, "/mnt/nfs", 100, 50);
    EXPECT(&s, "_Total", "Total Bytes", 275174490112ull + 4096000);
    pl_snap_free(&s);
}

/* Only what is asked for is read: space counters alone skip diskstats, I/O
 * counters alone skip statvfs; Read Only comes from mountinfo either way. */
static void test_ld_wanted(void)
{
    pl_env *env = pl_env_new(FX "disk-vm");
    const pl_counterset_def *cs = env ? pl_env_find(env, "LogicalDisk") : NULL;
    const char *sp[] = { "% Free Space", NULL }, *io[] = { "Disk Reads/sec", NULL };
    pl_snapshot s;
    pl_env_unref(env);
    CHECK(cs != NULL);
    if (!cs)
        return;
    uint8_t *w1 = want_only(cs, sp), *w2 = want_only(cs, io);
    CHECK(collect_tree(FX "disk-vm", "LogicalDisk", w1, &s) == 0);
    EXPECT(&s, "/", "% Free Space", 20901464ull * 4096);
    UNSET(&s, "/", "Disk Reads/sec");
    UNSET(&s, "_Total", "Disk Reads/sec");
    EXPECT(&s, "/boot", "Read Only", 0);
    pl_snap_free(&s);
    CHECK(collect_tree(FX "disk-vm", "LogicalDisk", w2, &s) == 0);
    EXPECT(&s, "/", "Disk Reads/sec", 93914);
    EXPECT(&s, "_Total", "Disk Reads/sec", 93914 + 4000 + 900);
    NO_SPACE(&s, "/");
    NO_SPACE(&s, "_Total");
    pl_snap_free(&s);
    free(w1);
    free(w2);
}

/* disk-stacked (issue 10 #18), mountinfo in mount order:
 *   20 /  ext4            25 /tmp tmpfs            23 /sys/fs/cgroup tmpfs on sysfs
 *   30, 31 /data: two mounts on one path with one parent (propagation): 31 on top
 *   32 /mnt/a ext4, then 33 /mnt tmpfs over its parent directory: 32 covered
 *   34 overlay not at /; 35 /run/user/1000 tmpfs; 36 "/srv\040x" ext4
 *   40, 41 /loop: each the other's parent (a hostile file): neither covers
 *   the other, so the names are made unique, in mount order
 *   proc, sysfs, cgroup, devtmpfs, binfmt_misc: no storage
 * statvfs "frsize blocks bfree bavail files ffree":
 *   20: 4096 100000 50000 40000 6000 5000   25: 4096 256 200 100 1000 900
 *   31: 4096 1000 500 400 100 50 (30: 4096 9 9 9 9 9, hidden)
 *   33: 4096 10 10 10 5 5   35: 4096 20 20 20 10 10   36: 1024 2000 1000 1000 0 0
 *   40, 41: 4096 30 15 15 3 3 (23: 4096 50 50 50 50 50, left out) */
static void test_ld_stacked(void)
{
    static const uint32_t ids[] = { 20, 25, 31, 33, 35, 36, 40, 41, TOTAL_ID };
    pctx p;
    pl_snapshot s = {0};
    CHECK(pc_open(&p, FX "disk-stacked", "LogicalDisk") == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    pl_snap_init(&s, p.cs);
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    INSTS(&s, ids, "/", "/tmp", "/data", "/mnt", "/run/user/1000", "/srv x", "/loop", "/loop#1",
          "_Total");
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ids, "/", "/tmp", "/data", "/mnt", "/run/user/1000", "/srv x", "/loop", "/loop#1",
          "_Total");
    SPACE_(&s, "/", 4096, 100000, 50000, 40000);
    SPACE_(&s, "/tmp", 4096, 256, 200, 100);
    SPACE_(&s, "/data", 4096, 1000, 500, 400);            /* the upper mount, 31 */
    SPACE_(&s, "/mnt", 4096, 10, 10, 10);
    SPACE_(&s, "/srv x", 1024, 2000, 1000, 1000);
    SPACE_(&s, "/loop#1", 4096, 30, 15, 15);
    /* _Total bytes: 100000x4096 + 256x4096 + 1000x4096 + 10x4096 + 20x4096
     *   + 2000x1024 + 2 x 30x4096 = 417161216 */
    EXPECT(&s, "_Total", "Total Bytes", 417161216ull);
    pl_snap_free(&s);
    pc_close(&p);
}

/* Garbage and short mountinfo lines are skipped; garbage statvfs figures
 * and a garbage diskstats line leave values unset; no mountinfo fails.  The
 * last line, /cut, has no newline: it counts as written (issue 10 #15). */
static void test_ld_broken(void)
{
    static const uint32_t ids[] = { 27, 29, TOTAL_ID };
    pl_snapshot s;
    CHECK(collect_tree(FX "disk-broken", "LogicalDisk", NULL, &s) == 0);
    INSTS(&s, ids, "/", "/cut", "_Total");
    NO_SPACE(&s, "/");
    NO_SPACE(&s, "/cut");                    /* no statvfs/29 */
    EXPECT(&s, "/cut", "Disk Reads/sec", 5000);          /* 254:16, vdb */
    NO_SPACE(&s, "_Total");                  /* a local filesystem without figures */
    UNSET(&s, "/", "Disk Reads/sec");
    UNSET(&s, "_Total", "Disk Reads/sec");
    EXPECT(&s, "/", "Read Only", 0);
    pl_snap_free(&s);
    CHECK(collect_tree(FX "disk-k414", "LogicalDisk", NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/self/mountinfo");
    pl_snap_free(&s);
}

static const char *const MI_ROOT = "27 1 254:0 / / rw - ext4 /dev/vda rw\n";
static const char *const MI_BOOT = "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
                                   "40 27 254:17 / /boot rw - ext4 /dev/vdb1 rw\n";

/* _Total of the I/O counters neither jumps when a partition with a history
 * is mounted nor falls when it is unmounted. */
static void test_ld_join(void)
{
    char dir[] = "/tmp/pl-ldisk-XXXXXX";
    pctx p;
    pl_snapshot s = {0};
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    CHECK(put(dir, "proc/self/mountinfo", MI_ROOT));
    CHECK(put(dir, "proc/diskstats", " 254 0 vda 1000 0 0 0 0 0 0 0 0 0 0\n"
                                     " 254 17 vdb1 500 0 0 0 0 0 0 0 0 0 0\n"));
    CHECK(pc_open(&p, dir, "LogicalDisk") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "_Total", "Disk Reads/sec", 1000);
    CHECK(put(dir, "proc/self/mountinfo", MI_BOOT));
    CHECK(put(dir, "proc/diskstats", " 254 0 vda 1100 0 0 0 0 0 0 0 0 0 0\n"
                                     " 254 17 vdb1 500 0 0 0 0 0 0 0 0 0 0\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "/boot", "Disk Reads/sec", 500);
    EXPECT(&s, "_Total", "Disk Reads/sec", 1100);          /* 1100 + (500 - 500) */
    CHECK(put(dir, "proc/diskstats", " 254 0 vda 1200 0 0 0 0 0 0 0 0 0 0\n"
                                     " 254 17 vdb1 600 0 0 0 0 0 0 0 0 0 0\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "_Total", "Disk Reads/sec", 1300);          /* 1200 + 100 */
    CHECK(put(dir, "proc/self/mountinfo", MI_ROOT));
    CHECK(put(dir, "proc/diskstats", " 254 0 vda 1300 0 0 0 0 0 0 0 0 0 0\n"
                                     " 254 17 vdb1 700 0 0 0 0 0 0 0 0 0 0\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "_Total", "Disk Reads/sec", 1400);          /* 1300 + the 100 /boot did */
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* ---- Paging File ----------------------------------------------------------- */

static void test_pf_vm(void)
{
    static const uint32_t ids[] = { 0, 1, TOTAL_ID };
    pctx p;
    pl_snapshot s = {0};
    double v;
    CHECK(pc_open(&p, FX "disk-vm", "Paging File") == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    pl_snap_init(&s, p.cs);
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    INSTS(&s, ids, "/dev/vdb3", "/swap file", "_Total");       /* \040 unescaped */
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ids, "/dev/vdb3", "/swap file", "_Total");
    /* /dev/vdb3: 2097148 KiB, 65536 KiB used, priority -2 */
    EXPECT(&s, "/dev/vdb3", "% Usage", 67108864);               /* 65536 x 1024 */
    EXPECT(&s, "/dev/vdb3", "% Usage Base", 2147479552);        /* 2097148 x 1024 */
    EXPECT(&s, "/dev/vdb3", "% Usage Peak", 67108864);
    EXPECT(&s, "/dev/vdb3", "% Usage Peak Base", 2147479552);
    EXPECT(&s, "/dev/vdb3", "Size Bytes", 2147479552);
    EXPECT(&s, "/dev/vdb3", "Used Bytes", 67108864);
    CHECK(fmt2(&s, &s, "/dev/vdb3", "Priority", &v) == PL_VALID && v == -2);
    CHECK_NEAR(val2(&s, &s, "/dev/vdb3", "% Usage"), 100.0 * 65536 / 2097148, 1e-9);
    /* /swap file: 1048572 KiB, 1024 used, priority 5 */
    EXPECT(&s, "/swap file", "Size Bytes", 1073737728);
    EXPECT(&s, "/swap file", "Used Bytes", 1048576);
    CHECK(fmt2(&s, &s, "/swap file", "Priority", &v) == PL_VALID && v == 5);
    /* _Total: sums, no priority */
    EXPECT(&s, "_Total", "Size Bytes", 2147479552ull + 1073737728);
    EXPECT(&s, "_Total", "Used Bytes", 67108864 + 1048576);
    EXPECT(&s, "_Total", "% Usage Peak", 67108864 + 1048576);
    UNSET(&s, "_Total", "Priority");
    pl_snap_free(&s);
    pc_close(&p);
}

/* No active swap: _Total alone, 0 of 0 (a zero base).  No /proc/swaps at
 * all: _Total alone with nothing set.  Garbage: values unset, no _Total. */
static void test_pf_none(void)
{
    static const uint32_t tid[] = { TOTAL_ID }, bid[] = { 0, 1, TOTAL_ID };
    pl_snapshot s;
    double v;
    CHECK(collect_tree(FX "disk-k418", "Paging File", NULL, &s) == 0);
    INSTS(&s, tid, "_Total");
    EXPECT(&s, "_Total", "Size Bytes", 0);
    EXPECT(&s, "_Total", "Used Bytes", 0);
    CHECK(fmt2(&s, &s, "_Total", "% Usage", &v) == PL_ZERO_BASE);
    pl_snap_free(&s);
    CHECK(collect_tree(FX "disk-k414", "Paging File", NULL, &s) == 0);
    INSTS(&s, tid, "_Total");
    for (uint32_t c = 0; c < s.cs->ncounters; c++)
        CHECK(!s.have[c]);
    pl_snap_free(&s);
    CHECK(collect_tree(FX "disk-broken", "Paging File", NULL, &s) == 0);
    INSTS(&s, bid, "/dev/vdb3", "/swapfile", "_Total");
    for (uint32_t c = 0; c < s.ninst * s.cs->ncounters; c++)
        CHECK(!s.have[c]);       /* "abc" size; used 2048 > size 1024; so no sum */
    pl_snap_free(&s);
}

/* The peak is the most used seen by this query. */
static void test_pf_peak(void)
{
    char dir[] = "/tmp/pl-swap-XXXXXX";
    pctx p;
    pl_snapshot s = {0};
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    CHECK(put(dir, "proc/swaps", "Filename Type Size Used Priority\n/sw file 1000 100 -2\n"));
    CHECK(pc_open(&p, dir, "Paging File") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "/sw", "% Usage Peak", 102400);
    CHECK(put(dir, "proc/swaps", "Filename Type Size Used Priority\n/sw file 1000 50 -2\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "/sw", "Used Bytes", 51200);
    EXPECT(&s, "/sw", "% Usage Peak", 102400);
    EXPECT(&s, "_Total", "% Usage Peak", 102400);
    CHECK(put(dir, "proc/swaps", "Filename Type Size Used Priority\n/sw file 1000 300 -2\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "/sw", "% Usage Peak", 307200);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

static void test_query(void)
{
    pl_env *env = pl_env_new(FX "disk-vm");
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_sample *smp = NULL;
    pl_add_status st;
    uint32_t ix;
    CHECK(q != NULL);
    if (!q) {
        pl_env_unref(env);
        return;
    }
    CHECK(pl_query_add_path(q, "\\LogicalDisk(/boot)\\% Free Space", &st, &ix) == 0 && st == 0);
    CHECK(pl_query_add_path(q, "\\Paging File(_Total)\\% Usage", &st, &ix) == 0 && st == 0);
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp) {
        double v;
        const pl_block *b = &smp->blocks[0];
        CHECK_EQ_U64(b->ninst, 1);
        CHECK(pl_sample_format(smp, b, 0, 0, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, 54.8, 1e-9);                   /* 274000 / 500000 */
        b = &smp->blocks[1];
        CHECK(pl_sample_format(smp, b, 0, 0, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, 100.0 * (65536 + 1024) / (2097148 + 1048572), 1e-9);
        free(smp);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_ld_vm);
    RUN(test_ld_wanted);
    RUN(test_ld_broken);
    RUN(test_ld_stacked);
    RUN(test_ld_join);
    RUN(test_pf_vm);
    RUN(test_pf_none);
    RUN(test_pf_peak);
    RUN(test_query);
    return CT_END();
}
