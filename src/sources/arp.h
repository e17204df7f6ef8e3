/* /proc/net/arp as a kernel source (pl_ksrc.h): one row per IPv4 neighbour
 * entry (net/ipv4/arp.c, arp_seq_show / arp_format_neigh_v4): IP address,
 * HW type, Flags, HW address, Mask, Device.
 *
 * The columns are found by the header's names (the header's columns are
 * separated by two or more spaces, as names hold one: "IP address"); a file
 * without a "Flags" and a "Device" column has no rows.  Flags is the
 * neighbour's ATF_* bits in hex (include/uapi/linux/if_arp.h: ATF_COM 0x02
 * complete, ATF_PERM 0x04 permanent; 0x0 incomplete).  A line whose flags
 * are not hex, whose device is missing or longer than IFNAMSIZ - 1, or
 * that is cut off (no '\n'), has ok 0: it counts for no device. */
#ifndef PL_ARP_SRC_H
#define PL_ARP_SRC_H

#include "pl_ksrc.h"
#include "rows.h"

#define PL_ARP_DEV 16        /* IFNAMSIZ */
#define PL_ATF_COM 0x02u
#define PL_ATF_PERM 0x04u

typedef struct pl_arprow {
    int ok;                  /* 0: malformed, counted nowhere */
    uint32_t flags;
    char dev[PL_ARP_DEV];
} pl_arprow;

/* The parsed file: a pl_rows of pl_arprow. */
typedef pl_rows pl_arp;

extern const pl_ksrc_def pl_ksrc_arp;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_arp(const char *buf, size_t len, void *out);

#endif
