/* V1 plug-in providers: seed 002's Open / Collect / Close in a shared
 * object, registered by a `<name>.plugin` file in a plug-in directory
 * (plugin_conf.h has the format), run out of process (plugin_host.h), and
 * registered through the one door (pl_register_counterset) so that each of
 * its objects is a counterset like a built-in one.
 *
 * Loading a plug-in starts its host, calls Open, then Collect with
 * "MetadataGlobal" (or "Global" when Collect Supports Metadata is 0; and
 * the Costly pair when an object is costly) to learn each object's counter
 * definitions: their types, sizes, scales and detail levels are the
 * plug-in's, their names and help the file's.  Each collect of one of its
 * countersets asks the plug-in for that object alone ("<index>") and checks
 * the answer against those definitions; the guards (timeouts, crashes,
 * canary, validation of every length, offset and name) count failures, and
 * `Failure Limit` consecutive ones disable the plug-in for this process
 * (until pl_plugin_reset) unless the Perflib key says never to.  The
 * plug-in's own title indexes (First Counter + offsets) are private to it:
 * perflib shows its objects under perflib title indexes (fixed by Index or
 * assigned from the GUID).  Plug-ins are never unloaded. */
#ifndef PL_PLUGIN_H
#define PL_PLUGIN_H

#include "perflib.h"

#define PL_PLUGIN_DEFAULT_DIR "/etc/perflib/plugins.d"

enum { PL_PLUGIN_RUNNING, PL_PLUGIN_DISABLED, PL_PLUGIN_FAILED, PL_PLUGIN_OFF };

typedef struct pl_plugin_info {
    char name[64];
    char file[256];
    char library[256];
    int state;                /* PL_PLUGIN_* */
    const char *state_name;   /* "running", "disabled", "failed", "off" */
    unsigned failures;        /* consecutive failures now */
    unsigned total_failures;
    unsigned failure_limit;   /* 0: never disabled */
    uint64_t collects;        /* Collect calls that worked */
    char error[384];          /* the last problem ("" if none) */
    uint32_t nsets;
    const pl_counterset_def *sets[64];
} pl_plugin_info;

/* Loads every *.plugin of dir (in name order) that is not loaded yet,
 * reading dir/perflib.conf first.  A plug-in that cannot load is kept as
 * "failed" with its reason; the call fails only for the directory itself:
 * 0, or errno with a sentence in msg.  Thread-safe. */
int pl_plugins_load(const char *dir, char *msg, size_t msgsize);
/* The directories of $PERFLIB_PLUGIN_DIR (':'-separated), or
 * PL_PLUGIN_DEFAULT_DIR when the variable is unset (a missing default
 * directory is no error).  0, or the first failure with msg. */
int pl_plugins_load_default(char *msg, size_t msgsize);
uint32_t pl_plugin_count(void);
/* A copy of plug-in i's state: 0 or ENOENT. */
int pl_plugin_info_get(uint32_t i, pl_plugin_info *out);
/* Enables a plug-in disabled after failures again: 0, ENOENT (no such
 * plug-in) or EINVAL (it is not disabled). */
int pl_plugin_reset(const char *name);

/* ---- for tests and the fuzz target ---------------------------------------- */
/* The objects of one Collect answer (len bytes, nobjs objects) checked against
 * the learned definitions of cs (a plug-in's set) and put into snap.  0,
 * ENODATA (no object: nothing to count against the plug-in), or EPROTO with
 * a sentence in msg (a bad answer).  lax: alignment tests off. */
int pl_plugin_take(const pl_counterset_def *cs, const uint8_t *buf, size_t len, uint32_t nobjs,
                   int lax, pl_snapshot *snap, char *msg, size_t msgsize);

#endif
