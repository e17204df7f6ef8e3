/* TCP States: TCP sockets by state per family from /proc/net/tcp and tcp6
 * (tcptab.h), against temporary trees in the kernel's line format
 * (get_tcp4_sock, get_timewait4_sock, get_openreq4; tcp6 alike), with the
 * counts worked out in the comments; TCPv6 sharing the tcp6 read; bad
 * tables; and live, with a listening socket of this test. */
#include "perflib.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "tcptab.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HDR4 "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
#define HDR6 "  sl  local_address                         remote_address                        st tx_queue " \
             "rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
/* one socket line: state st, queues tx:rx (hex) */
#define L4(sl, st, tx, rx) "   " sl ": 0100007F:1F90 0100007F:D3A2 " st " " tx ":" rx \
    " 00:00000000 00000000  1000        0 12345 1 0000000000000000 20 4 30 10 -1\n"
#define L6(sl, st, tx, rx) "   " sl ": 00000000000000000000000001000000:1F90 " \
    "00000000000000000000000001000000:D3A4 " st " " tx ":" rx \
    " 00:00000000 00000000  1000        0 23456 1 0000000000000000 20 4 30 10 -1\n"

static void tables(const char *dir)
{
    CHECK(put(dir, "proc/net/tcp", HDR4
              L4("0", "0A", "00000000", "00000003")      /* a listener, 3 waiting to be accepted */
              L4("1", "0A", "00000000", "00000000")      /* a listener */
              L4("2", "01", "00000010", "00000200")      /* ESTABLISHED: 0x10 unacked, 0x200 unread */
              L4("3", "01", "00000000", "00000000")
              L4("4", "08", "00000000", "00000001")      /* CLOSE_WAIT, 1 unread */
              L4("5", "06", "00000000", "00000000")      /* TIME_WAIT */
              L4("6", "03", "00000000", "00000000")      /* a request socket */
              L4("7", "0C", "00000000", "00000000")));   /* beyond CLOSING */
    CHECK(put(dir, "proc/net/tcp6", HDR6
              L6("0", "0A", "00000000", "00000001")
              L6("1", "01", "00000100", "00000000")
              L6("2", "06", "00000000", "00000000")
              L6("3", "02", "00000001", "00000000")));
}

static void test_fixture(void)
{
    char dir[] = "/tmp/pl-tcps-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    tables(dir);
    CHECK(pc_collect_tree(dir, "TCP States", 100, 4096, NULL, &s) == 0);
    NAMES(&s, "IPv4", "IPv6", "_Total");
    EXPECT(&s, "IPv4", "Sockets", 8);
    EXPECT(&s, "IPv4", "Listen", 2);
    EXPECT(&s, "IPv4", "Established", 2);
    EXPECT(&s, "IPv4", "Close Wait", 1);
    EXPECT(&s, "IPv4", "Time Wait", 1);
    EXPECT(&s, "IPv4", "SYN Received", 1);
    EXPECT(&s, "IPv4", "Other States", 1);
    EXPECT(&s, "IPv4", "SYN Sent", 0);
    EXPECT(&s, "IPv4", "Accept Queue Length", 3);            /* the listeners' rx: 3 + 0 */
    EXPECT(&s, "IPv4", "Receive Queue Bytes", 0x200 + 1);    /* 513, listeners left out */
    EXPECT(&s, "IPv4", "Send Queue Bytes", 0x10);
    EXPECT(&s, "IPv6", "Sockets", 4);
    EXPECT(&s, "IPv6", "SYN Sent", 1);
    EXPECT(&s, "IPv6", "Send Queue Bytes", 0x100 + 1);       /* 257 */
    EXPECT(&s, "IPv6", "Accept Queue Length", 1);
    /* _Total: 8 + 4 sockets, 2 + 1 listening, 2 + 1 established, 1 + 1 time wait */
    EXPECT(&s, "_Total", "Sockets", 12);
    EXPECT(&s, "_Total", "Listen", 3);
    EXPECT(&s, "_Total", "Established", 3);
    EXPECT(&s, "_Total", "Time Wait", 2);
    EXPECT(&s, "_Total", "Send Queue Bytes", 0x10 + 0x101);  /* 273 */
    EXPECT(&s, "_Total", "Accept Queue Length", 4);
    pl_snap_free(&s);

    /* a malformed IPv6 line: its values and _Total's unset, IPv4's kept */
    CHECK(put(dir, "proc/net/tcp6", HDR6 L6("0", "0A", "00000000", "00000001") "   1: garbage\n"));
    CHECK(pc_collect_tree(dir, "TCP States", 100, 4096, NULL, &s) == 0);
    UNSET(&s, "IPv6", "Sockets");
    UNSET(&s, "_Total", "Listen");
    EXPECT(&s, "IPv4", "Listen", 2);
    pl_snap_free(&s);

    /* IPv6 disabled (no tcp6): IPv4 and _Total only */
    char path[64];
    snprintf(path, sizeof path, "%s/proc/net/tcp6", dir);
    CHECK(unlink(path) == 0);
    CHECK(pc_collect_tree(dir, "TCP States", 100, 4096, NULL, &s) == 0);
    NAMES(&s, "IPv4", "_Total");
    EXPECT(&s, "_Total", "Sockets", 8);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* No table at all: the set fails with the first file and its errno. */
static void test_absent(void)
{
    char dir[] = "/tmp/pl-tcps-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(pc_collect_tree(dir, "TCP States", 100, 4096, NULL, &s) == ENOENT);
    CHECK(s.err_path && strstr(s.err_path, "proc/net/tcp") != NULL);
    pl_snap_free(&s);
    /* foreign files (no table header): EINVAL with the first */
    CHECK(put(dir, "proc/net/tcp", "hello\n"));
    CHECK(put(dir, "proc/net/tcp6", "hello\n"));
    CHECK(pc_collect_tree(dir, "TCP States", 100, 4096, NULL, &s) == EINVAL);
    CHECK(s.err_path && strcmp(s.err_path, "proc/net/tcp") == 0);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* TCPv6 and TCP States in one query: tcp6 read once. */
static void test_shared_read(void)
{
    char dir[] = "/tmp/pl-tcps-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    tables(dir);
    pl_env *env = pl_env_new(dir);
    pl_query *q = pl_query_new(env);
    pl_sample *smp = NULL;
    pl_ksrc *k = pl_ksrc_attach(env, &pl_ksrc_tcp6);
    qadd(q, "\\TCPv6\\*");
    qadd(q, "\\TCP States(*)\\*");
    CHECK(pl_query_collect(q, &smp) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(k), 1);
    /* TCPv6 as before: established 1 (+ close wait 0), listening 1, time wait 1, total 4 */
    free(smp);
    pl_query_free(q);
    pl_snapshot s;
    CHECK(pc_collect_tree(dir, "TCPv6", 100, 4096, NULL, &s) == 0);
    EXPECT(&s, "", "Connections Established", 1);
    EXPECT(&s, "", "Connections Listening", 1);
    EXPECT(&s, "", "Connections Time Wait", 1);
    EXPECT(&s, "", "Connections Total", 4);
    pl_snap_free(&s);
    pl_env_unref(env);
    rm_tree(dir);
}

/* Live: a socket of this test listening on 127.0.0.1 is seen. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t n = 0, total = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4) == 0);
    CHECK(pc_collect_tree("/", "TCP States", 0, 0, NULL, &s) == 0);
    CHECK(get(&s, "IPv4", "Listen", &n) && n >= 1);
    CHECK(get(&s, "_Total", "Sockets", &total) && total >= n);
    pl_snap_free(&s);
    close(fd);
}

int main(void)
{
    RUN(test_fixture);
    RUN(test_absent);
    RUN(test_shared_read);
    RUN(test_live);
    return CT_END();
}
