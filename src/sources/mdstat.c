/* /proc/mdstat as a kernel source: see mdstat.h. */
#include "mdstat.h"
#include "srcparse.h"
#include "pl_provider.h"

#include <string.h>

/* The next blank-separated token of [*p, eol): 1 with t, n. */
static int tok(const char **p, const char *eol, const char **t, size_t *n)
{
    const char *s = *p;
    while (s < eol && pl_src_blank(*s))
        s++;
    *t = s;
    while (s < eol && !pl_src_blank(*s))
        s++;
    *n = (size_t)(s - *t);
    *p = s;
    return *n > 0;
}

static int is(const char *t, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(t, word, n) == 0;
}

/* A whole-token decimal [t, t + n) -> 1 with *v. */
static int whole(const char *t, size_t n, uint64_t *v)
{
    const char *q = t;
    return pl_src_num(&q, t + n, v) == 0 && q == t + n;
}

/* "<a><sep><b>" as the whole of [t, t + n), after skip bytes and before
 * the last `cut` ("[4/3]", "(55456768/651086848)"). */
static int pair(const char *t, size_t n, size_t skip, size_t cut, uint64_t *a, uint64_t *b)
{
    const char *q = t + skip, *e = t + n - cut, *sl;
    if (n < skip + cut + 3 || !(sl = memchr(q, '/', (size_t)(e - q))))
        return 0;
    return whole(q, (size_t)(sl - q), a) && whole(sl + 1, (size_t)(e - sl - 1), b);
}

static void set(pl_mdrow *r, unsigned f, int ok, uint64_t v)
{
    r->st[f] = ok ? PL_NS_OK : PL_NS_BAD;
    r->v[f] = ok ? v : 0;
}

/* "md0 : active raid1 sdb1[1] sda1[0](F)" -> 1 with a new row, else 0. */
static int header(const char *p, const char *eol, pl_mdrow *r)
{
    const char *t, *name;
    size_t n, nn;
    uint64_t members = 0, failed = 0, spare = 0;
    if (!tok(&p, eol, &name, &nn) || nn >= sizeof r->name || is(name, nn, "Personalities") ||
        !tok(&p, eol, &t, &n) || !is(t, n, ":") || !tok(&p, eol, &t, &n))
        return 0;
    memset(r, 0, sizeof *r);
    if (is(t, n, "active"))
        r->v[PL_MD_STATE] = PL_MD_ACTIVE;
    else if (!is(t, n, "inactive"))
        return 0;
    memcpy(r->name, name, nn);
    r->name[nn] = '\0';
    pl_name_sanitize(r->name);
    while (tok(&p, eol, &t, &n)) {
        const char *br = memchr(t, '[', n);
        if (is(t, n, "(read-only)"))
            r->v[PL_MD_STATE] = PL_MD_READONLY;
        else if (is(t, n, "(auto-read-only)"))
            r->v[PL_MD_STATE] = PL_MD_AUTO_READONLY;
        else if (br) {       /* a member: sda1[0], with (F)aulty or (S)pare after */
            members++;
            failed += n >= 3 && memcmp(t + n - 3, "(F)", 3) == 0;
            spare += n >= 3 && memcmp(t + n - 3, "(S)", 3) == 0;
        }                    /* else the level (raid1, linear ...) */
    }
    r->st[PL_MD_STATE] = PL_NS_OK;
    set(r, PL_MD_MEMBERS, 1, members);
    set(r, PL_MD_FAILED, 1, failed);
    set(r, PL_MD_SPARE, 1, spare);
    set(r, PL_MD_ACTION, 1, PL_MD_IDLE);
    return 1;
}

static const char *const actions[] = { "resync", "recovery", "reshape", "check" };

/* The tokens of a line below a header. */
static void detail(const char *p, const char *eol, pl_mdrow *r)
{
    const char *t, *prev = NULL;
    size_t n, pn = 0;
    uint64_t a, b;
    int progress = 0;
    for (; tok(&p, eol, &t, &n); prev = t, pn = n) {
        if (is(t, n, "blocks") && prev) {
            int ok = whole(prev, pn, &a) && pl_mul_ok(a, 1024, &a);
            set(r, PL_MD_SIZE, ok, a);
        } else if (t[0] == '[' && t[n - 1] == ']' && n > 2 && t[1] >= '0' && t[1] <= '9') {
            int ok = pair(t, n, 1, 1, &a, &b) && b <= a;
            set(r, PL_MD_RAID_DISKS, ok, a);
            set(r, PL_MD_IN_SYNC, ok, b);
            set(r, PL_MD_DEGRADED, ok, a - b);
        } else if (is(t, n, "resync=DELAYED") || is(t, n, "resync=PENDING")) {
            set(r, PL_MD_ACTION, 1, t[7] == 'D' ? PL_MD_RESYNC_DELAYED : PL_MD_RESYNC_PENDING);
        } else if (t[0] == '=' && prev) {
            /* "recovery =  8.5%" or "recovery =100.0%": the word before '=' */
            for (unsigned k = 0; k < sizeof actions / sizeof *actions; k++)
                if (is(prev, pn, actions[k])) {
                    set(r, PL_MD_ACTION, 1, PL_MD_RESYNC + k);
                    progress = 1;
                }
        } else if (progress == 1 && t[0] == '(' && t[n - 1] == ')') {
            int ok = pair(t, n, 1, 1, &a, &b) && a <= b;
            set(r, PL_MD_DONE, ok, a);
            set(r, PL_MD_TOTAL, ok, b);
            progress = 2;
        } else if (n > 10 && memcmp(t, "speed=", 6) == 0 && memcmp(t + n - 5, "K/sec", 5) == 0) {
            int ok = whole(t + 6, n - 11, &a) && pl_mul_ok(a, 1024, &a);
            set(r, PL_MD_SPEED, ok, a);
        }
    }
}

typedef struct mdctx {
    pl_rows *t;
    int open;                /* the last row takes the indented lines that follow */
} mdctx;

/* A header starts a row; the indented lines after it, until a blank or
 * another unindented line, belong to it. */
static int line(const char *p, const char *eol, void *row, void *ctx)
{
    mdctx *c = ctx;
    const char *q = p;
    while (q < eol && pl_src_blank(*q))
        q++;
    if (q == eol || p == q) {
        c->open = q != eol && header(p, eol, row);
        return c->open;
    }
    if (c->open)
        detail(q, eol, (pl_mdrow *)c->t->row + c->t->n - 1);
    return 0;
}

int pl_parse_mdstat(const char *buf, size_t len, void *out)
{
    mdctx c = { out, 0 };
    return pl_rows_parse(buf, len, out, sizeof(pl_mdrow), line, &c);
}

const pl_ksrc_def pl_ksrc_mdstat = { "proc/mdstat", sizeof(pl_mdtab), 0, pl_parse_mdstat,
                                     pl_rows_release };
