/* Derived countersets: counters defined by formulas (expr.h) over other
 * counters of the same environment, evaluated in C over the formatted
 * values of an inner query each open set keeps (two samples, for rates).
 *
 * Instances.  A formula's paths each name one counter.  A path whose
 * instance has a wildcard ("*", "disk?") is a joined path; the others
 * (a fixed instance, or a single-instance set) are fixed paths.  A set with
 * no joined path has a single instance; otherwise its instances are those of
 * its first joined path (in the set's first counter that has one), in that
 * order, and every joined path's value is the instance of that name (the
 * first of that name), a fixed path's value the same for every instance.
 * An instance a joined path lacks has that counter absent (no_instance).
 *
 * Values.  Each derived counter is PERF_DOUBLE_RAW: its raw value is the
 * computed double.  An operand without a valid value, a division by zero or
 * a result that is not finite leaves the value absent (no_data).  The set
 * fails as a whole (err_msg a sentence) when its inner query cannot be
 * collected or the path that gives its instances failed.
 *
 * Nesting.  A formula may name a counter of any set of the environment,
 * derived ones included: they must exist when the derived set is made, so a
 * set can never depend on itself (no cycles). */
#ifndef PL_DERIVED_H
#define PL_DERIVED_H

#include "perflib.h"

typedef struct pl_derived_counter {
    const char *name;
    const char *formula;
    const char *help;        /* NULL: the formula */
    const char *unit;        /* NULL or "": none; otherwise appended to the help, and the
                                counter's declared unit when pl_unit_parse_scaled knows it */
    const char *semantics;   /* NULL: gauge; else "counter", "gauge" or "discrete" */
} pl_derived_counter;

typedef struct pl_derived pl_derived;

/* Builds a derived set over env's counters and registers it with
 * pl_env_register (guid NULL: a UUIDv8 of the name).  0; EINVAL with a
 * sentence (a formula that does not compile, an unknown semantics, a path that names no counter
 * of env or more than one, counters without a name or the same one twice,
 * more than PL_MAX_COUNTER_ID + 1 counters); EEXIST (name or GUID taken),
 * ENOSPC (no title index left), ENOMEM.  *out must outlive env and every
 * sample of it: free it with pl_derived_free after those. */
int pl_derived_new(pl_env *env, const char *name, const char *help, const pl_guid *guid,
                   const pl_derived_counter *counters, uint32_t ncounters, pl_derived **out, char *msg,
                   size_t msgsize);
const pl_counterset_def *pl_derived_def(const pl_derived *d);
void pl_derived_free(pl_derived *d);

/* A free fixed title index of env for a set of its own (pl_env_register):
 * the first span from 900,000,000 that no set of env holds; 0 if none. */
uint32_t pl_env_free_index(const pl_env *env);

#endif
