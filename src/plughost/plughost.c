/* perflib-plugin-host: runs one V1 plug-in (seed 002's Open / Collect /
 * Close in a shared object) for perflib, out of perflib's process, so that
 * a plug-in that crashes, hangs or scribbles takes only this process down.
 * Started by plugin_host.c with its socket as fd 3 (wire format in
 * plugin_proto.h).  Collect writes into a buffer followed by a canary and,
 * at ExtCounterTestLevel 1, a PROT_NONE page; the call is checked as
 * Windows' Perflib checks it, then the bytes go back unchanged.  Any failure
 * is one error reply, then _exit: the plug-in's state is not trusted again.
 * Links nothing of perflib and no Lua; _exit everywhere, so that it also
 * runs under an inherited LD_PRELOAD of libasan. */
#include "plugin_proto.h"
#include "perflib_wintypes.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define FD 3
#define ERROR_SUCCESS_ 0u
#define ERROR_MORE_DATA_ 234u
#define CANARY 64u                        /* bytes of pattern after the buffer */
#define START_CAP (64u * 1024u)

typedef DWORD open_fn(LPWSTR);
typedef DWORD collect_fn(LPWSTR, void **, LPDWORD, LPDWORD);
typedef DWORD close_fn(void);

static struct {
    open_fn *open;
    collect_fn *collect;
    close_fn *close;
    pl_proto_open cfg;
    int opened;
    uint8_t *map;            /* the Collect buffer's mapping */
    size_t maplen, cap;      /* cap: what Collect may write, at buf */
    uint8_t *buf;
    char16_t *query;         /* the query in UTF-16, grown to the longest */
    size_t qcap;
    char *req;               /* the request payload, grown to the longest */
    size_t reqcap;
} H;

static int write_all(const struct iovec *iov, int n)
{
    struct iovec v[2];
    memcpy(v, iov, (size_t)n * sizeof *v);
    while (n > 0) {
        struct msghdr m = { .msg_iov = v, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(FD, &m, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        while (n > 0 && (size_t)w >= v[0].iov_len) {
            w -= (ssize_t)v[0].iov_len;
            v[0] = v[1];
            n--;
        }
        if (n > 0) {
            v[0].iov_base = (char *)v[0].iov_base + w;
            v[0].iov_len -= (size_t)w;
        }
    }
    return 0;
}

static void reply(int err, uint32_t code, uint32_t nobjs, const void *data, size_t len)
{
    pl_proto_rep r = { PL_PROTO_MAGIC, err, code, nobjs, len };
    struct iovec iov[2] = { { &r, sizeof r }, { (void *)(uintptr_t)data, len } };
    if (write_all(iov, len ? 2 : 1) != 0)
        _exit(1);              /* perflib is gone or gave up on us */
}

/* One error reply, then the host ends without Close: the plug-in failed. */
__attribute__((format(printf, 3, 4), noreturn))
static void fail(int err, uint32_t code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    reply(err, code, 0, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    _exit(1);
}

__attribute__((noreturn))
static void do_close(void)
{
    if (H.opened)
        H.close();
    _exit(0);
}

/* Reads at p until *got >= n, taking whatever else is there up to cap
 * (nothing follows a request, so one read usually brings it whole).
 * 0, or 1 on EOF before any byte, -1 on EOF inside. */
static int read_some(char *p, size_t cap, size_t *got, size_t n)
{
    while (*got < n) {
        ssize_t r = read(FD, p + *got, cap - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return *got == 0 ? 1 : -1;
        *got += (size_t)r;
    }
    return 0;
}

/* The next request: its header in *rq, its payload at H.req + sizeof *rq. */
static void next_request(pl_proto_req *rq)
{
    size_t got = 0;
    int r = read_some(H.req, H.reqcap, &got, sizeof *rq);
    if (r == 1)
        do_close();                       /* perflib closed its end */
    memcpy(rq, H.req, sizeof *rq);
    if (r != 0 || rq->magic != PL_PROTO_MAGIC || rq->len > PL_PROTO_MAX_REQ)
        fail(EPROTO, 0, "malformed request");
    size_t total = sizeof *rq + rq->len;
    if (total > H.reqcap) {
        char *nr = realloc(H.req, total);
        if (!nr)
            fail(ENOMEM, 0, "out of memory for a request");
        H.req = nr;
        H.reqcap = total;
    }
    if (read_some(H.req, total, &got, total) != 0 || got != total)
        fail(EPROTO, 0, "truncated request");
}

/* UTF-8 (or ASCII) to NUL-terminated UTF-16 at out (room for n + 1 units
 * suffices); invalid bytes become U+FFFD.  Returns the units written. */
static size_t utf16(const char *s, size_t n, char16_t *out)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t k = 0;
    while (p < end) {
        uint32_t c = *p++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (c >= 0x80 && (more == 0 || c >= 0xF8 || end - p < more)) {
            out[k++] = 0xFFFD;
            continue;
        }
        c &= more ? (0x3Fu >> more) : 0x7Fu;
        for (int i = 0; i < more; i++)
            c = c << 6 | (*p++ & 0x3Fu);
        if (c >= 0x10000 && c <= 0x10FFFF) {
            out[k++] = (char16_t)(0xD800 + ((c - 0x10000) >> 10));
            out[k++] = (char16_t)(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
            out[k++] = c > 0x10FFFF ? 0xFFFD : (char16_t)c;
        }
    }
    out[k] = 0;
    return k;
}

static void setenv_u32(const char *name, uint32_t v)
{
    char s[16];
    snprintf(s, sizeof s, "%u", (unsigned)v);
    setenv(name, s, 1);
}

/* The strings of an OPEN payload: the next one, or NULL past the end. */
static const char *next_str(const char **p, const char *end)
{
    const char *s = *p, *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
    if (!z)
        fail(EPROTO, 0, "malformed OPEN request");
    *p = z + 1;
    return s;
}

static void *symbol(void *lib, const char *name, const char *path)
{
    dlerror();
    void *f = dlsym(lib, name);
    if (!f) {
        const char *e = dlerror();
        fail(ENOENT, 0, "no function %s (%s)", name, e ? e : path);
    }
    return f;
}

static void do_open(const char *payload, size_t len)
{
    if (H.opened || len < sizeof H.cfg)
        fail(EPROTO, 0, "unexpected OPEN request");
    memcpy(&H.cfg, payload, sizeof H.cfg);
    const char *p = payload + sizeof H.cfg, *end = payload + len;
    const char *lib = next_str(&p, end), *on = next_str(&p, end);
    const char *cn = next_str(&p, end), *xn = next_str(&p, end);
    const char *exports = p;               /* nexports strings follow */
    size_t units = 1;
    for (uint32_t i = 0; i < H.cfg.nexports; i++)
        units += strlen(next_str(&p, end)) + 1;

    setenv_u32("PERFLIB_FIRST_COUNTER", H.cfg.first_counter);
    setenv_u32("PERFLIB_FIRST_HELP", H.cfg.first_help);
    setenv_u32("PERFLIB_LAST_COUNTER", H.cfg.last_counter);
    setenv_u32("PERFLIB_LAST_HELP", H.cfg.last_help);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        fail(ENOENT, 0, "cannot load %s", e ? e : lib);     /* dlerror names the file */
    }
    void *f[3] = { symbol(h, on, lib), symbol(h, cn, lib), symbol(h, xn, lib) };
    memcpy(&H.open, &f[0], sizeof f[0]);     /* POSIX: data and function pointers agree */
    memcpy(&H.collect, &f[1], sizeof f[1]);
    memcpy(&H.close, &f[2], sizeof f[2]);

    /* REG_MULTI_SZ: each string NUL-terminated, one more NUL at the end */
    char16_t *multi = NULL;
    if (H.cfg.nexports) {
        multi = malloc(units * sizeof *multi);
        if (!multi)
            fail(ENOMEM, 0, "out of memory for the export strings");
        size_t k = 0;
        for (uint32_t i = 0; i < H.cfg.nexports; i++) {
            const char *s = next_str(&exports, end);
            k += utf16(s, strlen(s), multi + k) + 1;
        }
        multi[k] = 0;
    }
    DWORD rc = H.open(multi);
    free(multi);
    if (rc != ERROR_SUCCESS_)
        fail(EPROTO, rc, "Open returned %u", (unsigned)rc);
    H.opened = 1;
    reply(0, 0, 0, NULL, 0);
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096u;
}

/* A buffer of cap bytes ending exactly at the canary, the canary ending at
 * a page boundary, and at test level 1 a PROT_NONE page right after it. */
static void set_capacity(size_t cap)
{
    size_t pg = page_size(), body = (cap + CANARY + pg - 1) / pg * pg;
    size_t len = body + (H.cfg.test_level == 1 ? pg : 0);
    if (H.map)
        munmap(H.map, H.maplen);
    H.map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (H.map == MAP_FAILED) {
        H.map = NULL;
        fail(ENOMEM, 0, "cannot map a Collect buffer of %zu bytes", cap);
    }
    if (H.cfg.test_level == 1 && mprotect(H.map + body, pg, PROT_NONE) != 0)
        fail(errno, 0, "cannot set the guard page");
    H.maplen = len;
    H.cap = cap;
    H.buf = H.map + body - CANARY - cap;
}

static uint8_t canary_byte(size_t i)
{
    return (uint8_t)(0xA5 ^ (i * 29));
}

static void fill_canary(void)
{
    for (size_t i = 0; i < CANARY; i++)
        H.buf[H.cap + i] = canary_byte(i);
}

static int canary_intact(void)
{
    for (size_t i = 0; i < CANARY; i++)
        if (H.buf[H.cap + i] != canary_byte(i))
            return 0;
    return 1;
}

/* What Windows checks of the call itself (not of the objects: perflib's
 * reader validates those). */
static void check_call(DWORD rc, const uint8_t *p, DWORD cb, DWORD n)
{
    if (!canary_intact())
        fail(EFAULT, rc, "Collect wrote past its buffer of %zu bytes", H.cap);
    if (rc == ERROR_MORE_DATA_) {
        if (cb != 0 || n != 0 || p != H.buf)
            fail(EPROTO, rc, "Collect returned ERROR_MORE_DATA with length %u, %u objects and "
                 "its pointer moved by %td bytes (all must be 0)", (unsigned)cb, (unsigned)n, p - H.buf);
        return;
    }
    if (cb > H.cap)
        fail(EPROTO, rc, "Collect returned a length of %u bytes for a buffer of %zu", (unsigned)cb, H.cap);
    if (p != H.buf + cb)
        fail(EPROTO, rc, "Collect moved its pointer by %td bytes but returned a length of %u",
             p - H.buf, (unsigned)cb);
    if ((H.cfg.flags & PL_PROTO_CHECK_ALIGNMENT) && cb % 8 != 0)
        fail(EPROTO, rc, "Collect returned a length of %u bytes, not a multiple of 8", (unsigned)cb);
    if ((n == 0) != (cb == 0))
        fail(EPROTO, rc, "Collect returned %u objects in %u bytes", (unsigned)n, (unsigned)cb);
}

static void do_collect(const char *q, size_t len)
{
    if (!H.opened)
        fail(EPROTO, 0, "COLLECT before OPEN");
    if (len + 1 > H.qcap) {
        char16_t *nq = realloc(H.query, (len + 1) * sizeof *nq);
        if (!nq)
            fail(ENOMEM, 0, "out of memory for the query");
        H.query = nq;
        H.qcap = len + 1;
    }
    int check = (H.cfg.flags & PL_PROTO_CHECK_BUFFERS) && H.cfg.test_level != 3;
    size_t max = (size_t)H.cfg.max_buffer & ~(size_t)7;
    if (!H.map)
        set_capacity(START_CAP < max ? START_CAP : max);
    for (;;) {
        utf16(q, len, H.query);          /* again: Collect may have written into it */
        fill_canary();
        void *p = H.buf;
        DWORD cb = (DWORD)(H.cap > UINT32_MAX ? UINT32_MAX : H.cap), n = 0;
        DWORD rc = H.collect(H.query, &p, &cb, &n);
        if (rc != ERROR_SUCCESS_ && rc != ERROR_MORE_DATA_)
            fail(EPROTO, rc, "Collect returned %u (only ERROR_SUCCESS or ERROR_MORE_DATA may be)",
                 (unsigned)rc);
        if (check)
            check_call(rc, p, cb, n);
        if (rc == ERROR_SUCCESS_) {
            /* unchecked, the bytes sent still stay inside the buffer */
            reply(0, 0, n, H.buf, cb <= H.cap ? cb : H.cap);
            return;
        }
        if (H.cap >= max)
            fail(EOVERFLOW, rc, "Collect returned ERROR_MORE_DATA up to %zu bytes", H.cap);
        set_capacity(H.cap * 2 < max ? H.cap * 2 : max);
    }
}


/* perflib gone (exited, killed, or closed us) while a plug-in call hangs:
 * without this the host would outlive it, holding its stderr open.  The
 * main thread sees the EOF itself when idle and calls Close; this only ends
 * a host that has not done so a second later. */
static void *watchdog(void *arg)
{
    (void)arg;
    struct pollfd pf = { FD, POLLRDHUP, 0 };
    while (poll(&pf, 1, -1) < 0 || !(pf.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
        ;
    sleep(1);
    _exit(1);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    pl_proto_req rq;
    if (send(FD, "", 0, MSG_NOSIGNAL) != 0) {
        fprintf(stderr, "perflib-plugin-host: started by perflib only (no socket on fd 3)\n");
        _exit(2);
    }
    /* a plug-in's crash is reported as its signal, even under a preloaded
     * sanitizer's handlers */
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_DFL);
    pthread_t t;
    if (pthread_create(&t, NULL, watchdog, NULL) != 0) {
        fprintf(stderr, "perflib-plugin-host: cannot start its watchdog thread\n");
        _exit(2);
    }
    H.reqcap = 4096;
    if (!(H.req = malloc(H.reqcap)))
        _exit(2);
    for (;;) {
        next_request(&rq);
        const char *payload = H.req + sizeof rq;
        switch (rq.type) {
        case PL_PROTO_OPEN: do_open(payload, rq.len); break;
        case PL_PROTO_COLLECT: do_collect(payload, rq.len); break;
        case PL_PROTO_CLOSE: do_close(); break;
        default: fail(EPROTO, 0, "unknown request %u", (unsigned)rq.type);
        }
    }
}
