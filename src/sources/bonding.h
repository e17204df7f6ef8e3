/* Parsers of the bonding driver's sysfs files (kernel Documentation/
 * networking/bonding.rst, drivers/net/bonding/bond_sysfs.c and
 * bond_sysfs_slave.c), pure functions on the text of one file:
 *   /sys/class/net/bonding_masters      "bond0 bond1\n"
 *   <bond>/bonding/mode                 "active-backup 1\n" (name, number)
 *   <bond>/bonding/mii_status           "up\n" or "down\n"
 *   <bond>/bonding/slaves               "eth0 eth1\n" ("\n" or nothing: none)
 *   <bond>/bonding/active_slave         "eth0\n" (nothing without one)
 *   <slave>/bonding_slave/mii_status    "up", "going down", "down", "going back" */
#ifndef PL_BONDING_H
#define PL_BONDING_H

#include <stddef.h>

/* Link states of mii_status: the kernel's BOND_LINK_* order is different;
 * these are perflib's codes. */
enum { PL_BOND_DOWN = 0, PL_BOND_UP = 1, PL_BOND_FAIL = 2, PL_BOND_BACK = 3 };

/* The mode number 0..6 when the name and the number agree, else -1. */
int pl_bond_mode(const char *text);
/* The mode's name for a number 0..6, else NULL. */
const char *pl_bond_mode_name(int mode);
/* A mii_status: PL_BOND_*, or -1 for anything else. */
int pl_bond_link(const char *text);
/* The next interface name of a blank-separated list at *p: 1 with it in
 * out (cap bytes), 0 at the end, -1 for a name that is too long or not a
 * path component ('/', ".", ".."). */
int pl_bond_next_name(const char **p, char *out, size_t cap);

#endif
