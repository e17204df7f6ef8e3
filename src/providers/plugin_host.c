/* The parent side of the out-of-process plug-in host: spawns
 * perflib-plugin-host, speaks plugin_proto.h to it, and turns whatever
 * happens to it (an error reply, a timeout, a crash, an exit) into an errno
 * and a sentence.  After any failure the host is killed and reaped; the
 * next collect starts a new one.  No allocation per call once warm: the
 * request goes out with sendmsg from the caller's query, the reply lands in
 * a buffer grown only when a reply is larger than any before. */
#include "plugin_host.h"
#include "plugin_proto.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PL_PLUGIN_HOST_PATH
#define PL_PLUGIN_HOST_PATH "/usr/local/libexec/perflib/perflib-plugin-host"
#endif
#define HOST_NAME "perflib-plugin-host"
#define DEFAULT_TIMEOUT_MS 10000u         /* Windows' Open/Collect Timeout default */
#define DEFAULT_MAX_BUFFER (16u << 20)
#define STOP_GRACE_MS 1000
#define REAP_GRACE_MS 1000

extern char **environ;

struct pl_plughost {
    pl_plug_spec spec;         /* strings point into req */
    uint8_t *req;              /* the OPEN request, built once */
    size_t reqlen;
    const char *name;          /* the library's base name, for messages */
    pid_t pid;
    int fd;
    uint8_t *rbuf;             /* the last reply */
    size_t rcap;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put(uint8_t **p, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(*p, s, n);
    *p += n;
}

int pl_plughost_new(const pl_plug_spec *spec, pl_plughost **out)
{
    const char *fns[4] = { spec->library, spec->open_fn, spec->collect_fn, spec->close_fn };
    size_t len = sizeof(pl_proto_req) + sizeof(pl_proto_open);
    for (int i = 0; i < 4; i++)
        len += strlen(fns[i] ? fns[i] : "") + 1;
    for (unsigned i = 0; i < spec->nexports; i++)
        len += strlen(spec->exports[i]) + 1;
    if (len > PL_PROTO_MAX_REQ)
        return E2BIG;
    pl_plughost *h = calloc(1, sizeof *h);
    uint8_t *req = malloc(len);
    if (!h || !req) {
        free(h);
        free(req);
        return ENOMEM;
    }
    h->spec = *spec;
    pl_proto_req rq = { PL_PROTO_MAGIC, PL_PROTO_OPEN, (uint32_t)(len - sizeof rq), 0 };
    pl_proto_open op = { spec->first_counter, spec->first_help, spec->last_counter, spec->last_help,
                         spec->guards.test_level,
                         (spec->guards.check_buffers ? PL_PROTO_CHECK_BUFFERS : 0u) |
                         (spec->guards.check_alignment ? PL_PROTO_CHECK_ALIGNMENT : 0u),
                         spec->nexports, 0, spec->max_buffer ? spec->max_buffer : DEFAULT_MAX_BUFFER };
    if (op.max_buffer < 8)
        op.max_buffer = 8;
    uint8_t *p = req;
    memcpy(p, &rq, sizeof rq);
    memcpy(p += sizeof rq, &op, sizeof op);
    p += sizeof op;
    const char **dst[4] = { &h->spec.library, &h->spec.open_fn, &h->spec.collect_fn, &h->spec.close_fn };
    for (int i = 0; i < 4; i++) {
        *dst[i] = (const char *)p;
        put(&p, fns[i] ? fns[i] : "");
    }
    for (unsigned i = 0; i < spec->nexports; i++)
        put(&p, spec->exports[i]);
    h->spec.max_buffer = (size_t)op.max_buffer;
    h->spec.exports = NULL;       /* they live in req, for the host only */
    h->req = req;
    h->reqlen = len;
    const char *slash = strrchr(h->spec.library, '/');
    h->name = slash ? slash + 1 : h->spec.library;
    h->fd = -1;
    *out = h;
    return 0;
}

int pl_plughost_pid(const pl_plughost *h)
{
    return h ? (int)h->pid : 0;
}

__attribute__((format(printf, 3, 4)))
static void say(char *msg, size_t size, const char *fmt, ...)
{
    if (!size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);         /* not pl_say: one va_list, then made ASCII */
    va_end(ap);
    for (char *c = msg; *c; c++)          /* the host's details are ASCII only */
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
}

/* ---- finding the host program ---- */

static int try_path(char *out, size_t size, const char *dir, const char *rel, char *tried, size_t tsize)
{
    snprintf(out, size, "%s%s%s", dir, dir[0] ? "/" : "", rel);
    if (access(out, X_OK) == 0)
        return 1;
    size_t n = strlen(tried);
    snprintf(tried + n, tsize - n, "%s%s", n ? ", " : "", out);
    return 0;
}

/* PERFLIB_PLUGIN_HOST; the installed path; next to the object that holds
 * this code (build/perflib/core.so, build/libperflib.so, build/ctest/x all
 * find build/perflib-plugin-host).  0 or ENOENT with what was tried. */
static int find_host(char *out, size_t size, char *msg, size_t msgsize)
{
    char tried[3 * PATH_MAX] = "", dir[PATH_MAX];
    const char *env = getenv("PERFLIB_PLUGIN_HOST");
    if (env && *env) {                    /* an explicit choice: nothing else */
        if (try_path(out, size, "", env, tried, sizeof tried))
            return 0;
        say(msg, msgsize, "plug-in host program not found: PERFLIB_PLUGIN_HOST=%s is not an executable", env);
        return ENOENT;
    }
    if (try_path(out, size, "", PL_PLUGIN_HOST_PATH, tried, sizeof tried)) {
        return 0;
    }
    Dl_info info;
    const char *self = NULL;
    if (dladdr((void *)(uintptr_t)&pl_plughost_new, &info) && info.dli_fname && strchr(info.dli_fname, '/'))
        self = info.dli_fname;
    else if (realpath("/proc/self/exe", dir))
        self = dir;
    if (self) {
        snprintf(dir, sizeof dir, "%s", self == dir ? dir : self);
        char *slash = strrchr(dir, '/');
        *slash = 0;
        if (try_path(out, size, dir, HOST_NAME, tried, sizeof tried) ||
            try_path(out, size, dir, "../" HOST_NAME, tried, sizeof tried))
            return 0;
    }
    say(msg, msgsize, "plug-in host program not found (tried %s; set PERFLIB_PLUGIN_HOST)", tried);
    return ENOENT;
}

/* ---- the host's life ---- */

/* Waits for the host to end by itself for up to grace_ms, then kills it;
 * describes how it ended in how (empty when it cannot be known). */
static void reap(pl_plughost *h, int grace_ms, char *how, size_t howsize)
{
    int st = 0, n = grace_ms;
    pid_t r;
    snprintf(how, howsize, "%s", "");
    while ((r = waitpid(h->pid, &st, WNOHANG)) == 0 && n-- > 0)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    if (r == 0) {
        kill(h->pid, SIGKILL);
        while ((r = waitpid(h->pid, &st, 0)) < 0 && errno == EINTR)
            ;
    }
    if (r == h->pid && WIFSIGNALED(st))
        snprintf(how, howsize, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (r == h->pid && WIFEXITED(st))
        snprintf(how, howsize, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(how, howsize, "%s", "ended (its exit status went elsewhere: SIGCHLD ignored?)");
    close(h->fd);
    h->fd = -1;
    h->pid = 0;
}

static void kill_host(pl_plughost *h)
{
    char how[96];
    kill(h->pid, SIGKILL);
    reap(h, 0, how, sizeof how);
}

static int spawn_host(pl_plughost *h, char *msg, size_t msgsize)
{
    char path[PATH_MAX];
    int rc = find_host(path, sizeof path, msg, msgsize), sv[2];
    if (rc)
        return rc;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        rc = errno;
        say(msg, msgsize, "plug-in %s: socketpair: %s", h->name, strerror(rc));
        return rc;
    }
    if (sv[1] == 3) {                     /* dup2(3, 3) would keep CLOEXEC */
        int d = fcntl(sv[1], F_DUPFD_CLOEXEC, 4);
        close(sv[1]);
        sv[1] = d;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    static const int sigs[] = { SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
                                SIGABRT, SIGALRM, SIGUSR1, SIGUSR2 };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaddset(&def, sigs[i]);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    posix_spawn_file_actions_addclosefrom_np(&fa, 4);   /* none of the application's fds either */
#endif
    char name[] = HOST_NAME;
    char *argv[] = { name, (char *)(uintptr_t)h->spec.library, NULL };
    pid_t pid;
    rc = sv[1] < 0 ? errno : posix_spawn(&pid, path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (sv[1] >= 0)
        close(sv[1]);
    if (rc) {
        close(sv[0]);
        say(msg, msgsize, "plug-in %s: cannot start %s: %s", h->name, path, strerror(rc));
        return rc;
    }
    h->pid = pid;
    h->fd = sv[0];
    return 0;
}

/* ---- one exchange ---- */

static int send_req(pl_plughost *h, const void *a, size_t alen, const void *b, size_t blen)
{
    struct iovec v[2] = { { (void *)(uintptr_t)a, alen }, { (void *)(uintptr_t)b, blen } };
    int n = blen ? 2 : 1;
    struct iovec *iov = v;
    while (n > 0) {
        struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(h->fd, &m, MSG_NOSIGNAL);    /* a dead host: EPIPE, never SIGPIPE */
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Reads until h->rbuf holds n bytes (*got so far), before deadline (-1:
 * none).  The first recv blocks (bounded by SO_RCVTIMEO, set to the call's
 * timeout), so a prompt reply costs one syscall; after that poll() keeps
 * to the deadline.  0, ETIMEDOUT, or EPIPE on EOF / a broken socket. */
static int recv_until(pl_plughost *h, size_t *got, size_t n, int64_t deadline)
{
    int block = 1;
    while (*got < n) {
        /* as much as fits: nothing follows a reply, so the header and the
         * data usually arrive in one recv */
        ssize_t r = recv(h->fd, h->rbuf + *got, h->rcap - *got, block || deadline < 0 ? 0 : MSG_DONTWAIT);
        if (r > 0) {
            *got += (size_t)r;
            continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return EPIPE;
        block = 0;
        int wait = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                return ETIMEDOUT;
            wait = left > INT_MAX ? INT_MAX : (int)left;
        }
        struct pollfd pf = { h->fd, POLLIN, 0 };
        if (poll(&pf, 1, wait) < 0 && errno != EINTR)
            return EPIPE;
    }
    return 0;
}

/* SO_RCVTIMEO for the coming replies: timeout_ms, or none when timeouts
 * are not checked */
static void set_rcvtimeo(pl_plughost *h, unsigned timeout_ms)
{
    unsigned ms = h->spec.guards.check_timeouts ? (timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS) : 0;
    struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
    setsockopt(h->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static int grow(pl_plughost *h, size_t need)
{
    if (need <= h->rcap)
        return 0;
    uint8_t *nb = realloc(h->rbuf, need);
    if (!nb)
        return ENOMEM;
    h->rbuf = nb;
    h->rcap = need;
    return 0;
}

/* The reply to what we just sent, within timeout_ms (of start).  On
 * failure the host is gone and msg says why, with what for the call. */
static int read_reply(pl_plughost *h, const char *what, unsigned timeout_ms, int64_t start,
                      pl_proto_rep *rep, char *msg, size_t msgsize)
{
    int64_t deadline = h->spec.guards.check_timeouts ? start + (timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS) : -1;
    size_t got = 0;
    int rc = grow(h, 64u * 1024u);
    if (!rc)
        rc = recv_until(h, &got, sizeof *rep, deadline);
    if (!rc) {
        memcpy(rep, h->rbuf, sizeof *rep);
        if (rep->magic != PL_PROTO_MAGIC || rep->len > h->spec.max_buffer + 4096u)
            rc = EPROTO;
    }
    if (!rc && !(rc = grow(h, sizeof *rep + (size_t)rep->len)))
        rc = recv_until(h, &got, sizeof *rep + (size_t)rep->len, deadline);
    if (!rc && got != sizeof *rep + (size_t)rep->len)
        rc = EPROTO;                      /* more than one reply */
    if (rc == ETIMEDOUT) {
        kill_host(h);
        say(msg, msgsize, "plug-in %s: %s did not return within %u ms (host killed)", h->name, what,
            timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS);
    } else if (rc == EPIPE) {
        char how[96];
        reap(h, REAP_GRACE_MS, how, sizeof how);
        say(msg, msgsize, "plug-in %s: the host died in %s: %s", h->name, what, how);
        rc = ECHILD;
    } else if (rc) {
        kill_host(h);
        say(msg, msgsize, "plug-in %s: %s: %s", h->name, what,
            rc == EPROTO ? "the host sent a malformed reply" : strerror(rc));
    } else if (rep->err) {
        rc = rep->err;
        kill_host(h);                     /* it exits by itself after an error reply */
        say(msg, msgsize, "plug-in %s: %.*s", h->name, (int)rep->len, (const char *)h->rbuf + sizeof *rep);
    }
    return rc;
}

static int start_host(pl_plughost *h, char *msg, size_t msgsize)
{
    int64_t t0 = now_ms();
    int rc = spawn_host(h, msg, msgsize);
    if (rc)
        return rc;
    pl_proto_rep rep;
    set_rcvtimeo(h, h->spec.open_timeout_ms);
    rc = send_req(h, h->req, h->reqlen, NULL, 0);
    if (rc && rc != EPIPE && rc != ECONNRESET) {
        kill_host(h);
        say(msg, msgsize, "plug-in %s: cannot send Open: %s", h->name, strerror(rc));
        return rc;
    }
    /* on EPIPE it died before reading: read_reply sees EOF and says how */
    rc = read_reply(h, "Open", h->spec.open_timeout_ms, t0, &rep, msg, msgsize);
    if (!rc)
        set_rcvtimeo(h, h->spec.collect_timeout_ms);
    return rc;
}

int pl_plughost_collect(pl_plughost *h, const char *query, const uint8_t **data, size_t *len,
                        uint32_t *nobjs, char *msg, size_t msgsize)
{
    int rc = h->pid ? 0 : start_host(h, msg, msgsize);
    if (rc)
        return rc;
    size_t qlen = strlen(query);
    if (qlen > PL_PROTO_MAX_REQ) {
        say(msg, msgsize, "plug-in %s: query too long", h->name);
        return E2BIG;
    }
    pl_proto_req rq = { PL_PROTO_MAGIC, PL_PROTO_COLLECT, (uint32_t)qlen, 0 };
    int64_t t0 = now_ms();
    rc = send_req(h, &rq, sizeof rq, query, qlen);
    if (rc && rc != EPIPE && rc != ECONNRESET) {
        kill_host(h);
        say(msg, msgsize, "plug-in %s: cannot send Collect: %s", h->name, strerror(rc));
        return rc;
    }
    pl_proto_rep rep;
    /* on EPIPE the host is already dead: read_reply sees EOF and says how */
    rc = read_reply(h, "Collect", h->spec.collect_timeout_ms, t0, &rep, msg, msgsize);
    if (rc)
        return rc;
    *data = h->rbuf + sizeof rep;
    *len = (size_t)rep.len;
    *nobjs = rep.nobjs;
    return 0;
}

void pl_plughost_stop(pl_plughost *h)
{
    if (!h || !h->pid)
        return;
    pl_proto_req rq = { PL_PROTO_MAGIC, PL_PROTO_CLOSE, 0, 0 };
    char how[96];
    if (send_req(h, &rq, sizeof rq, NULL, 0) == 0) {
        /* the host closes its end when it exits */
        struct pollfd pf = { h->fd, POLLIN, 0 };
        int64_t end = now_ms() + STOP_GRACE_MS, left;
        while ((left = end - now_ms()) > 0 && poll(&pf, 1, (int)left) < 0 && errno == EINTR)
            ;
    }
    reap(h, 50, how, sizeof how);
}

void pl_plughost_free(pl_plughost *h)
{
    if (!h)
        return;
    pl_plughost_stop(h);
    free(h->req);
    free(h->rbuf);
    free(h);
}
