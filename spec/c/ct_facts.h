/* Checks shared by the C tests of InfiniBand, Fibre Channel and SCSI Tape:
 * the text facts an info op gives, and a collect that asks for one counter.
 * Needs ctest_snap.h first. */
#ifndef CT_FACTS_H
#define CT_FACTS_H

/* What emit was given, as "key=value;" pairs (ud: a char[512]). */
static __attribute__((unused)) int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 512 - l, "%s=%s;", key, value);
    return 0;
}

/* The facts of inst of an opened set are want, as "key=value;" pairs. */
static __attribute__((unused)) void check_facts(pctx *p, const char *inst, const char *want)
{
    char out[512] = "";
    CHECK_EQ_U64(p->cs->ops->info(p->st, inst, collect_info, out), 0);
    CHECK_STR(out, want);
}

/* Collecting only counter ctr of set below root gives inst's ctr as want
 * and leaves the counters named in others (NULL-ended) unset. */
static __attribute__((unused)) void check_only(const char *root, const char *set,
                                               const char *inst, const char *ctr, uint64_t want,
                                               const char *const *others)
{
    const char *const only[] = { ctr, NULL };
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, root, set, 0, 0) == 0);
    w = want_only(p.cs, only);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, inst, ctr, want);
    for (; *others; others++)
        UNSET(&s, inst, *others);
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

#endif
