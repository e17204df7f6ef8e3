/* Remote machines: the countersets of a `perflua serve` daemon on another
 * host, read over HTTP (libcurl, opened at first use) from its
 * /api/v1/countersets (JSON, parsed with jansson) and /api/v1/query (V2 data
 * blocks, read with pl_db_read as untrusted input).  No Lua.
 *
 * A remote set is a counterset whose provider ops post its counter paths to
 * the host: one round trip per set and collect, on a connection kept alive
 * per remote.  Its values carry the remote's own read time (pl_snapshot's
 * time), so rates are the remote's deltas over the remote's clock.  A host
 * that is down, slow or answers garbage fails the set's collect with a
 * sentence (the query's status no_data), within the remote's timeout. */
#ifndef PL_REMOTE_H
#define PL_REMOTE_H

#include "perflib.h"

typedef struct pl_remote pl_remote;

typedef struct pl_remote_opts {
    const char *host;        /* "name:port" or "name" (port 9464) */
    const char *token;       /* bearer token, or NULL */
    int tls;                 /* https */
    const char *cacert;      /* PEM file of the CA to trust, or NULL (the system's) */
    double timeout;          /* seconds for a whole request (connect included); 0: 5 */
} pl_remote_opts;

#define PL_REMOTE_MAX_METADATA (16u << 20)   /* bytes of /api/v1/countersets read at most */
#define PL_REMOTE_MAX_BLOCK (64u << 20)      /* bytes of a data block read at most */

/* The remote for o->host, fetched once per process and kept (its definitions
 * are pointed at by environments and samples for as long as the process
 * runs): the same host, token, TLS and CA file again give the same remote
 * (o's timeout replaces its own) without a request; other options make a
 * new one, which reads the host's metadata.  NULL with errno (EINVAL for
 * a bad host or option, EACCES for a refused token, EPROTO for an answer
 * that is not perflib's, ECONNREFUSED / ETIMEDOUT / EHOSTUNREACH, ENOMEM) and
 * a sentence in msg. */
pl_remote *pl_remote_get(const pl_remote_opts *o, char *msg, size_t size);
/* Reads a /api/v1/countersets answer (len bytes of JSON) as pl_remote_get
 * does, keeping nothing: 0 with the number of sets in *nsets (may be NULL),
 * or EPROTO / ENOMEM with a sentence naming the set and field at fault. */
int pl_remote_check_metadata(const void *json, size_t len, uint32_t *nsets, char *msg, size_t size);
/* The remote's machine view: its countersets under their own names, GUIDs
 * and title indexes, nothing of this process (a new reference). */
pl_env *pl_remote_env(pl_remote *r);
const char *pl_remote_host(const pl_remote *r);
/* Adds the remote's sets to env named "\\host\Set" (so that a counter path
 * \\host\Set(inst)\Counter resolves in env), with GUIDs of that name and
 * title indexes in the assigned range.  Attaching twice is a no-op.  0,
 * ENOMEM, ENOSPC, EEXIST with a sentence in msg. */
int pl_remote_attach(pl_remote *r, pl_env *env, char *msg, size_t size);
/* One GET of path (e.g. "/healthz") on the kept connection: 0 for HTTP 200,
 * else an errno with a sentence (the bench's loopback round trip). */
int pl_remote_ping(pl_remote *r, const char *path, char *msg, size_t size);

#endif
