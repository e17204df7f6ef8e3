/* A small HTTP client for remote machines: one libcurl easy handle per
 * remote (the connection stays alive between requests), a connect and a
 * total timeout on every request, and a bound on every response body.
 *
 * libcurl is opened at first use, not linked: a program that never names a
 * remote machine never loads it (nor GnuTLS behind it, whose exit-time
 * destructor hangs a program run with a preloaded AddressSanitizer). */
#include "remote_http.h"
#include "pl_provider.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static struct curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    void (*easy_cleanup)(CURL *);
} C;

#define SYM(f) { "curl_" #f, offsetof(struct curl_api, f) }
static const struct { const char *name; size_t off; } syms[] = {
    SYM(global_init), SYM(easy_init), SYM(easy_setopt), SYM(easy_perform), SYM(easy_getinfo),
    SYM(easy_strerror), SYM(slist_append), SYM(slist_free_all), SYM(easy_cleanup),
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static const char *curl_why = "libcurl not loaded";

static void open_curl(void)
{
    static const char *const libs[] = { "libcurl-gnutls.so.4", "libcurl.so.4", "libcurl.so" };
    void *h = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !h; i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        curl_why = "cannot load libcurl (libcurl-gnutls.so.4, libcurl.so.4): install libcurl3-gnutls";
        return;
    }
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            curl_why = "libcurl lacks a function perflib needs";
            return;
        }
        memcpy((char *)&C + syms[i].off, &f, sizeof f);   /* object to function pointer, as POSIX allows */
    }
    curl_why = C.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? NULL : "curl_global_init failed";
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    pl_http *h = ud;
    size_t total = size * n;
    if (total > h->limit - h->len) {
        h->truncated = 1;
        return 0;                        /* stops the transfer: the rest is never read */
    }
    if (h->len + total > h->cap) {
        size_t cap = h->cap ? h->cap : 65536;
        while (cap < h->len + total)
            cap *= 2;
        char *p = realloc(h->buf, cap + 1);
        if (!p) {
            h->nomem = 1;
            return 0;
        }
        h->buf = p;
        h->cap = cap;
    }
    memcpy(h->buf + h->len, data, total);
    h->len += total;
    return total;
}

static int set_headers(pl_http *h, const char *token, const char *cacert, char *msg, size_t size)
{
    struct curl_slist *l = C.slist_append(NULL, "Content-Type: text/plain");
    if (l && token) {
        size_t n = strlen(token) + 32;
        char *line = malloc(n);
        struct curl_slist *l2 = line ? (snprintf(line, n, "Authorization: Bearer %s", token),
                                        C.slist_append(l, line)) : NULL;
        if (line)
            memset(line, 0, n);
        free(line);
        if (!l2) {
            C.slist_free_all(l);
            l = NULL;
        }
    }
    if (!l)
        return pl_say(ENOMEM, msg, size, "out of memory");
    C.slist_free_all(h->headers);
    h->headers = l;
    free(h->cacert);
    h->cacert = cacert ? strdup(cacert) : NULL;
    return cacert && !h->cacert ? pl_say(ENOMEM, msg, size, "out of memory") : 0;
}

int pl_http_init(pl_http *h, const char *base, const char *token, const char *cacert, long timeout_ms,
                 char *msg, size_t size)
{
    memset(h, 0, sizeof *h);
    pthread_once(&curl_once, open_curl);
    if (curl_why)
        return pl_say(ENOSYS, msg, size, "%s", curl_why);
    h->base = strdup(base);
    h->easy = C.easy_init();
    if (!h->base || !h->easy)
        return pl_say(ENOMEM, msg, size, "out of memory");
    h->timeout_ms = timeout_ms;
    return set_headers(h, token, cacert, msg, size);
}

static int curl_errno(CURLcode c)
{
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT: return ETIMEDOUT;
    case CURLE_COULDNT_CONNECT: return ECONNREFUSED;
    case CURLE_COULDNT_RESOLVE_HOST: return EHOSTUNREACH;
    case CURLE_OUT_OF_MEMORY: return ENOMEM;
    default: return EPROTO;
    }
}

int pl_http_request(pl_http *h, const char *path, const char *body, size_t len, size_t limit, char *msg,
                    size_t size)
{
    char url[1024], err[CURL_ERROR_SIZE] = "";
    long code = 0;
    snprintf(url, sizeof url, "%s%s", h->base, path);
    h->len = 0;
    h->truncated = h->nomem = 0;
    h->limit = limit;
    CURL *e = h->easy;
    C.easy_setopt(e, CURLOPT_URL, url);
    C.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    C.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, h->timeout_ms);
    C.easy_setopt(e, CURLOPT_TIMEOUT_MS, h->timeout_ms);
    C.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    C.easy_setopt(e, CURLOPT_WRITEDATA, h);
    C.easy_setopt(e, CURLOPT_HTTPHEADER, h->headers);
    C.easy_setopt(e, CURLOPT_ERRORBUFFER, err);
    C.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    C.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    C.easy_setopt(e, CURLOPT_CAINFO, h->cacert);
    if (body) {
        C.easy_setopt(e, CURLOPT_POST, 1L);
        C.easy_setopt(e, CURLOPT_POSTFIELDS, body);
        C.easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)len);
    } else {
        C.easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    CURLcode rc = C.easy_perform(e);
    C.easy_setopt(e, CURLOPT_ERRORBUFFER, NULL);
    if (h->nomem)
        return pl_say(ENOMEM, msg, size, "out of memory");
    if (h->truncated)
        return pl_say(EFBIG, msg, size, "%s%s: the answer is larger than %zu bytes", h->base, path, limit);
    if (rc != CURLE_OK)
        return pl_say(curl_errno(rc), msg, size, "%s%s: %s", h->base, path, *err ? err : C.easy_strerror(rc));
    if (h->buf)
        h->buf[h->len] = '\0';
    C.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    h->status = code;
    if (code == 200)
        return 0;
    /* the server's own sentence: its first line, printable bytes only */
    size_t n = 0;
    while (h->buf && n < h->len && n < 200 && h->buf[n] >= 0x20 && h->buf[n] < 0x7f)
        n++;
    return pl_say(code == 401 || code == 403 ? EACCES : EPROTO, msg, size, "%s%s: HTTP %ld%s%.*s", h->base, path,
                  code, n ? ": " : "", (int)n, h->buf ? h->buf : "");
}

void pl_http_free(pl_http *h)
{
    if (h->easy)
        C.easy_cleanup(h->easy);
    if (h->headers)
        C.slist_free_all(h->headers);
    free(h->base);
    free(h->cacert);
    free(h->buf);
    memset(h, 0, sizeof *h);
}
