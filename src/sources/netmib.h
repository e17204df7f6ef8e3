/* The SNMP MIB files of a network namespace as kernel sources (pl_ksrc.h):
 * /proc/net/snmp (the Ip, Icmp, Tcp and Udp line pairs), /proc/net/netstat
 * (IpExt, TcpExt) and /proc/net/snmp6 (Ip6*, Icmp6*, Udp6* lines), each
 * parsed once per collect into a flat table of the fields perflib uses.
 *
 * A file's fields are its sections' keys one after the other; a section's
 * first field is PL_<FILE>_<SECTION>, and a key's place within its section
 * is the order of the key lists in netmib.c (the enums below).  st[f] is
 * PL_NS_ABSENT for a key the file did not have, PL_NS_BAD for a malformed,
 * negative or cut-off value, PL_NS_OK with v[f]. */
#ifndef PL_NETMIB_H
#define PL_NETMIB_H

#include "pl_ksrc.h"
#include "netsnmp.h"

/* Ip (snmp) and Ip6 (snmp6) share one order; InOctets and OutOctets are
 * IpExt's in netstat. */
enum { PL_IP_INREC, PL_IP_HDR, PL_IP_ADDR, PL_IP_FWD, PL_IP_UNK, PL_IP_INDISC, PL_IP_DELIV,
       PL_IP_OUTREQ, PL_IP_OUTDISC, PL_IP_NOROUTE, PL_IP_REASMREQ, PL_IP_REASMOK, PL_IP_REASMFAIL,
       PL_IP_FRAGOK, PL_IP_FRAGFAIL, PL_IP_FRAGCR, PL_IP_INOCT, PL_IP_OUTOCT, PL_IP_N };
/* Tcp (snmp), then TcpExt (netstat) from PL_TCP_LOVER */
enum { PL_TCP_ACTIVE, PL_TCP_PASSIVE, PL_TCP_FAILS, PL_TCP_RESETS, PL_TCP_ESTAB, PL_TCP_INSEGS,
       PL_TCP_OUTSEGS, PL_TCP_RETRANS, PL_TCP_INERRS, PL_TCP_OUTRSTS, PL_TCP_CSUM, PL_TCP_LOVER,
       PL_TCP_LDROP, PL_TCP_TIMEOUTS, PL_TCP_SYNRETR, PL_TCP_SCSENT, PL_TCP_SCRECV, PL_TCP_SCFAIL,
       PL_TCP_PRUNE, PL_TCP_RCVPRUNED, PL_TCP_OFOPRUNED, PL_TCP_TW, PL_TCP_LOSTRETR,
       PL_TCP_FASTRETR, PL_TCP_SSRETR, PL_TCP_ABDATA, PL_TCP_ABMEM, PL_TCP_ABTIMEOUT,
       PL_TCP_MEMPRESS, PL_TCP_BACKLOGDROP, PL_TCP_TWOVERFLOW, PL_TCP_REQQDROP, PL_TCP_RETRFAIL,
       PL_TCP_OFOQUEUE, PL_TCP_OFODROP, PL_TCP_ZWDROP, PL_TCP_RCVQDROP, PL_TCP_N };
/* Udp and UdpLite (snmp), Udp6 and UdpLite6 (snmp6) */
enum { PL_UDP_IN, PL_UDP_NOPORT, PL_UDP_INERR, PL_UDP_OUT, PL_UDP_RCVBUF, PL_UDP_SNDBUF,
       PL_UDP_CSUM, PL_UDP_IGNMULTI, PL_UDP_MEMERR, PL_UDP_N };
/* Icmp (snmp: up to PL_ICMP_INPTB) and Icmp6 (snmp6: all) */
enum { PL_ICMP_INMSG, PL_ICMP_INERR, PL_ICMP_OUTMSG, PL_ICMP_OUTERR, PL_ICMP_INDU, PL_ICMP_INTE,
       PL_ICMP_INECHO, PL_ICMP_INREP, PL_ICMP_OUTDU, PL_ICMP_OUTECHO, PL_ICMP_OUTREP,
       PL_ICMP_INPTB, PL_ICMP_OUTPTB, PL_ICMP_N };

/* /proc/net/snmp */
enum { PL_SNMP_IP = 0, PL_SNMP_ICMP = PL_SNMP_IP + PL_IP_INOCT, PL_SNMP_TCP = PL_SNMP_ICMP + PL_ICMP_INPTB,
       PL_SNMP_UDP = PL_SNMP_TCP + PL_TCP_LOVER, PL_SNMP_UDPLITE = PL_SNMP_UDP + PL_UDP_N,
       PL_SNMP_N = PL_SNMP_UDPLITE + PL_UDP_N };
/* /proc/net/netstat */
enum { PL_NETSTAT_IPEXT = 0, PL_NETSTAT_TCPEXT = 2, PL_NETSTAT_N = PL_NETSTAT_TCPEXT + PL_TCP_N - PL_TCP_LOVER };
/* /proc/net/snmp6 */
enum { PL_SNMP6_IP6 = 0, PL_SNMP6_ICMP6 = PL_IP_N, PL_SNMP6_UDP6 = PL_SNMP6_ICMP6 + PL_ICMP_N,
       PL_SNMP6_UDPLITE6 = PL_SNMP6_UDP6 + PL_UDP_N, PL_SNMP6_N = PL_SNMP6_UDPLITE6 + PL_UDP_N };

#define PL_MIB_MAX 64         /* the largest of the three tables */
_Static_assert(PL_SNMP_N <= PL_MIB_MAX && PL_NETSTAT_N <= PL_MIB_MAX && PL_SNMP6_N <= PL_MIB_MAX,
               "one pl_mib holds any of the three files");

typedef struct pl_mib {
    uint64_t v[PL_MIB_MAX];
    uint8_t st[PL_MIB_MAX];      /* PL_NS_* */
} pl_mib;

extern const pl_ksrc_def pl_ksrc_snmp, pl_ksrc_netstat, pl_ksrc_snmp6;

/* The pure parsers behind them (fuzz targets and tests call them on bytes):
 * buf holds len bytes and a '\0' after them.  Always 0. */
int pl_parse_snmp(const char *buf, size_t len, void *out);
int pl_parse_netstat(const char *buf, size_t len, void *out);
int pl_parse_snmp6(const char *buf, size_t len, void *out);

#endif
