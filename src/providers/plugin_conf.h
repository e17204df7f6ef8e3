/* The configuration of V1 plug-ins (plugin_conf.c): one INI file per
 * plug-in, `<name>.plugin` in a plug-in directory, standing in for the
 * service's Performance key and lodctr's .ini, and `perflib.conf` there for
 * the Perflib key's switches.  Keys are the Windows value names, compared
 * without case; `#` and `;` start comment lines.
 *
 *   [plugin]                         the Services\<name>\Performance key
 *   Library = transferpeer.so        relative to the file's directory, or absolute
 *   Open = OpenPerfData              Collect = CollectPerfData    Close = ClosePerfData
 *   Export = text                    Linkage\Export, one string a line (repeatable)
 *   First Counter = 1000             the plug-in's own title indexes start here (even;
 *                                    First Help is one more); default 1000
 *   Collect Supports Metadata = 1    answers MetadataGlobal / MetadataCostly
 *   Open Timeout = 10000             Collect Timeout = 5000      (ms)
 *   Failure Limit = 3                failures that disable it (perflib's)
 *   Max Buffer = 16777216            ERROR_MORE_DATA grows the buffer up to this
 *   Disable Performance Counters = 0 1: not loaded
 *
 *   [object Transfer]                one per object, its name
 *   Offset = 0                       name index = First Counter + Offset (lodctr's symbol)
 *   Help = ...                       Costly = 0
 *   Index = auto                     perflib's title index: auto or a multiple of 1000
 *   GUID = {...}                     default: UUIDv8 of plug-in and object name
 *   Counter 2 = Bytes Sent           the counter whose name index is First Counter + 2
 *   Help 2 = ...
 *   Unit 2 = bytes                   its unit: a name (bytes, seconds, count, ...) or a
 *                                    prefixed symbol (KiB, ms, MHz); default: from its type
 *   Semantics 2 = counter            counter, gauge or discrete; default: from its type
 *
 *   perflib.conf, [perflib]          the Perflib key
 *   Configuration Flags = 0x10       0x1 skip alignment tests, 0x2 never disable,
 *                                    0x4 no timeouts and no buffer checks
 *   Skip Alignment Test / Never Disable / Skip Buffer Checks / Skip Timeouts = 0|1
 *   ExtCounterTestLevel = 4          1 all, 2 basic, 3 none, 4 default (see plugin_host.h)
 *   Disable Performance Counters = 1 no plug-in is loaded (V1 counters off)
 *   Failure Limit, Open Timeout, Collect Timeout, Max Buffer: defaults for every plug-in
 */
#ifndef PL_PLUGIN_CONF_H
#define PL_PLUGIN_CONF_H

#include "perflib.h"
#include "plugin_host.h"

#define PL_PLUG_MAX_OBJECTS 64u           /* MAX_PERF_OBJECTS_IN_QUERY_FUNCTION */
#define PL_PLUG_MAX_COUNTERS (PL_MAX_COUNTER_ID + 1)
#define PL_PLUG_MAX_EXPORTS 64u

typedef struct plug_counter_cfg {
    uint32_t offset;          /* from First Counter */
    char *name, *help;
    uint8_t unit, semantics;  /* Unit n / Semantics n: pl_unit_kind, pl_semantics; 0 not given */
    double unit_scale;
} plug_counter_cfg;

typedef struct plug_obj_cfg {
    char *name, *help;
    uint32_t offset;
    uint32_t index;           /* perflib's, PL_INDEX_ASSIGN for auto */
    int has_guid, costly;
    pl_guid guid;
    plug_counter_cfg *counters;
    uint32_t ncounters;
} plug_obj_cfg;

/* The Perflib key. */
typedef struct perflib_cfg {
    pl_plug_guards guards;
    int disable_all;          /* Disable Performance Counters: no plug-in loads */
    int never_disable;        /* Configuration Flags 0x2: failures are reported, never disable */
    unsigned failure_limit, open_timeout_ms, collect_timeout_ms;
    size_t max_buffer;
} perflib_cfg;

typedef struct plug_cfg {
    char *name;               /* the file's name without ".plugin" */
    char *file;               /* its path */
    char *library, *open_fn, *collect_fn, *close_fn;
    char *exports[PL_PLUG_MAX_EXPORTS];
    unsigned nexports;
    uint32_t first_counter;
    int metadata, disabled;
    unsigned failure_limit, open_timeout_ms, collect_timeout_ms;   /* 0: the Perflib default */
    size_t max_buffer;
    plug_obj_cfg objs[PL_PLUG_MAX_OBJECTS];
    uint32_t nobjs;
} plug_cfg;

/* The defaults of a Perflib key without values. */
void pl_perflib_cfg_default(perflib_cfg *c);
/* Reads perflib.conf into c (which keeps its values for keys the file does
 * not have).  0, or EINVAL with "file:line: ..." in msg, or the errno of
 * reading it. */
int pl_perflib_cfg_read(const char *path, perflib_cfg *c, char *msg, size_t msgsize);
/* Reads one plug-in's file.  0, or EINVAL with "file:line: ..." in msg
 * (the file's problems), ENOMEM, or the errno of reading it.  c is freed
 * on failure. */
int pl_plug_cfg_read(const char *path, plug_cfg *c, char *msg, size_t msgsize);
void pl_plug_cfg_free(plug_cfg *c);
/* The configured object and counter of one of the plug-in's own title
 * indexes (NULL when none). */
const plug_obj_cfg *pl_plug_cfg_object(const plug_cfg *c, uint32_t title);
const plug_counter_cfg *pl_plug_cfg_counter(const plug_cfg *c, const plug_obj_cfg *o, uint32_t title);

#endif
