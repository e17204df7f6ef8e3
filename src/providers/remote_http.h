/* The HTTP client of remote machines (remote_http.c): libcurl, opened at
 * first use.  Not thread-safe: one request at a time per client. */
#ifndef PL_REMOTE_HTTP_H
#define PL_REMOTE_HTTP_H

#include <stddef.h>

struct curl_slist;

typedef struct pl_http {
    char *base;              /* "http://host:port" */
    void *easy;              /* one handle: its connection is kept alive */
    struct curl_slist *headers;
    char *cacert;
    long timeout_ms;         /* connect and whole request */
    char *buf;               /* the last answer's body, NUL-terminated */
    size_t len, cap, limit;
    long status;             /* the last answer's HTTP status */
    int truncated, nomem;
} pl_http;

/* 0, or ENOSYS (no libcurl), ENOMEM with a sentence in msg. */
int pl_http_init(pl_http *h, const char *base, const char *token, const char *cacert, long timeout_ms,
                 char *msg, size_t size);
/* Releases what init made (after a failed init too). */
void pl_http_free(pl_http *h);
/* GET path (body NULL) or POST body; the answer in h->buf, at most limit
 * bytes.  0 for HTTP 200; else ETIMEDOUT, ECONNREFUSED, EHOSTUNREACH,
 * EACCES (401, 403), EFBIG (over limit), EPROTO, ENOMEM with a sentence. */
int pl_http_request(pl_http *h, const char *path, const char *body, size_t len, size_t limit, char *msg,
                    size_t size);

#endif
