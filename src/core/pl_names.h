/* Unique instance names, the one rule of every set that has duplicates
 * (Process, NFS Client, Thermal Zone, LogicalDisk ...), as Windows names
 * them: in listing order the first instance called "x" is "x", the next
 * "x#1", then "x#2" ...  A generated name that is already taken (an instance
 * really called "x#1") moves on to the next number, so the names of one
 * listing are always unique.
 *
 *   pl_names n;                        pl_names_init(&n) once
 *   pl_names_begin(&n, count);         at the start of each listing
 *   pl_names_next(&n, name, len, out)  for each instance, in listing order
 *   pl_names_free(&n);                 with the provider's state
 *
 * Allocation happens only while the table grows to the listing's size. */
#ifndef PL_NAMES_H
#define PL_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl_names {
    struct pl_nslot *slot;   /* open addressing, stamped per listing */
    uint32_t mask, used, stamp;
    char *arena;             /* the bytes of the names taken in this listing */
    size_t alen, acap;
} pl_names;

/* Bytes of out beyond the name: '#', up to 10 digits and the NUL. */
#define PL_NAMES_EXTRA 12

void pl_names_init(pl_names *n);
void pl_names_free(pl_names *n);
/* Starts a listing (about `expect` names; the table grows past it).  0 or ENOMEM. */
int pl_names_begin(pl_names *n, uint32_t expect);
/* The unique name of the next instance called name[0, len) (no NUL needed),
 * written with its NUL to out (len + PL_NAMES_EXTRA bytes); returns out, or
 * NULL for ENOMEM.  A name reserved first (Process's "_Total") makes a later
 * instance of that name "_Total#1". */
const char *pl_names_next(pl_names *n, const char *name, size_t len, char *out);

/* Writes the decimal of v at p; returns the end (no NUL). */
char *pl_utoa(char *p, uint32_t v);

#endif
