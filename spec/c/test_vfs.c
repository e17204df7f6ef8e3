/* VFS: the /proc/locks parser on bytes (fs/locks.c lock_get_status: "%lld: "
 * then the class, mode and type; blocked requests with "->", as 5.12 and
 * later indent them and as older kernels' "%lld:%s " with " ->" print
 * them), the sysctl parsers of two and six numbers, and the set over
 * temporary trees laid out as 6.x prints /proc/sys/fs (file-nr, inode-nr,
 * dentry-state: tab-separated; aio-nr, aio-max-nr).  Live: a lock of each
 * kind taken here shows up.  Expected values are worked out beside each
 * check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "locks.h"
#include "sysnum.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* 6.x: waiters indented by depth ("%*s" of "-> "); 5.11: "1: -> POSIX" too */
#define LOCKS1 "1: POSIX  ADVISORY  WRITE 1234 08:01:123456 0 EOF\n" \
               "1: -> POSIX  ADVISORY  WRITE 1240 08:01:123456 0 EOF\n" \
               "1:  -> POSIX  ADVISORY  READ 1241 08:01:123456 0 EOF\n" \
               "2: FLOCK  ADVISORY  READ 5678 00:17:1234 0 EOF\n" \
               "3: FLOCK  ADVISORY  WRITE 5679 00:17:1235 0 EOF\n" \
               "4: OFDLCK ADVISORY  READ -1 08:01:12 0 EOF\n" \
               "5: LEASE  ACTIVE    READ 999 08:01:99 0 EOF\n" \
               "6: DELEG  ACTIVE    WRITE 998 08:01:98 0 EOF\n" \
               "7: POSIX  ADVISORY  READ 4321 08:01:55 100 199\n" \
               "8: ACCESS ADVISORY  READ 77 08:01:56 0 EOF\n"

static void test_parse(void)
{
    pl_locks t;
    CHECK(pl_parse_locks(LOCKS1, strlen(LOCKS1), &t) == 0);
    for (int k = 0; k < PL_LK_N; k++)
        CHECK(t.st[k] == PL_NS_OK);
    CHECK_EQ_U64(t.v[PL_LK_HELD], 8);            /* ids 1-8; the two "->" lines are waiters */
    CHECK_EQ_U64(t.v[PL_LK_BLOCKED], 2);
    CHECK_EQ_U64(t.v[PL_LK_READ], 5);            /* ids 2, 4, 5, 7, 8 */
    CHECK_EQ_U64(t.v[PL_LK_WRITE], 3);           /* ids 1, 3, 6 */
    CHECK_EQ_U64(t.v[PL_LK_POSIX], 2);           /* ids 1, 7 (ACCESS is not a POSIX lock held) */
    CHECK_EQ_U64(t.v[PL_LK_POSIX_R], 1);         /* 7 */
    CHECK_EQ_U64(t.v[PL_LK_POSIX_W], 1);         /* 1 */
    CHECK_EQ_U64(t.v[PL_LK_FLOCK], 2);
    CHECK_EQ_U64(t.v[PL_LK_FLOCK_R], 1);
    CHECK_EQ_U64(t.v[PL_LK_FLOCK_W], 1);
    CHECK_EQ_U64(t.v[PL_LK_OFD], 1);
    CHECK_EQ_U64(t.v[PL_LK_OFD_R], 1);
    CHECK_EQ_U64(t.v[PL_LK_LEASE], 2);           /* LEASE and DELEG */
    CHECK_EQ_U64(t.v[PL_LK_LEASE_R], 1);
    CHECK_EQ_U64(t.v[PL_LK_LEASE_W], 1);

    /* no locks: an empty file, every count 0 and known */
    CHECK(pl_parse_locks("", 0, &t) == 0);
    CHECK(t.st[PL_LK_HELD] == PL_NS_OK && t.v[PL_LK_HELD] == 0);

    /* an id that is not "N:", a short line, a cut line: every count bad */
    static const char *const bad[] = {
        "1: POSIX  ADVISORY  WRITE 1 08:01:1 0 EOF\nx: FLOCK  ADVISORY  READ 2 0:1:2 0 EOF\n",
        "1: POSIX  ADVISORY\n",
        "1: -> POSIX  ADVISORY\n",
        "1: POSIX  ADVISORY  WRITE 1 08:01:1 0 EOF\n2: FLOCK  ADVISORY  READ",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(pl_parse_locks(bad[i], strlen(bad[i]), &t) == 0);
        CHECK(t.st[PL_LK_HELD] == PL_NS_BAD && t.v[PL_LK_HELD] == 0);
    }

    /* dentry-state: six numbers; inode-nr: two */
    pl_sysnum n;
    CHECK(pl_parse_sysnum6("154998\t153290\t45\t0\t69799\t0\n", 28, &n) == 0);
    CHECK(n.st[PL_DENTRY_NEGATIVE] == PL_NS_OK && n.v[PL_DENTRY_NEGATIVE] == 69799);
    CHECK(pl_parse_sysnum6("154998\t153290\t45\t0\t69799\n", 26, &n) == 0);
    CHECK(n.st[0] == PL_NS_BAD);                 /* five numbers: not this file */
    CHECK(pl_parse_sysnum2("85021\t0\n", 8, &n) == 0 && n.st[1] == PL_NS_OK && n.v[0] == 85021);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/sys/fs/file-nr", "640\t0\t2466186\n") == 1);
    CHECK(put(root, "proc/sys/fs/inode-nr", "85021\t1234\n") == 1);
    CHECK(put(root, "proc/sys/fs/dentry-state", "154998\t153290\t45\t0\t69799\t0\n") == 1);
    CHECK(put(root, "proc/sys/fs/aio-nr", "16384\n") == 1);
    CHECK(put(root, "proc/sys/fs/aio-max-nr", "65536\n") == 1);
    CHECK(put(root, "proc/locks", LOCKS1) == 1);
    return root;
}

static void test_set(void)
{
    const char *root = tree("set");
    pl_snapshot s;
    CHECK(pc_collect_tree(root, "VFS", 0, 0, NULL, &s) == 0);
    NAMES(&s, "");
    EXPECT(&s, "", "File Handles Allocated", 640);
    EXPECT(&s, "", "File Handles Free", 0);
    EXPECT(&s, "", "File Handles Max", 2466186);
    EXPECT(&s, "", "Inodes", 85021);
    EXPECT(&s, "", "Unused Inodes", 1234);
    EXPECT(&s, "", "Dentries", 154998);
    EXPECT(&s, "", "Unused Dentries", 153290);
    EXPECT(&s, "", "Negative Dentries", 69799);
    EXPECT(&s, "", "Dentry Age Limit Seconds", 45);
    EXPECT(&s, "", "AIO Events", 16384);
    EXPECT(&s, "", "AIO Events Max", 65536);
    CHECK_NEAR(val2(&s, &s, "", "% AIO Events Used"), 25.0, 1e-12);   /* 100 x 16384 / 65536 */
    EXPECT(&s, "", "Locks Held", 8);
    EXPECT(&s, "", "Read Locks Held", 5);
    EXPECT(&s, "", "Write Locks Held", 3);
    EXPECT(&s, "", "Blocked Lock Requests", 2);
    EXPECT(&s, "", "POSIX Locks", 2);
    EXPECT(&s, "", "Read POSIX Locks", 1);
    EXPECT(&s, "", "Write POSIX Locks", 1);
    EXPECT(&s, "", "FLOCK Locks", 2);
    EXPECT(&s, "", "OFD Locks", 1);
    EXPECT(&s, "", "Read OFD Locks", 1);
    EXPECT(&s, "", "Write OFD Locks", 0);
    EXPECT(&s, "", "Leases", 2);
    EXPECT(&s, "", "Write Leases", 1);
    pl_snap_free(&s);

    /* no locks: /proc/locks empty, the counts 0, not absent */
    CHECK(put(root, "proc/locks", "") == 1);
    CHECK(pc_collect_tree(root, "VFS", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Locks Held", 0);
    EXPECT(&s, "", "Blocked Lock Requests", 0);
    EXPECT(&s, "", "Inodes", 85021);
    pl_snap_free(&s);

    /* a kernel before 5.0: the padding 0 reads as 0 negative dentries */
    CHECK(put(root, "proc/sys/fs/dentry-state", "154998\t153290\t45\t0\t0\t0\n") == 1);
    CHECK(put(root, "proc/locks", "1: POSIX  ADVISORY\n") == 1);
    CHECK(pc_collect_tree(root, "VFS", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Negative Dentries", 0);
    UNSET(&s, "", "Locks Held");                 /* a malformed lock line: no count */
    pl_snap_free(&s);

    /* no /proc at all: ENOENT with a file */
    CHECK(pc_collect_tree(tmp("none"), "VFS", 0, 0, NULL, &s) == ENOENT);
    CHECK(s.err_path != NULL);
    pl_snap_free(&s);
}

/* The file-nr read is shared with System's File Handles: one read in a
 * collect of a query of both sets; a query of Inodes reads inode-nr alone. */
static void test_reads(void)
{
    const char *root = tree("reads");
    pl_env *env = pl_env_new(root);
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_sample *s = NULL;
    pl_add_status st;
    uint32_t i;
    pl_ksrc *filenr, *locks, *inodenr;
    CHECK(q != NULL);
    if (!q)
        return;
    filenr = pl_ksrc_attach(env, &pl_ksrc_filenr);
    locks = pl_ksrc_attach(env, &pl_ksrc_locks);
    inodenr = pl_ksrc_attach(env, &pl_ksrc_inodenr);
    CHECK(pl_query_add_path(q, "\\VFS\\Inodes", &st, &i) == 0);
    CHECK(pl_query_collect(q, &s) == 0);
    free(s);
    CHECK_EQ_U64(pl_ksrc_reads(inodenr), 1);
    CHECK_EQ_U64(pl_ksrc_reads(locks), 0);       /* no lock counter wanted: no walk */
    CHECK_EQ_U64(pl_ksrc_reads(filenr), 0);
    CHECK(pl_query_add_path(q, "\\VFS\\File Handles Allocated", &st, &i) == 0);
    CHECK(pl_query_add_path(q, "\\System\\File Handles Allocated", &st, &i) == 0);
    CHECK(pl_query_collect(q, &s) == 0);
    free(s);
    CHECK_EQ_U64(pl_ksrc_reads(filenr), 1);      /* VFS and System: one read */
    CHECK_EQ_U64(pl_ksrc_reads(locks), 0);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Live: an flock, a POSIX lock and an OFD lock taken on a file here. */
static void test_live(void)
{
    char path[256];
    pl_snapshot s;
    uint64_t v;
    int fd, fd2;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
    struct flock ofd = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 10, .l_len = 1 };
    const char *dir = tmp("live");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/lockme", dir);
    fd = open(path, O_RDWR | O_CREAT, 0600);
    fd2 = open(path, O_RDWR);
    CHECK(fd >= 0 && fd2 >= 0);
    CHECK(flock(fd2, LOCK_SH) == 0);
    CHECK(fcntl(fd, F_SETLK, &fl) == 0);
    CHECK(fcntl(fd, F_OFD_SETLK, &ofd) == 0);
    CHECK(pc_collect_tree("/", "VFS", 0, 0, NULL, &s) == 0);
    CHECK(get(&s, "", "Locks Held", &v) == 1 && v >= 3);
    CHECK(get(&s, "", "Write POSIX Locks", &v) == 1 && v >= 1);
    CHECK(get(&s, "", "Read FLOCK Locks", &v) == 1 && v >= 1);
    CHECK(get(&s, "", "Read OFD Locks", &v) == 1 && v >= 1);
    CHECK(get(&s, "", "Inodes", &v) == 1 && v >= 1);
    CHECK(get(&s, "", "File Handles Allocated", &v) == 1 && v >= 2);
    CHECK(get(&s, "", "AIO Events Max", &v) == 1 && v >= 1);
    pl_snap_free(&s);
    close(fd);
    close(fd2);
}

int main(void)
{
    ct_tmp_init("test_vfs");
    RUN(test_parse);
    RUN(test_set);
    RUN(test_reads);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
