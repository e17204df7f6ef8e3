/* Samples as Prometheus' text exposition format (0.0.4) and OpenMetrics
 * 1.0.0 (expose.c): what `perflua serve` answers on /metrics.  No Lua.
 *
 * Every counter of every result is one metric family, named and typed by
 * pl_metric_name (a counter with a base brings its base's family too),
 * HELP from the counter's help; a multi-instance set's samples carry
 * instance_name and, when the instance has one, instance_id labels.  The
 * value is the raw value x the unit's factor, so cumulative counters are in
 * base units and rate() is exact.  A value whose status is not valid (the
 * source did not have it, its set failed) is left out, never made up; a
 * family with no sample left is left out; perflib_counterset_up says for
 * each set whether its read succeeded. */
#ifndef PL_EXPOSE_H
#define PL_EXPOSE_H

#include "perflib.h"

/* A growing text; oom is set (and the text stops growing) when memory ran out. */
typedef struct pl_text {
    char *p;
    size_t len, cap;
    int oom;
} pl_text;

void pl_text_free(pl_text *t);
void pl_text_put(pl_text *t, const char *s, size_t n);
void pl_text_puts(pl_text *t, const char *s);
void pl_text_printf(pl_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum { PL_EXPOSE_TEXT = 0, PL_EXPOSE_OPENMETRICS = 1 };

/* Metric names of counter definitions, kept between expositions (names are
 * fixed for a definition; working them out is most of an exposition's cost).
 * The definitions must outlive it: those of one environment. */
typedef struct pl_expose_cache pl_expose_cache;
pl_expose_cache *pl_expose_cache_new(void);          /* NULL: ENOMEM */
void pl_expose_cache_free(pl_expose_cache *c);

/* Appends s's families to out (without OpenMetrics' "# EOF", which
 * pl_expose_end writes, so that more families may follow), names from cache
 * (NULL: none kept): 0 or ENOMEM. */
int pl_expose(const pl_sample *s, int format, pl_expose_cache *cache, pl_text *out);
/* The end of an exposition: "# EOF\n" for OpenMetrics, nothing for text. */
void pl_expose_end(int format, pl_text *out);
/* One family's HELP and TYPE lines (for callers adding their own, such as a
 * server's process metrics): name without OpenMetrics' _total. */
void pl_expose_family(pl_text *out, int format, const char *name, const char *type, const char *help);
/* A label value or HELP text escaped for the format: \\, \n and (labels) \",
 * invalid UTF-8 as U+FFFD. */
void pl_expose_escape(pl_text *out, const char *s, int label);

/* The countersets of env as JSON, what a remote client needs to read the
 * blocks a server sends: {"countersets":[{"name","guid","help","instance_type"
 * ("single"|"multiple"),"index","costly","counters":[{"id","name","help",
 * "type","base_id" (null if none),"detail","scale","size","unit","unit_scale",
 * "semantics"}]}]}.  0 or ENOMEM. */
int pl_expose_metadata(const pl_env *env, pl_text *out);
/* s as a JSON string with its quotes (control characters escaped, invalid
 * UTF-8 as U+FFFD). */
void pl_expose_json_string(pl_text *out, const char *s);

#endif
