/* Connection tracking as kernel sources (pl_ksrc.h), read once per collect:
 *
 *   proc/sys/net/netfilter/nf_conntrack_count   the entries now   (one decimal)
 *   proc/sys/net/netfilter/nf_conntrack_max     the table's limit (one decimal)
 *   proc/net/stat/nf_conntrack                  per-CPU event counts
 *
 * The stat table is a header line of field names, then one line of %08x
 * fields per possible CPU (net/netfilter/nf_conntrack_standalone.c
 * ct_cpu_seq_show).  Its columns changed between kernels ("searched" and
 * "delete_list" before 5.x became "clashres" and "chainlength"), so fields
 * are found by their header name, never by position; a name a kernel does
 * not have is absent.  "entries" repeats the global count on every line and
 * is not kept.  A line with a field that is not 1-8 hex digits, or with
 * fewer fields than the header, or cut off, has ok 0.  All exist only while
 * the nf_conntrack module is loaded. */
#ifndef PL_CONNTRACK_H
#define PL_CONNTRACK_H

#include "pl_ksrc.h"
#include "rows.h"
#include "sysnum.h"             /* the two sysctls */

enum {
    PL_CT_FOUND, PL_CT_NEW, PL_CT_INVALID, PL_CT_IGNORE, PL_CT_DELETE, PL_CT_INSERT,
    PL_CT_INSERT_FAILED, PL_CT_DROP, PL_CT_EARLY_DROP, PL_CT_ICMP_ERROR, PL_CT_SEARCH_RESTART,
    PL_CT_CLASHRES, PL_CT_N
};

typedef struct pl_ctrow {
    int ok;
    uint32_t v[PL_CT_N];
} pl_ctrow;

typedef struct pl_ct_stat {
    pl_rows rows;            /* of pl_ctrow, one per possible CPU in order */
    int col[PL_CT_N];        /* column of each field in this file's header; -1 absent */
} pl_ct_stat;

extern const pl_ksrc_def pl_ksrc_ct_count, pl_ksrc_ct_max, pl_ksrc_ct_stat;

/* The pure parsers (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_ct_stat(const char *buf, size_t len, void *out);
void pl_ct_stat_release(void *out);

#endif
