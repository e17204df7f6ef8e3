/* /proc/net/ip_vs as a kernel source (pl_ksrc.h): one row per real server
 * (backend) of each virtual service, with its service's key.  The table
 * (net/netfilter/ipvs/ip_vs_ctl.c ip_vs_info_seq_show, the same layout
 * since 2.6.28; IPv6 since 2.6.28, the ops flag since 2.6.37):
 *
 *   IP Virtual Server version 1.2.1 (size=4096)
 *   Prot LocalAddress:Port Scheduler Flags
 *     -> RemoteAddress:Port Forward Weight ActiveConn InActConn
 *   TCP  0A000001:0050 rr
 *     -> 0A000002:0050      Masq    1      0          0
 *   UDP  [2001:0db8:0000:0000:0000:0000:0000:0001]:0035 wlc persistent 300 FFFFFFFF
 *     -> [2001:0db8:0000:0000:0000:0000:0000:0002]:0035      Route   2      0          4
 *   FWM  00000001 rr
 *     -> 0A000003:0000      Tunnel  1      12         0
 *
 * A service line is "%s  %08X:%04X %s " (the protocol's name, the address
 * as ntohl in hex, the port in hex, the scheduler), "%s  [%pI6]:%04X %s "
 * for IPv6 (eight groups of four hex digits) or "FWM  %08X %s " for a
 * firewall-mark service, then optional flags; a real server line is
 * "  -> %08X:%04X      %-7s %-6d %-10d %-10d" (or "[%pI6]:%04X"): forwarding
 * method, weight, active and inactive connections.  A real server's family
 * may differ from its service's (tunnels, 3.18+).  There are no per-server
 * byte or packet counts in /proc (only netlink's IPVS_DEST_ATTR_STATS has
 * them).
 *
 * Weight, ActiveConn and InActConn are found by the names of the third
 * header line; a file whose first three lines are not the headers above has
 * no rows.  A row's key is its service's and its own address: a server line
 * under a malformed service line, with another count of fields than the
 * header, an address that is not the kernel's hex (or, in brackets, IPv6),
 * or cut off (no '\n') has ok 0.  A count that is not a decimal of 64 bits
 * (or is negative) is PL_NS_BAD alone.  Only the reader's network namespace
 * is listed.  Without the ip_vs module the file does not exist (ENOENT). */
#ifndef PL_IPVSDEST_H
#define PL_IPVSDEST_H

#include "pl_ksrc.h"
#include "rows.h"

enum { PL_IPVSD_WEIGHT, PL_IPVSD_ACTIVE, PL_IPVSD_INACTIVE, PL_IPVSD_N };
enum { PL_IPVS_AF_FWM = 1, PL_IPVS_AF_INET, PL_IPVS_AF_INET6 };

#define PL_IPVS_PROTO 10     /* "ICMPv6", "IP_255" (ip_vs_proto_name) and a '\0' */

/* Zero-filled before it is set, so that two keys compare with memcmp. */
typedef struct pl_ipvs_key {
    uint8_t svc_addr[16];    /* network order: 4 bytes for IPv4; unused for FWM */
    uint8_t dst_addr[16];
    uint32_t fwmark;         /* FWM services */
    uint16_t svc_port, dst_port;
    uint8_t svc_af, dst_af;  /* PL_IPVS_AF_* */
    char proto[PL_IPVS_PROTO];   /* "TCP", "UDP", "SCTP" ... or "FWM" */
} pl_ipvs_key;

typedef struct pl_ipvs_vals {
    uint64_t v[PL_IPVSD_N];
    uint8_t st[PL_IPVSD_N];  /* PL_NS_* */
} pl_ipvs_vals;

typedef struct pl_ipvsrow {
    int ok;                  /* 0: no key (malformed or cut off) */
    pl_ipvs_key key;
    pl_ipvs_vals vals;
} pl_ipvsrow;

/* The parsed file: a pl_rows of pl_ipvsrow. */
typedef pl_rows pl_ipvs_dests;

extern const pl_ksrc_def pl_ksrc_ipvs_dests;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_ipvs_dests(const char *buf, size_t len, void *out);

/* The key as an instance name, "TCP 10.0.0.1:80 -> 10.0.0.2:80",
 * "UDP [2001:db8::1]:53 -> [2001:db8::2]:53", "FWM 1 -> 10.0.0.3:0" (ports
 * and marks in decimal, IPv6 compressed), into buf of PL_IPVS_NAME bytes. */
#define PL_IPVS_NAME 128
void pl_ipvs_key_name(const pl_ipvs_key *k, char *buf);

#endif
