/* The parent side of the out-of-process plug-in host (plugin_host.c).
 *
 * Every V1 plug-in (a shared object with seed 002's Open / Collect / Close)
 * runs in its own perflib-plugin-host process (src/plughost), started with
 * posix_spawn and spoken to over a socketpair, so that a plug-in that
 * crashes, hangs or scribbles over memory takes only its host down.  The
 * host calls Collect into a buffer followed by a canary (and, at
 * ExtCounterTestLevel 1, a PROT_NONE guard page), checks what Windows'
 * Perflib checks of the call itself, and sends the bytes back.  What the
 * objects say is checked by the caller (plugin.c), never trusted here.
 *
 * The host program is found as $PERFLIB_PLUGIN_HOST (nothing else when it
 * is set), else $(LIBEXECDIR)/perflib-plugin-host when installed, else
 * perflib-plugin-host in or above the directory of the object holding this
 * code (build/ for build/perflib/core.so, build/libperflib.so,
 * build/ctest/x).  The host gets PERFLIB_FIRST_COUNTER, PERFLIB_FIRST_HELP,
 * PERFLIB_LAST_COUNTER and PERFLIB_LAST_HELP (decimal) in its environment
 * before the library is loaded, and ends by itself a second after perflib
 * goes away, even inside a hung Collect.
 *
 * Not thread-safe: the caller serialises calls on one host.  Part of the
 * providers; no Lua. */
#ifndef PL_PLUGIN_HOST_H
#define PL_PLUGIN_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The Perflib key's switches that act on a call (windows-perf-model.md 4.2;
 * "Configuration Flags" and ExtCounterTestLevel). */
typedef struct pl_plug_guards {
    unsigned test_level;      /* ExtCounterTestLevel: 1 all (guard page + canary + call checks),
                               * 2 basic (canary + call checks), 3 none, 4 (default) as 1 without
                               * the guard page */
    int check_alignment;      /* Configuration Flags 0x1 clear: *pcbData a multiple of 8 */
    int check_buffers;        /* 0x4 clear: canary, pointer, length and count checks */
    int check_timeouts;       /* 0x4 clear: open/collect timeouts enforced (0: wait forever) */
} pl_plug_guards;

typedef struct pl_plug_spec {
    const char *library;      /* path of the shared object (absolute) */
    const char *open_fn, *collect_fn, *close_fn;   /* exported names */
    const char *const *exports;   /* Linkage\Export strings for Open (REG_MULTI_SZ), may be NULL */
    unsigned nexports;
    uint32_t first_counter, first_help, last_counter, last_help;  /* given to the host's environment */
    unsigned open_timeout_ms, collect_timeout_ms;  /* 0: 10000 (Windows' default); Open's
                               * includes starting the host */
    size_t max_buffer;        /* ERROR_MORE_DATA doubles the buffer (from 64 KiB, or the
                               * last size that worked) up to this, then fails; 0: 16 MiB */
    pl_plug_guards guards;
} pl_plug_spec;

typedef struct pl_plughost pl_plughost;

/* A handle for spec (copied).  The host process starts on first use.
 * 0, ENOMEM, or E2BIG when its strings pass 1 MiB. */
int pl_plughost_new(const pl_plug_spec *spec, pl_plughost **out);

/* One Collect of query (ASCII: "Global", "MetadataGlobal", "1000 1008", ...;
 * the host hands the plug-in UTF-16).  Starts the host and runs Open first
 * when it is not running.  On 0: *data (len bytes: the PERF_OBJECT_TYPE
 * blocks, valid until the next call on h) and *nobjs as the plug-in
 * returned them.  Otherwise an errno with a sentence in msg, and the host is
 * gone (the next call starts a new one):
 *   ENOENT      the host program or the library or a function is missing
 *   ETIMEDOUT   Open or Collect did not return in time (host killed)
 *   ECHILD      the host died (signal or exit status in msg)
 *   EFAULT      the canary past the buffer was overwritten
 *   EOVERFLOW   ERROR_MORE_DATA up to max_buffer
 *   EPROTO      Open failed, or Collect returned another code, or moved its
 *               pointer, set its length or its count inconsistently (a
 *               length past the buffer is never sent, checks or not)
 *   E2BIG       a query longer than 1 MiB (the host stays)
 *   ENOMEM, EIO, EMFILE ...  the environment */
int pl_plughost_collect(pl_plughost *h, const char *query, const uint8_t **data, size_t *len,
                        uint32_t *nobjs, char *msg, size_t msgsize);

/* The host's pid, or 0 when none runs (tests). */
int pl_plughost_pid(const pl_plughost *h);

/* Close, then the host exits and is reaped (killed after a short grace). */
void pl_plughost_stop(pl_plughost *h);
void pl_plughost_free(pl_plughost *h);    /* stops it; NULL is fine */

#endif
