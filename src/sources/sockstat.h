/* /proc/net/sockstat and sockstat6 as kernel sources (pl_ksrc.h): the
 * "TAG: key value ..." lines of the query's network namespace, parsed once
 * per collect into the fields perflib uses.
 *
 * Fields are named by their line and key; sockstat fills PL_SS_USED ..
 * PL_SS_FRAG_MEM, sockstat6 PL_SS_TCP6_INUSE .. PL_SS_FRAG6_MEM.  The two
 * "mem" fields count pages, FRAG "memory" bytes.  The first line of a tag
 * counts.  st[f] is PL_NS_ABSENT for a field the file did not have,
 * PL_NS_BAD for a malformed or negative value, PL_NS_OK with v[f]; a value
 * a cut read ends in is absent. */
#ifndef PL_SOCKSTAT_H
#define PL_SOCKSTAT_H

#include "pl_ksrc.h"
#include "netsnmp.h"

enum {
    PL_SS_USED,                                   /* sockets: used */
    PL_SS_TCP_INUSE, PL_SS_TCP_ORPHAN, PL_SS_TCP_TW, PL_SS_TCP_ALLOC, PL_SS_TCP_MEM,
    PL_SS_UDP_INUSE, PL_SS_UDP_MEM,
    PL_SS_RAW_INUSE,
    PL_SS_FRAG_INUSE, PL_SS_FRAG_MEM,
    PL_SS_TCP6_INUSE, PL_SS_UDP6_INUSE, PL_SS_RAW6_INUSE,
    PL_SS_FRAG6_INUSE, PL_SS_FRAG6_MEM,
    PL_SS_N
};

typedef struct pl_sockstat {
    uint64_t v[PL_SS_N];
    uint8_t st[PL_SS_N];
} pl_sockstat;

/* Both are single_open files: the whole text per read. */
extern const pl_ksrc_def pl_ksrc_sockstat, pl_ksrc_sockstat6;

/* The pure parsers (buf[len] is '\0'; safe on any bytes).  Always 0. */
int pl_parse_sockstat(const char *buf, size_t len, void *out);
int pl_parse_sockstat6(const char *buf, size_t len, void *out);

#endif
