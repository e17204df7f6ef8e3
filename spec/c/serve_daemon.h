/* A `perflua serve` daemon for C programs that read it (spec/c/test_capi_remote.c,
 * bench/remote.c): build/perflua started on a free loopback port, without
 * the sanitizer runtime a test may carry (GnuTLS hangs at exit under it). */
#ifndef SERVE_DAEMON_H
#define SERVE_DAEMON_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct serve_daemon {
    pid_t pid;
    unsigned port;
    FILE *out;               /* its stdout, kept open: a line it writes later must not meet SIGPIPE */
} serve_daemon;

/* Starts build/perflua serve --listen 127.0.0.1:0 (with --token-file when
 * token_file is not NULL) and reads the port it announces: 0 or -1. */
static inline int serve_daemon_start(serve_daemon *d, const char *token_file)
{
    char line[256] = "";
    int fd[2];
    d->port = 0;
    if (pipe(fd) != 0 || (d->pid = fork()) < 0)
        return -1;
    if (d->pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        unsetenv("LD_PRELOAD");
        if (token_file)
            execl("build/perflua", "perflua", "serve", "--listen", "127.0.0.1:0", "--token-file", token_file,
                  (char *)NULL);
        else
            execl("build/perflua", "perflua", "serve", "--listen", "127.0.0.1:0", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    d->out = fdopen(fd[0], "r");
    if (d->out && fgets(line, sizeof line, d->out))
        sscanf(line, "perflua serve: listening on 127.0.0.1:%u", &d->port);
    return d->port ? 0 : -1;
}

/* Kills it (SIGKILL) and reaps it; idempotent. */
static inline void serve_daemon_kill(serve_daemon *d)
{
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, NULL, 0);
    }
    if (d->out)
        fclose(d->out);
    d->out = NULL;
    d->pid = 0;
}

#endif
