/* Parsers for the SNMP-style files of /proc/net, shared by the IP, TCP, UDP,
 * ICMP and Sockets providers:
 *   pairs   /proc/net/snmp, netstat   "Tcp: RtoAlgorithm ...\nTcp: 1 200 ...\n"
 *   lines   /proc/net/snmp6           "Ip6InReceives   \t1\n"
 *   tagged  /proc/net/sockstat{,6}    "TCP: inuse 2 orphan 0 tw 32\n"
 * Values are found by name, never by position, so columns a newer kernel adds
 * shift nothing.  A number counts only when a blank or '\n' follows it, so a
 * value cut off by a truncated read is never taken; a negative value (Tcp
 * MaxConn is -1), garbage or a number above 2^64-1 is PL_NS_BAD.  Each call
 * fills only the keys it finds: clear st[] to PL_NS_ABSENT first. */
#ifndef PL_NETSNMP_H
#define PL_NETSNMP_H

#include "pl_ksrc.h"             /* PL_NS_ABSENT, PL_NS_OK, PL_NS_BAD */

#include <stddef.h>
#include <stdint.h>

typedef struct pl_ns_key {
    const char *name;
    unsigned char len;
} pl_ns_key;

#define PL_NS_KEY(s) { s, sizeof s - 1 }

/* The first "tag: names" / "tag: values" line pair (tag without ':'). */
void pl_ns_pairs(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                 uint64_t *v, uint8_t *st);
/* "key value" lines; only lines starting with tag are looked at. */
void pl_ns_lines(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                 uint64_t *v, uint8_t *st);
/* The fields of one tagged line, q just after its "tag:". */
void pl_ns_tagged_fields(const char *q, const pl_ns_key *keys, size_t n, uint64_t *v, uint8_t *st);
/* The first line "tag: name value name value ...". */
void pl_ns_tagged(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                  uint64_t *v, uint8_t *st);

#endif
