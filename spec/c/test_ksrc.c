/* Kernel sources (pl_ksrc.h): one read per collect generation for every set
 * of a machine, shared file descriptors across queries, one instant for
 * the sets a read feeds, and the pure MIB parsers on bytes.  Against the
 * net-basic fixture tree (run from the repository root) and temporary
 * trees rewritten between collects. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "netmib.h"
#include "proctable.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define FX "spec/fixtures/net-basic"

/* IPv4, TCPv4, UDPv4 and ICMP all read /proc/net/snmp: once per collect,
 * and at one instant. */
static void test_one_read_per_collect(void)
{
    pl_env *env = pl_env_new(FX);
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ksrc *snmp = pl_ksrc_attach(env, &pl_ksrc_snmp);
    qadd(q, "\\IPv4\\*");
    qadd(q, "\\TCPv4\\*");
    qadd(q, "\\UDPv4\\*");
    qadd(q, "\\ICMP\\*");
    CHECK(snmp != NULL);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(snmp), 1);
    CHECK(s->blocks[0].time == s->blocks[1].time);
    CHECK(s->blocks[0].time == s->blocks[2].time && s->blocks[2].time == s->blocks[3].time);
    CHECK(s->blocks[0].time == pl_ksrc_time(snmp));
    free(s);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(snmp), 2);    /* a new collect reads afresh */
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Two queries of a machine use one reader (one fd); each collect is its own
 * generation unless the caller holds one around both. */
static void test_queries_share(void)
{
    pl_env *env = pl_env_new(FX);
    pl_query *a = pl_query_new(env), *b = pl_query_new(env);
    pl_sample *sa = NULL, *sb = NULL;
    pl_ksrc *snmp = pl_ksrc_attach(env, &pl_ksrc_snmp);
    qadd(a, "\\TCPv4\\Segments/sec");
    qadd(b, "\\UDPv4\\Datagrams/sec");
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(snmp), 2);
    CHECK(pl_ksrc_attach(env, &pl_ksrc_snmp) == snmp);
    free(sa);
    free(sb);
    pl_env_begin(env);
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(snmp), 3);    /* one read for both */
    CHECK(sa->blocks[0].time == sb->blocks[0].time);
    /* Tcp InSegs 129026 + OutSegs 128604 = 257630; Udp InDatagrams + OutDatagrams */
    CHECK_EQ_U64(sa->vals[0].v, 129026 + 128604);
    free(sa);
    free(sb);
    /* outside a generation every get reads */
    CHECK(pl_ksrc_get(snmp) == 0 && pl_ksrc_get(snmp) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(snmp), 5);
    pl_query_free(a);
    pl_query_free(b);
    pl_env_unref(env);
}

/* A set only reads the sources its wanted counters need: TCPv4's TcpExt
 * counters come from netstat, which a query for Segments/sec never reads. */
static void test_only_needed(void)
{
    pl_env *env = pl_env_new(FX);
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ksrc *netstat = pl_ksrc_attach(env, &pl_ksrc_netstat);
    qadd(q, "\\TCPv4\\Segments/sec");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(netstat), 0);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A file that changes layout between collects: a column added before the
 * known ones, a section removed.  Values follow their names; a removed one
 * is absent, never the value of another line. */
static void test_layout_change(void)
{
    char cmd[200];
    pl_env *env;
    pl_query *q;
    pl_sample *s = NULL;
    ct_tmp_init("test_ksrc");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/proc/net", ct_dir);
    CHECK(system(cmd) == 0);
    write_file(tmp("proc/net/snmp"), "Tcp: ActiveOpens InSegs OutSegs\nTcp: 1 100 50\n"
                                     "Udp: InDatagrams OutDatagrams\nUdp: 7 8\n");
    env = pl_env_new(ct_dir);
    q = pl_query_new(env);
    qadd(q, "\\TCPv4\\Segments/sec");
    qadd(q, "\\UDPv4\\Datagrams/sec");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(s->vals[0].v, 150);         /* 100 + 50 */
    CHECK(s->have[0] == 1);
    CHECK_EQ_U64(s->vals[1].v, 15);          /* 7 + 8 */
    free(s);
    /* rewritten in place: a new column first, Udp gone */
    write_file(tmp("proc/net/snmp"), "Tcp: NewKey ActiveOpens OutSegs InSegs\nTcp: 9 2 60 200\n");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(s->vals[0].v, 260);         /* 200 + 60, by name */
    CHECK(s->have[1] == 0);                  /* no Udp line: absent */
    free(s);
    /* shorter than the first read, and cut inside a number */
    write_file(tmp("proc/net/snmp"), "Tcp: InSegs OutSegs\nTcp: 5 6");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(s->vals[0].v, 11);          /* a last line without '\n' is whole in a file */
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    ct_tmp_remove();
}

/* The pure parser on bytes: absent, bad and cut values are told apart. */
static void test_parser_bytes(void)
{
    static pl_mib m;
    const char *t = "Tcp: ActiveOpens PassiveOpens CurrEstab InSegs\nTcp: 3 -1 x7 12";
    char buf[128];
    snprintf(buf, sizeof buf, "%s", t);
    CHECK(pl_parse_snmp(buf, strlen(buf), &m) == 0);
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_ACTIVE] == PL_NS_OK && m.v[PL_SNMP_TCP + PL_TCP_ACTIVE] == 3);
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_PASSIVE] == PL_NS_BAD);     /* negative */
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_ESTAB] == PL_NS_BAD);       /* garbage */
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_INSEGS] == PL_NS_ABSENT);   /* cut off: no '\n' after it */
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_OUTSEGS] == PL_NS_ABSENT);  /* not in the file */
    CHECK(m.st[PL_SNMP_UDP + PL_UDP_IN] == PL_NS_ABSENT);
    /* the same struct parsed again forgets what the new bytes lack */
    snprintf(buf, sizeof buf, "Udp: InDatagrams\nUdp: 4\n");
    CHECK(pl_parse_snmp(buf, strlen(buf), &m) == 0);
    CHECK(m.st[PL_SNMP_TCP + PL_TCP_ACTIVE] == PL_NS_ABSENT);
    CHECK(m.st[PL_SNMP_UDP + PL_UDP_IN] == PL_NS_OK && m.v[PL_SNMP_UDP + PL_UDP_IN] == 4);
    snprintf(buf, sizeof buf, "Ip6InReceives 5\nIcmp6InMsgs\t7\nUdp6InDatagrams 9 extra\n");
    CHECK(pl_parse_snmp6(buf, strlen(buf), &m) == 0);
    CHECK(m.st[PL_SNMP6_IP6 + PL_IP_INREC] == PL_NS_OK && m.v[PL_SNMP6_IP6 + PL_IP_INREC] == 5);
    CHECK(m.st[PL_SNMP6_ICMP6 + PL_ICMP_INMSG] == PL_NS_OK && m.v[PL_SNMP6_ICMP6 + PL_ICMP_INMSG] == 7);
    CHECK(m.st[PL_SNMP6_UDP6 + PL_UDP_IN] == PL_NS_BAD);        /* "key 9 extra" */
}

/* Process: the queries of a machine share its process table: one listing,
 * one stat read per process in a generation, one set of kept fds. */
static void test_process_table(void)
{
    pl_env *env = pl_env_new("spec/fixtures/proc-basic");
    pl_query *a = pl_query_new(env), *b = pl_query_new(env);
    pl_sample *sa = NULL, *sb = NULL;
    pl_env_set_user_hz(env, 100);
    pl_env_set_page_size(env, 4096);
    qadd(a, "\\Process(*)\\% Processor Time");
    qadd(b, "\\Process(*)\\Private Bytes");
    pl_env_begin(env);
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    pl_env_end(env);
    /* the stat of the 9 processes (as test_process's test_lazy), kept once for both
     * queries, and the status of 1 2 1162 25423 30473 for b's Private Bytes */
    CHECK_EQ_U64(pl_pt_kept(), 9 + 5);
    CHECK(sa->blocks[0].ninst == sb->blocks[0].ninst);
    CHECK_EQ_U64(sa->blocks[0].ninst, 9);
    free(sa);
    free(sb);
    /* apart, each collect reads again, through the same kept fds */
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    CHECK_EQ_U64(pl_pt_kept(), 9 + 5);
    free(sa);
    free(sb);
    pl_query_free(a);
    CHECK_EQ_U64(pl_pt_kept(), 9 + 5);       /* the machine's, not a query's */
    pl_query_free(b);
    pl_env_unref(env);
    CHECK_EQ_U64(pl_pt_kept(), 0);
}

int main(void)
{
    RUN(test_one_read_per_collect);
    RUN(test_queries_share);
    RUN(test_only_needed);
    RUN(test_layout_change);
    RUN(test_parser_bytes);
    RUN(test_process_table);
    return CT_END();
}
