/* Prometheus textfiles: the node_exporter textfile-collector convention
 * (`*.prom` files in a directory, each written atomically by a cron job), each
 * metric family a counterset "Prometheus <family>" registered through the one
 * door (pl_register_counterset), its label sets the instances.
 *
 * Type mapping (counter ids are the same in every family):
 *   gauge, untyped   0 "Value"      PERF_DOUBLE_RAW (the float itself)
 *   counter          0 "Value"      PERF_DOUBLE_RAW
 *                    1 "Value/sec"  PERF_COUNTER_BULK_COUNT, fixed point 10^-3, scale -3
 *   summary          0 "Value" (a quantile= series), 2 "Sum", 3 "Sum/sec",
 *                    4 "Count", 5 "Count/sec", 6 "Average" (PERF_AVERAGE_BULK: the
 *                    mean observation over the interval), 7 "Average Base"
 *   histogram        as summary, and 1 "Value/sec" (a cumulative le= bucket's rate)
 * The per-second counters hold round(value x 1000) as an unsigned integer: 0.001
 * of the unit is kept, up to 1.8e16 (2^64 / 1000); a negative, non-finite or
 * larger value leaves them absent (no_data).  The DOUBLE_RAW counters hold the
 * double's bits: every float exactly, NaN and +-Inf formatting as invalid_data.
 *
 * Instance names: the labels sorted by name, "k1=v1,k2=v2" ("{}" for none; a
 * label with an empty value is no label, as in Prometheus' data model),
 * each control character of a value and each of % , = ( ) \ / # * ? [ ] "
 * written as %XX, so that a name works in a path (values are UTF-8). */
#ifndef PL_TEXTFILE_H
#define PL_TEXTFILE_H

#include "perflib.h"

#include <stddef.h>
#include <stdint.h>

#define PL_TEXTFILE_DEFAULT_DIR "/var/lib/prometheus/node-exporter"
#define PL_TEXTFILE_PREFIX "Prometheus "

/* ---- the parser (textfile_parse.c) ------------------------------------------ */
enum { PL_TF_UNTYPED, PL_TF_COUNTER, PL_TF_GAUGE, PL_TF_SUMMARY, PL_TF_HISTOGRAM, PL_TF_NTYPES };
enum { PL_TF_VALUE, PL_TF_SUM, PL_TF_COUNT };       /* what a series is of its family */

#define PL_TF_NAME_MAX 200        /* a metric name */
#define PL_TF_INST_MAX 1024       /* a rendered instance name */
#define PL_TF_LINE_MAX 65536
#define PL_TF_MSG 200

typedef struct pl_tf_family {
    char *name;
    char *help;               /* NULL when the file has no HELP line */
    int type;                 /* PL_TF_* */
    int typed;                /* a TYPE line gave it */
    uint32_t nsamples;
    uint32_t first;           /* its series are ser[first .. first + nsamples - 1] */
    char err[PL_TF_MSG];      /* the first problem of this family in the file, "" if none */
} pl_tf_family;

typedef struct pl_tf_series {
    uint32_t fam;             /* into the document's families */
    uint32_t slot;            /* PL_TF_VALUE, _SUM, _COUNT */
    uint32_t line;
    double v;
    char *inst;               /* rendered instance name */
} pl_tf_series;

typedef struct pl_tf_doc {
    pl_tf_family *fam;
    uint32_t nfam, capfam;
    pl_tf_series *ser;        /* by family, instance name, slot, then line */
    uint32_t nser, capser;
    char err[PL_TF_MSG];      /* a problem no family owns (a line without a name), "" if none */
} pl_tf_doc;

/* Parses len bytes of text format 0.0.4.  Problems never stop the parse:
 * each goes to the family its line names (pl_tf_family.err) or, when no name
 * can be read, to doc->err; a sample of a family with a problem is kept and
 * the family is then not to be trusted.  0 or ENOMEM (doc freed). */
int pl_tf_parse(const char *buf, size_t len, pl_tf_doc *doc);
void pl_tf_doc_free(pl_tf_doc *doc);
const char *pl_tf_type_name(int type);

/* ---- directories and countersets (textfile.c) -------------------------------- */
/* Adds dir to the directories read (once), reads it and registers its
 * families.  0, or errno with a sentence in msg (the directory cannot be
 * read: it is kept and read again later).  Thread-safe. */
int pl_textfiles_load(const char *dir, char *msg, size_t msgsize);
/* The directories of $PERFLIB_TEXTFILE_DIR (':'-separated), or
 * PL_TEXTFILE_DEFAULT_DIR when it is unset (a missing default is no error).
 * 0, or the first failure (ENOMEM matters) with msg. */
int pl_textfiles_load_default(char *msg, size_t msgsize);
/* Reads every directory again where it changed: new families registered.
 * 0 or ENOMEM.  pl_textfiles_load makes it a discoverer of the core, so every
 * pl_env_sync runs it. */
int pl_textfiles_refresh(void);

#endif
