/* /proc/net/dev as a kernel source (pl_ksrc.h): one row per interface line
 * of the query's network namespace, parsed once per collect.
 *
 * Each line is split at its last ':' and the name trimmed, so padded names
 * and names with a ':' (old alias style) come out whole; a line without a
 * ':' (the two headers), an empty name or one of PL_ND_NAME bytes or more is
 * no row.  The 16 values are in file order (receive bytes, packets, errs,
 * drop, fifo, frame, compressed, multicast, then transmit bytes, packets,
 * errs, drop, fifo, colls, carrier, compressed); ok[f] is 0 for a value the
 * line lacks, a malformed one, or one a cut read ends in. */
#ifndef PL_NETDEV_H
#define PL_NETDEV_H

#include "pl_ksrc.h"
#include "rows.h"

#define PL_ND_FIELDS 16
#define PL_ND_NAME 64

typedef struct pl_ndrow {
    char name[PL_ND_NAME];
    size_t len;
    uint64_t v[PL_ND_FIELDS];
    uint8_t ok[PL_ND_FIELDS];
} pl_ndrow;

/* The parsed file: a pl_rows of pl_ndrow. */
typedef pl_rows pl_netdev;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_netdev;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_netdev(const char *buf, size_t len, void *out);

#endif
