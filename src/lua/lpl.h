/* Private declarations shared by the Lua binding files.  One file per
 * userdata class; this header is the only coupling between them. */
#ifndef LPL_H
#define LPL_H

#include "lcompat.h"          /* lua.h and lauxlib.h, for whichever Lua */
#include "perflib.h"

#define LPL_MACHINE    "perflib.Machine"
#define LPL_COUNTERSET "perflib.CounterSet"
#define LPL_QUERY      "perflib.Query"
#define LPL_SAMPLE     "perflib.Sample"
#define LPL_WINDOW     "perflib.Window"
#define LPL_RULEBANK   "perflib.RuleBank"
#define LPL_FLAP       "perflib.Flap"

/* 1970-01-01 UTC as FILETIME (100 ns since 1601): Unix seconds <-> sample times */
#define LPL_UNIX_EPOCH_100NS 116444736000000000LL

typedef struct lpl_machine { pl_env *env; } lpl_machine;
typedef struct lpl_counterset { const pl_counterset_def *cs; } lpl_counterset;
typedef struct lpl_query {
    pl_query *q;
    int busy;                /* collecting: a perflib.define callback it runs may not use it */
    int closing;             /* closed by such a callback: released when the collect ends */
} lpl_query;
typedef struct lpl_sample {
    pl_sample *s;            /* NULL once released */
    size_t cap;              /* bytes after the header for the sample, which lives inline */
} lpl_sample;

/* Creates a metatable with methods in __index (or an __index function). */
void lpl_newclass(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods);

/* lmachine.c */
void lpl_open_machine(lua_State *L);
lpl_machine *lpl_check_machine(lua_State *L, int i);
int lpl_info(lua_State *L);                   /* perflib.info (lmachine.c) */
/* The machine at i if it is one, else the default machine ("/"); pushed. */
lpl_machine *lpl_opt_machine(lua_State *L, int i);
/* Builds a machine from an options table at i ({root=, user_hz=, page_size=}). */
lpl_machine *lpl_machine_from_opts(lua_State *L, int i);

/* lremote.c: a remote machine from options {host=, token=, tls=, cacert=,
 * timeout=} at t: pushes it (1), or fail, message, errno (3). */
int lpl_remote_machine(lua_State *L, int t);
/* Attaches host's sets to env (options from perflib.remote_tokens[host]):
 * 0, or an errno with a sentence in msg. */
int lpl_remote_attach(lua_State *L, pl_env *env, const char *host, char *msg, size_t size);
/* Pushes perflib.remote_tokens (made once per state). */
void lpl_open_remote(lua_State *L);
/* Pushes the full path of a file below the machine's root, for messages. */
const char *lpl_push_path(lua_State *L, pl_env *env, const char *rel);

/* lcollect.c: sets collect, its named parts, lookup and index_of in the table on top */
void lpl_open_collect(lua_State *L);

/* lcounterset.c */
void lpl_open_counterset(lua_State *L);
/* Pushes a CounterSet for cs pinning the machine at index mi. */
void lpl_push_counterset(lua_State *L, const pl_counterset_def *cs, int mi);
/* Pushes an iterator over the countersets of the machine at index mi. */
int lpl_countersets(lua_State *L, int mi);
void lpl_push_counter_info(lua_State *L, const pl_counterset_def *cs, const pl_counter_def *c);
/* nil and "no counter ... in 'Set'" for the name or id at stack index arg. */
int lpl_push_no_counter(lua_State *L, const pl_counterset_def *cs, int arg);
int lpl_metric_name(lua_State *L);            /* perflib.metric_name (lcounterset.c) */

/* lquery.c */
void lpl_open_query(lua_State *L);
int lpl_new_query(lua_State *L, int mi);

/* The userdata at i when its metatable is the table at mt (an upvalue),
 * else NULL: a pointer compare, where luaL_testudata looks the class name up
 * in the registry (a string made and compared per call, a large part of
 * an empty collect's cost in Lua). */
static inline void *lpl_has_meta(lua_State *L, int i, int mt)
{
    int same;
    if (!lua_getmetatable(L, i))
        return NULL;
    same = lua_rawequal(L, -1, mt);
    lua_pop(L, 1);
    return same ? lua_touserdata(L, i) : NULL;
}

/* lsample.c */
void lpl_open_sample(lua_State *L);
/* Allocator for pl_query_collect_with: pushes a userdata that holds the
 * sample inline, so the garbage collector sees its real size; or, when
 * reuse is an inline sample big enough, hands out its memory instead. */
typedef struct lpl_alloc {
    lua_State *L;
    lpl_sample *reuse;       /* a sample to refill, or NULL */
    int reused;              /* set when reuse's memory was used */
} lpl_alloc;
void *lpl_sample_alloc(void *a, size_t size);
lpl_sample *lpl_test_sample(lua_State *L, int i);
/* The sample at i, raising for a released one. */
lpl_sample *lpl_check_sample(lua_State *L, int i);
/* After pl_query_collect_with on q returned e: 0 when it worked, else the
 * number of values pushed (fail, message, errno; a query closed by its own
 * collect's callback is freed). */
int lpl_collect_failed(lua_State *L, lpl_query *q, int e);
/* Finishes the sample lpl_sample_alloc pushed for the query at qi: its
 * machine (at mi) and the query's names cache. */
void lpl_query_sample(lua_State *L, int qi, pl_sample *s, int mi);
/* Finishes the userdata pushed by lpl_sample_alloc (now at the top). */
void lpl_sample_finish(lua_State *L, pl_sample *s, int mi);
/* The same with the sample metatable at index mt (an upvalue, say): no
 * registry lookup by name. */
void lpl_sample_finish_meta(lua_State *L, pl_sample *s, int mi, int mt);
/* The older sample at i (nil allowed: NULL), checked against s1. */
const pl_sample *lpl_opt_older(lua_State *L, int i, const pl_sample *s1);
/* Raises (naming argument i) when a foreign s0 holds no result b pairs with. */
void lpl_check_paired(lua_State *L, int i, const pl_sample *s1, const pl_block *b, const pl_sample *s0);

/* levaluate.c: evaluate and columns, and the names cache they share with
 * the iterators (a sample's user value 2: its query's, or its own) */
void lpl_open_evaluate(lua_State *L, int methods);
/* A status's key in the table of status names (an unknown code reads as invalid_data, as pl_status_name says). */
static inline lua_Integer lpl_status_key(unsigned st)
{
    return (lua_Integer)(st < PL_STATUS_COUNT ? st : PL_INVALID_DATA) + 1;
}
/* Pushes a new, empty names cache (a query keeps one for its samples). */
void lpl_push_cache_new(lua_State *L);
/* Pushes the cache of the sample at si (made for it if it has none); returns its index. */
int lpl_push_cache(lua_State *L, int si);
/* Pushes the cache's table of status names, by lpl_status_key. */
void lpl_push_status_names(lua_State *L, int si);
/* The formatted iterators' buffer: pushes the cache's (taken out of it) or
 * nil, and returns how many values it holds; give puts the one at buf back. */
size_t lpl_iter_buffer_take(lua_State *L, int si);
void lpl_iter_buffer_give(lua_State *L, int si, int buf);
/* Pushes block b's instance names and counter names: the cache's shared
 * tables (made once per list, read only). */
void lpl_push_block_names(lua_State *L, int si, const pl_sample *s, const pl_block *b);

/* lsuggest.c: perflib.suggest */
int lpl_suggest(lua_State *L);

/* lproc.c: perflib.spawn, perflib.wait, perflib.kill, perflib.syslog, perflib.isatty */
int lpl_spawn(lua_State *L);
int lpl_wait(lua_State *L);
int lpl_kill(lua_State *L);
int lpl_syslog(lua_State *L);
int lpl_isatty(lua_State *L);
int lpl_plugins(lua_State *L);
int lpl_load_plugins(lua_State *L);
int lpl_reset_plugin(lua_State *L);

/* Environment failure: pushes nil, "what: strerror(e)", e and returns 3. */
int lpl_fail(lua_State *L, const char *what, int e);
/* Formatting flags from an options table {nocap=, x1000=, noscale=} at i. */
unsigned lpl_fmt_flags(lua_State *L, int i);
/* Reads formatting options at i (nil allowed) into fmt, checking its keys. */
void lpl_check_fmt(lua_State *L, int i, const char *const *keys, const char *fname, pl_fmt *fmt);
/* Raises for unknown keys in an options table. */
void lpl_check_keys(lua_State *L, int t, const char *const *keys, const char *fname);

/* lwindow.c: rule windows */
#include "pl_window.h"
void lpl_open_window(lua_State *L);
int lpl_new_window(lua_State *L);
/* "reset", "first_sample", "no_data" for a pl_why, NULL for none. */
const char *lpl_why_name(int why);
pl_wstatus lpl_wstatus_of(const char *status);

/* A window's userdata: released (by __gc or __close) it raises on use, and
 * the rule bank refuses to step it. */
typedef struct lpl_window {
    pl_window w;             /* first: the bank keeps &w */
    int released;
} lpl_window;
static inline int lpl_window_released(const pl_window *w)
{
    return ((const lpl_window *)(const void *)w)->released;
}

/* lflap.c: flap histories */
void lpl_open_flap(lua_State *L);
int lpl_new_flap(lua_State *L);
pl_flap *lpl_test_flap(lua_State *L, int i);
/* A released flap history has no bits (pl_flap_free); a live one always has. */
static inline int lpl_flap_released(const pl_flap *f) { return f->bits == NULL; }

/* lrulebank.c: the rule engine's fast path */
void lpl_open_rulebank(lua_State *L);
int lpl_new_rulebank(lua_State *L);

/* lblock.c: samples as data blocks */
int lpl_sample_block(lua_State *L);
int lpl_sample_from_block(lua_State *L);
int lpl_check_block(lua_State *L);

/* llog.c: binary logs (log_writer, read_log) into the table on top */
void lpl_open_log(lua_State *L);
void lpl_open_openlog(lua_State *L);
/* Why result b of the sample (the userdata at index si) failed, pushed. */
void lpl_push_block_error(lua_State *L, int si, const pl_block *b);
/* opts[key] (table at t), Unix seconds, as FILETIME (dflt when absent; raises
 * naming it), with half a microsecond of slack on side -1 (a lower bound) or
 * 1 (an upper one). */
int64_t lpl_opt_time(lua_State *L, int t, const char *key, int64_t dflt, int side);
/* perflib.core.frame: engine frames in one call (lframe.c). */
int lpl_frame(lua_State *L);

/* lsignal.c */
int lpl_trap(lua_State *L);
int lpl_trapped(lua_State *L);
int lpl_signalled(lua_State *L);
/* "TERM" or "INT" when one is trapped and pending (not consumed), or NULL. */
const char *lpl_stop_signal(void);

/* lprovider.c: perflib.provider (upvalue 1: perflib.types) */
void lpl_open_provider(lua_State *L);
int lpl_provider(lua_State *L);
/* ldefine.c: perflib.define, perflib.derive */
int lpl_define(lua_State *L);

/* lserve.c: perflib.serve and perflib.Server */
void lpl_open_server(lua_State *L);
int lpl_serve(lua_State *L);
int lpl_derive(lua_State *L);

/* lhttp.c: perflib.http (POST requests on libcurl's multi interface) */
void lpl_open_http(lua_State *L);
int lpl_new_http(lua_State *L);

/* lterm.c: the terminal layer of the live views; pushes the table perflib.term */
void lpl_open_term(lua_State *L);

/* lsandbox.c: the rule sandbox */
int lpl_sandbox(lua_State *L);
int lpl_sandbox_lib(lua_State *L);

#endif
