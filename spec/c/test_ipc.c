/* IPC: the /proc/sysvipc table parsers on bytes and the set over temporary
 * trees, laid out as the 64-bit kernels of 4.x to 6.x print them:
 *   shm: ipc/shm.c sysvipc_shm_proc_show, "%10d %10d  %4o %21lu %5u %5u  %5lu
 *        %5u %5u %5u %5u %10llu %10llu %10llu %21lu %21lu\n" under its header
 *   msg: ipc/msg.c sysvipc_msg_proc_show, "%10d %10d  %4o  %10lu %10lu %5u %5u
 *        %5u %5u %5u %5u %10llu %10llu %10llu\n"
 *   sem: ipc/sem.c sysvipc_sem_proc_show, "%10d %10d  %4o %10u %5u %5u %5u %5u
 *        %10llu %10llu\n"
 * and the limits of ipc/ipc_sysctl.c (sem: four numbers, tab-separated).
 * Live: a segment, a queue with a message and a semaphore set made here.
 * Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "sysvipc.h"
#include "sysnum.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define SHM_HDR "       key      shmid perms                  size  cpid  lpid nattch   uid   gid " \
    " cuid  cgid      atime      dtime      ctime                   rss                  swap\n"
#define SHM1 "         0          1  1600              67108864  1234  1240      2     0     0" \
    "     0     0 1700000000 1700000001 1699999999              16777216                     0\n"
#define SHM2 "  12345678          2   600                  8192  1300     0      0  1000  1000" \
    "  1000  1000          0          0 1699999000                  4096                  4096\n"
/* 3.0's layout: the same columns, one blank fewer before size, nattch */
#define SHM_OLD_HDR "       key      shmid perms                 size  cpid  lpid nattch   uid   gid " \
    " cuid  cgid      atime      dtime      ctime\n"
#define SHM_OLD "         0          1  1600             67108864  1234  1240      2     0     0" \
    "     0     0 1700000000 1700000001 1699999999\n"
#define MSG_HDR "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid " \
    " cgid      stime      rtime      ctime\n"
#define MSG1 "      1000          0   666         300          3  2001  2002     0     0     0" \
    "     0 1700000100 1700000200 1700000000\n"
#define MSG2 "      1001          1   666           0          0     0     0     0     0     0" \
    "     0          0          0 1700000000\n"
#define SEM_HDR "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n"
#define SEM1 "         0          0   600          1     0     0     0     0          0 1700000000\n"
#define SEM2 "      4242          1   666        250  1000  1000  1000  1000 1700000300 1700000000\n"

static void test_parse(void)
{
    pl_ipc_tab t;
    static const char shm[] = SHM_HDR SHM1 SHM2;
    CHECK(pl_parse_ipc_shm(shm, sizeof shm - 1, &t) == 0);
    for (int k = 0; k < PL_SHM_N; k++)
        CHECK(t.st[k] == PL_NS_OK);
    CHECK_EQ_U64(t.v[PL_SHM_SEGS], 2);
    CHECK_EQ_U64(t.v[PL_SHM_BYTES], 67117056);       /* 67108864 + 8192 */
    CHECK_EQ_U64(t.v[PL_SHM_RSS], 16781312);         /* 16777216 + 4096 */
    CHECK_EQ_U64(t.v[PL_SHM_SWAP], 4096);            /* 0 + 4096 */
    CHECK_EQ_U64(t.v[PL_SHM_UNATTACHED], 1);         /* nattch 2 and 0: one */

    /* the header without rss and swap: absent, not 0; the rest read */
    static const char old[] = SHM_OLD_HDR SHM_OLD;
    CHECK(pl_parse_ipc_shm(old, sizeof old - 1, &t) == 0);
    CHECK(t.st[PL_SHM_BYTES] == PL_NS_OK && t.v[PL_SHM_BYTES] == 67108864);
    CHECK(t.st[PL_SHM_RSS] == PL_NS_ABSENT && t.st[PL_SHM_SWAP] == PL_NS_ABSENT);

    static const char msg[] = MSG_HDR MSG1 MSG2;
    CHECK(pl_parse_ipc_msg(msg, sizeof msg - 1, &t) == 0);
    CHECK_EQ_U64(t.v[PL_MSG_QUEUES], 2);
    CHECK_EQ_U64(t.v[PL_MSG_MSGS], 3);               /* 3 + 0 */
    CHECK_EQ_U64(t.v[PL_MSG_BYTES], 300);            /* 300 + 0 */
    CHECK(t.st[PL_MSG_BYTES] == PL_NS_OK);

    static const char sem[] = SEM_HDR SEM1 SEM2;
    CHECK(pl_parse_ipc_sem(sem, sizeof sem - 1, &t) == 0);
    CHECK_EQ_U64(t.v[PL_SEM_SETS], 2);
    CHECK_EQ_U64(t.v[PL_SEM_SEMS], 251);             /* 1 + 250 */

    /* the header alone: zero objects, known */
    CHECK(pl_parse_ipc_sem(SEM_HDR, strlen(SEM_HDR), &t) == 0);
    CHECK(t.st[PL_SEM_SETS] == PL_NS_OK && t.v[PL_SEM_SETS] == 0);
    /* nothing at all: absent */
    CHECK(pl_parse_ipc_sem("", 0, &t) == 0 && t.st[PL_SEM_SETS] == PL_NS_ABSENT);
}

static void test_bad(void)
{
    pl_ipc_tab t;
    /* a field short, a sign, a cut line, another file, a sum past 2^64 - 1:
     * every total bad, never a sum with a line left out */
    static const char *const bad[] = {
        SEM_HDR SEM1 "         0          2   600          1     0     0     0     0          0\n",
        SEM_HDR SEM1 "         0          2   600         -1     0     0     0     0          0 0\n",
        SEM_HDR SEM1 "         0          2   600          1     0     0     0     0          0 17",
        "semid key\n" SEM1,
        SEM_HDR "0 0 600 18446744073709551615 0 0 0 0 0 0\n0 1 600 1 0 0 0 0 0 0\n",
        SEM_HDR "0 0 600 18446744073709551616 0 0 0 0 0 0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(pl_parse_ipc_sem(bad[i], strlen(bad[i]), &t) == 0);
        CHECK(t.st[PL_SEM_SETS] == PL_NS_BAD && t.st[PL_SEM_SEMS] == PL_NS_BAD);
        CHECK_EQ_U64(t.v[PL_SEM_SEMS], 0);
    }
    /* columns by the header's names: qnum before cbytes reads the right ones */
    static const char moved[] = "key qnum cbytes\n1 7 700\n";
    CHECK(pl_parse_ipc_msg(moved, sizeof moved - 1, &t) == 0);
    CHECK_EQ_U64(t.v[PL_MSG_MSGS], 7);
    CHECK_EQ_U64(t.v[PL_MSG_BYTES], 700);
    /* sem's limits: four numbers, else bad */
    pl_sysnum n;
    CHECK(pl_parse_sysnum4("32000\t1024000000\t500\t32000\n", 28, &n) == 0);
    CHECK(n.st[3] == PL_NS_OK && n.v[PL_SEM_MNS] == 1024000000 && n.v[PL_SEM_MNI] == 32000);
    CHECK(pl_parse_sysnum4("250 32000 32\n", 13, &n) == 0 && n.st[0] == PL_NS_BAD);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/sysvipc/shm", SHM_HDR SHM1 SHM2) == 1);
    CHECK(put(root, "proc/sysvipc/msg", MSG_HDR MSG1 MSG2) == 1);
    CHECK(put(root, "proc/sysvipc/sem", SEM_HDR SEM1 SEM2) == 1);
    CHECK(put(root, "proc/sys/kernel/shmmax", "18446744073692774399\n") == 1);
    CHECK(put(root, "proc/sys/kernel/shmall", "2097152\n") == 1);
    CHECK(put(root, "proc/sys/kernel/shmmni", "4096\n") == 1);
    CHECK(put(root, "proc/sys/kernel/msgmax", "8192\n") == 1);
    CHECK(put(root, "proc/sys/kernel/msgmnb", "16384\n") == 1);
    CHECK(put(root, "proc/sys/kernel/msgmni", "32000\n") == 1);
    CHECK(put(root, "proc/sys/kernel/sem", "32000\t1024000000\t500\t32000\n") == 1);
    return root;
}

static void test_set(void)
{
    const char *root = tree("set");
    pl_snapshot s;
    /* page size 4096 */
    CHECK(pc_collect_tree(root, "IPC", 0, 4096, NULL, &s) == 0);
    NAMES(&s, "");
    EXPECT(&s, "", "Shared Memory Segments", 2);
    EXPECT(&s, "", "Shared Memory Bytes", 67117056);
    EXPECT(&s, "", "Shared Memory Resident Bytes", 16781312);
    EXPECT(&s, "", "Shared Memory Swapped Bytes", 4096);
    EXPECT(&s, "", "Unattached Shared Memory Segments", 1);
    EXPECT(&s, "", "Message Queues", 2);
    EXPECT(&s, "", "Queued Messages", 3);
    EXPECT(&s, "", "Queued Message Bytes", 300);
    EXPECT(&s, "", "Semaphore Sets", 2);
    EXPECT(&s, "", "Semaphores", 251);
    EXPECT(&s, "", "Max Segment Bytes", 18446744073692774399u);
    EXPECT(&s, "", "Shared Memory Limit Pages", 2097152);
    EXPECT(&s, "", "Max Segments", 4096);
    EXPECT(&s, "", "Max Message Bytes", 8192);
    EXPECT(&s, "", "Max Queue Bytes", 16384);
    EXPECT(&s, "", "Max Message Queues", 32000);
    EXPECT(&s, "", "Max Semaphores Per Set", 32000);
    EXPECT(&s, "", "Max Semaphores", 1024000000);
    EXPECT(&s, "", "Max Operations Per Call", 500);
    EXPECT(&s, "", "Max Semaphore Sets", 32000);
    EXPECT(&s, "", "% Shared Memory Used Base", 8589934592u);   /* 2097152 x 4096 */
    /* 100 x 2 / 4096 = 0.048828125 */
    CHECK_NEAR(val2(&s, &s, "", "% Shared Memory Segments Used"), 0.048828125, 1e-12);
    /* 100 x 67117056 / 8589934592 = 0.781345367431640625 */
    CHECK_NEAR(val2(&s, &s, "", "% Shared Memory Used"), 0.781345367431640625, 1e-12);
    CHECK_NEAR(val2(&s, &s, "", "% Message Queues Used"), 0.00625, 1e-12);  /* 100 x 2 / 32000 */
    CHECK_NEAR(val2(&s, &s, "", "% Semaphore Sets Used"), 0.00625, 1e-12);  /* 100 x 2 / 32000 */
    /* 100 x 251 / 1024000000 = 0.0000245117... */
    CHECK_NEAR(val2(&s, &s, "", "% Semaphores Used"), 100.0 * 251 / 1024000000, 1e-15);
    pl_snap_free(&s);

    /* the default shmall (ULONG_MAX - 2^24 pages) x 4096 passes 2^64: no base */
    CHECK(put(root, "proc/sys/kernel/shmall", "18446744073692774399\n") == 1);
    CHECK(pc_collect_tree(root, "IPC", 0, 4096, NULL, &s) == 0);
    UNSET(&s, "", "% Shared Memory Used Base");
    EXPECT(&s, "", "Shared Memory Limit Pages", 18446744073692774399u);
    pl_snap_free(&s);

    /* a malformed shm line: the shm totals unset, the others kept */
    CHECK(put(root, "proc/sysvipc/shm", SHM_HDR SHM1 "  x\n") == 1);
    CHECK(pc_collect_tree(root, "IPC", 0, 4096, NULL, &s) == 0);
    UNSET(&s, "", "Shared Memory Segments");
    UNSET(&s, "", "Shared Memory Bytes");
    EXPECT(&s, "", "Semaphores", 251);
    pl_snap_free(&s);

    /* no System V IPC (no CONFIG_SYSVIPC): ENOENT with a file */
    CHECK(pc_collect_tree(tmp("none"), "IPC", 0, 4096, NULL, &s) == ENOENT);
    CHECK(s.err_path != NULL);
    pl_snap_free(&s);
}

/* Live: a segment of 3 pages, a queue holding a message of 100 bytes and a
 * set of 3 semaphores made here show up (at least: others may exist). */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    struct { long type; char text[100]; } m = { 1, { 0 } };
    int shm = shmget(IPC_PRIVATE, 3 * 4096, IPC_CREAT | 0600);
    int msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    int sem = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
    if (shm < 0 || msq < 0 || sem < 0 || msgsnd(msq, &m, sizeof m.text, 0) != 0) {
        printf("# skip: no System V IPC here (%s)\n", strerror(errno));
    } else {
        CHECK(pc_collect_tree("/", "IPC", 0, 0, NULL, &s) == 0);
        CHECK(get(&s, "", "Shared Memory Segments", &v) == 1 && v >= 1);
        CHECK(get(&s, "", "Shared Memory Bytes", &v) == 1 && v >= 12288);
        CHECK(get(&s, "", "Queued Messages", &v) == 1 && v >= 1);
        CHECK(get(&s, "", "Queued Message Bytes", &v) == 1 && v >= 100);
        CHECK(get(&s, "", "Semaphores", &v) == 1 && v >= 3);
        CHECK(get(&s, "", "Max Segments", &v) == 1 && v >= 1);
        pl_snap_free(&s);
    }
    if (shm >= 0)
        shmctl(shm, IPC_RMID, NULL);
    if (msq >= 0)
        msgctl(msq, IPC_RMID, NULL);
    if (sem >= 0)
        semctl(sem, 0, IPC_RMID);
}

int main(void)
{
    ct_tmp_init("test_ipc");
    RUN(test_parse);
    RUN(test_bad);
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
