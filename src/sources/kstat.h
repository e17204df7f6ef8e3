/* SPL kstats of OpenZFS on Linux (/proc/spl/kstat/zfs/...), as module/os/
 * linux/spl/spl-kstat.c prints them (alike from ZFS on Linux 0.7 to
 * OpenZFS 2.2): a header "%d %d 0x%02x %d %d %lld %lld\n" (kid, type,
 * flags, ndata, data_size, crtime, snaptime), then by the type:
 *
 *   KSTAT_TYPE_NAMED (1): the line "%-31s %-4s %s\n" of "name", "type",
 *     "data", then one entry a line: "%-31s %-4d " with its name and data
 *     type (include/os/linux/spl/sys/kstat.h: KSTAT_DATA_CHAR 0, INT32 1,
 *     UINT32 2, INT64 3, UINT64 4, LONG 5, ULONG 6, STRING 7), then its
 *     value: %d, %u, %lld, %llu, %ld, %lu, "%-16s" (CHAR) or "%s" (STRING);
 *   KSTAT_TYPE_IO (3): a line of twelve column names (nread nwritten reads
 *     writes wtime wlentime wupdate rtime rlentime rupdate wcnt rcnt) and
 *     one line of their decimals (kstat_seq_show_io).
 *
 * Entries are looked up by name, so that a name a version lacks is absent,
 * never 0 and never another entry's value.  The order of a kstat's entries
 * is fixed within a module version (its kstat_named_t array), so one walk
 * of the lines tries each name at the line it had in the previous parse;
 * only when one is not there, or the number of lines changed, are the
 * names not found searched for (an absent one is not looked for again while
 * the layout stays).  A name is the entry's first blank-
 * separated token (the histogram kstats' "1 ns" names are never asked for). */
#ifndef PL_KSTAT_H
#define PL_KSTAT_H

#include <stddef.h>
#include <stdint.h>

#define PL_KSTAT_MAX 48      /* names one parse looks up */

enum { PL_KSTAT_DATA_CHAR = 0, PL_KSTAT_DATA_STRING = 7 };

/* A named kstat, parsed for a list of names: v[k] and st[k] (PL_NS_*) for
 * names[k].  A signed entry that is negative, a value that is not a whole
 * decimal or passes 2^64-1, or an unknown data type, is PL_NS_BAD.  For a
 * CHAR or STRING entry, v[k] is the offset of its text in `text`
 * (pl_kstat_text). */
typedef struct pl_kstat {
    uint64_t v[PL_KSTAT_MAX];
    uint8_t st[PL_KSTAT_MAX];
    uint8_t dtype[PL_KSTAT_MAX];      /* the entry's KSTAT_DATA_* */
    uint32_t hint[PL_KSTAT_MAX];      /* its line in the previous parse, or none */
    uint8_t order[PL_KSTAT_MAX];      /* the names with a line, in line order */
    uint32_t nord, lines;             /* how many; the entry lines then */
    uint32_t searched;                /* names searched for (tests) */
    char *text;                       /* the texts of CHAR and STRING entries */
    uint32_t tlen, tcap;
} pl_kstat;

/* Parses a KSTAT_TYPE_NAMED file buf[0 .. len) (buf[len] is '\0') for
 * names[0 .. n) (n <= PL_KSTAT_MAX) into out, which keeps what an earlier
 * parse grew.  0; EINVAL when the bytes are not a named kstat (another
 * header type, no "name type data" line): then every name is absent;
 * ENOMEM. */
int pl_kstat_named(const char *buf, size_t len, const char *const *names, unsigned n,
                   pl_kstat *out);
/* The text of names[k] when it is a CHAR or STRING entry read well, else
 * NULL. */
const char *pl_kstat_text(const pl_kstat *k, unsigned i);
/* Frees what pl_kstat_named grew (a pl_ksrc_def release). */
void pl_kstat_release(void *out);

/* KSTAT_TYPE_IO: its twelve columns, found by the header's names. */
enum {
    PL_KIO_NREAD, PL_KIO_NWRITTEN, PL_KIO_READS, PL_KIO_WRITES, PL_KIO_WTIME, PL_KIO_WLENTIME,
    PL_KIO_WUPDATE, PL_KIO_RTIME, PL_KIO_RLENTIME, PL_KIO_RUPDATE, PL_KIO_WCNT, PL_KIO_RCNT,
    PL_KIO_N
};
typedef struct pl_kstat_io {
    uint64_t v[PL_KIO_N];
    uint8_t st[PL_KIO_N];
} pl_kstat_io;

/* Parses an I/O kstat: 0 (a column the header lacks, or whose value is not
 * a decimal, is absent or bad); EINVAL when the bytes are not one. */
int pl_kstat_io_parse(const char *buf, size_t len, pl_kstat_io *out);

#endif
