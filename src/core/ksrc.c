/* Kernel sources shared by the sets of a machine: see pl_ksrc.h. */
#include "pl_ksrc.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdlib.h>

struct pl_ksrc {
    const pl_ksrc_def *def;
    pl_env *env;             /* not a reference: env owns the reader */
    pl_file file;
    uint64_t gen;            /* the generation of the last read, 0 for none */
    uint64_t reads;
    int err;
    int64_t time;
    void *data;              /* def->size bytes, zeroed once */
    pl_ksrc *next;
};

pl_ksrc *pl_ksrc_attach(pl_env *env, const pl_ksrc_def *def)
{
    pl_ksrc **head = pl_env_ksrc_list(env), *k;
    for (k = *head; k; k = k->next)
        if (k->def == def)
            return k;
    k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->data = calloc(1, def->size ? def->size : 1);
    if (!k->data) {
        free(k);
        return NULL;
    }
    k->def = def;
    k->env = env;
    k->err = ENODATA;
    pl_file_init(&k->file);
    k->file.whole = (def->flags & PL_KSRC_WHOLE) != 0;
    k->next = *head;
    *head = k;
    return k;
}

int pl_ksrc_get(pl_ksrc *k)
{
    uint64_t g = pl_env_generation(k->env);
    if (!k->def->path)
        return EINVAL;       /* state without a file: nothing to read */
    if (g && k->gen == g)
        return k->err;
    k->gen = g;
    k->reads++;
    /* the instant the read starts: the kernel makes the text as it begins
     * (one clock read; the parse after it does not move the values) */
    pl_now(&k->time, NULL, NULL);
    k->err = pl_file_read(&k->file, k->env, k->def->path);
    if (!k->err && k->file.len == 0 && !(k->def->flags & PL_KSRC_EMPTY))
        k->err = EINVAL;     /* an empty file is no source: its values are absent */
    if (!k->err)
        k->err = k->def->parse(k->file.buf, k->file.len, k->data);
    return k->err;
}

const void *pl_ksrc_data(const pl_ksrc *k) { return k->data; }
int64_t pl_ksrc_time(const pl_ksrc *k) { return k->time; }
const char *pl_ksrc_path(const pl_ksrc *k) { return k->def->path; }
uint64_t pl_ksrc_reads(const pl_ksrc *k) { return k->reads; }
void *pl_ksrc_state(pl_ksrc *k) { return k->data; }
uint64_t pl_ksrc_generation(const pl_ksrc *k) { return pl_env_generation(k->env); }

void pl_ksrc_free_all(pl_ksrc *head)
{
    while (head) {
        pl_ksrc *n = head->next;
        if (head->def->release)
            head->def->release(head->data);
        free(head->data);
        pl_file_close(&head->file);
        free(head);
        head = n;
    }
}
