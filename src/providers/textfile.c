/* Prometheus textfiles (textfile.h): the directories read, their files'
 * parsed contents, the process-wide families (one registered counterset
 * each, kept for the process: a family whose files are gone has no data),
 * and the provider ops of their countersets.
 *
 * A collect of any family's set first looks at every directory again: one
 * stat of the directory (its entries are listed again when its mtime
 * changed: a new file renamed into it), one stat of each file, and a file
 * is read and parsed again only when its inode, size or mtime changed.
 * New families are registered there, so they appear within one collect.
 * A family fails its collect (no_data with a sentence naming file and line)
 * when a line of it is malformed, when two files give it different TYPEs,
 * or when a file that defines it has a line no family owns: a file cut or
 * garbled anywhere gives no number at all.  A set keeps the counters of the
 * TYPE it was registered with; a file that now says another TYPE fills
 * those that fit. */
#include "textfile.h"
#include "pl_provider.h"
#include "pl_rowset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TF_DOUBLE_RAW 0x00012000u      /* PERF_DOUBLE_RAW: the value is a double */
#define TF_FILE_MAX (16u << 20)
#define TF_MAX_FAMILIES 4096           /* registered sets live for the process: bounded */
#define TF_MAX_FILES 4096              /* per directory */
#define TF_FIX 1000.0                  /* the per-second counters' fixed point */

/* ---- counter definitions ---------------------------------------------------- */

enum { C_VALUE, C_VALUE_SEC, C_SUM, C_SUM_SEC, C_COUNT, C_COUNT_SEC, C_AVG, C_AVG_BASE, NC };

/* Units: NONE stands for the family's own unit, which its name's base-unit
 * suffix gives (family_units); counts are counts.  The per-second and
 * average counters hold values x 1000, hence the scale 1e-3. */
#define DBL TF_DOUBLE_RAW
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
/* The rows (pl_rowset.h) of the four layouts; the collect fills them all. */
#define TF_VALUE(R) \
    R(C_VALUE, "Value", "The sample's value as written (a float).", DBL, PL_NO_ID, NOV, 0, \
      PL_U(NONE, 1, GAUGE), PL_BY_HAND())
#define TF_VALUE_SEC(R) \
    R(C_VALUE_SEC, "Value/sec", "How fast the counter (or cumulative bucket) grew, per second, " \
      "from its value x 1000 kept as an integer (0.001 kept).", BULK, PL_NO_ID, NOV, -3, \
      PL_U(NONE, 1e-3, COUNTER), PL_BY_HAND())
#define TF_REST(R) \
    R(C_SUM, "Sum", "The _sum series: the total of the observed values.", DBL, PL_NO_ID, NOV, 0, \
      PL_U(NONE, 1, COUNTER), PL_BY_HAND()) \
    R(C_SUM_SEC, "Sum/sec", "How fast _sum grew, per second (0.001 kept).", BULK, PL_NO_ID, NOV, -3, \
      PL_U(NONE, 1e-3, COUNTER), PL_BY_HAND()) \
    R(C_COUNT, "Count", "The _count series: the number of observations.", DBL, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_COUNT_SEC, "Count/sec", "Observations per second, from _count (0.001 kept).", BULK, \
      PL_NO_ID, NOV, -3, PL_U(COUNT, 1e-3, COUNTER), PL_BY_HAND()) \
    R(C_AVG, "Average", "The mean of the values observed during the interval: the growth of _sum " \
      "over the growth of _count.", PERF_AVERAGE_BULK, C_AVG_BASE, NOV, 0, \
      PL_U(NONE, 1e-3, COUNTER), PL_BY_HAND()) \
    R(C_AVG_BASE, "Average Base", "_count x 1000, the base of Average.", PERF_AVERAGE_BASE, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1e-3, COUNTER), PL_BY_HAND())

static const pl_counter_def gauge_counters[] = { TF_VALUE(PL_ROW_COUNTER) };
static const pl_counter_def counter_counters[] = { TF_VALUE(PL_ROW_COUNTER) TF_VALUE_SEC(PL_ROW_COUNTER) };
static const pl_counter_def summary_counters[] = { TF_VALUE(PL_ROW_COUNTER) TF_REST(PL_ROW_COUNTER) };
static const pl_counter_def histogram_counters[] = {
    TF_VALUE(PL_ROW_COUNTER) TF_VALUE_SEC(PL_ROW_COUNTER) TF_REST(PL_ROW_COUNTER)
};

static const struct {
    const pl_counter_def *c;
    uint32_t n;
    int8_t idx[NC];                    /* counter index of each id, -1 if the type has none */
} layout[PL_TF_NTYPES] = {
    { gauge_counters, 1, { 0, -1, -1, -1, -1, -1, -1, -1 } },
    { counter_counters, 2, { 0, 1, -1, -1, -1, -1, -1, -1 } },
    { gauge_counters, 1, { 0, -1, -1, -1, -1, -1, -1, -1 } },
    { summary_counters, 7, { 0, -1, 1, 2, 3, 4, 5, 6 } },
    { histogram_counters, 8, { 0, 1, 2, 3, 4, 5, 6, 7 } },
};

/* ---- process-wide state ------------------------------------------------------ */

typedef struct tf_family {
    char *name;
    int type;
    pl_counter_def *counters;          /* the layout's, with the family's units */
    pl_counterset_def def;
    const pl_counterset_def *reg;      /* NULL when the registry refused it */
} tf_family;

typedef struct tf_file {
    char *name;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int err;                           /* errno of the last read, 0 if it read */
    int seen;
    pl_tf_doc doc;
    tf_family **gfam;                  /* of each doc family, NULL if unregistered */
} tf_file;

typedef struct tf_dir {
    char *path;
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    int listed;
    tf_file *files;
    uint32_t nfiles, cap;
} tf_dir;

static pthread_mutex_t tf_lock = PTHREAD_MUTEX_INITIALIZER;
static tf_dir *dirs;
static uint32_t ndirs;
static tf_family *families[TF_MAX_FAMILIES];
static uint32_t nfamilies;

static const pl_provider_ops tf_ops;

/* ---- families ----------------------------------------------------------------- */

static tf_family *find_family(const char *name)
{
    for (uint32_t i = 0; i < nfamilies; i++)
        if (strcmp(families[i]->name, name) == 0)
            return families[i];
    return NULL;
}

/* The base unit a metric name ends with (before _total), Prometheus'
 * naming convention; PL_UNIT_NONE when it names none. */
static pl_unit_kind name_unit(const char *name)
{
    static const struct { const char *suffix; pl_unit_kind k; } units[] = {
        { "_bytes", PL_UNIT_BYTES }, { "_seconds", PL_UNIT_SECONDS }, { "_celsius", PL_UNIT_CELSIUS },
        { "_ratio", PL_UNIT_RATIO }, { "_percent", PL_UNIT_PERCENT }, { "_hertz", PL_UNIT_HERTZ },
        { "_watts", PL_UNIT_WATTS }, { "_joules", PL_UNIT_JOULES }, { "_volts", PL_UNIT_VOLTS },
        { "_amperes", PL_UNIT_AMPERES }, { "_kelvin", PL_UNIT_KELVIN },
    };
    size_t n = strlen(name);
    if (n > 6 && strcmp(name + n - 6, "_total") == 0)
        n -= 6;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t k = strlen(units[i].suffix);
        if (n > k && strncmp(name + n - k, units[i].suffix, k) == 0)
            return units[i].k;
    }
    return PL_UNIT_NONE;
}

/* The layout's counters with the family's units: its name's unit where the
 * layout says "the family's", a counter's Value cumulative, a histogram's
 * Value (a bucket) a cumulative count.  NULL for ENOMEM. */
static pl_counter_def *family_counters(int type, const char *name)
{
    uint32_t n = layout[type].n;
    pl_counter_def *c = malloc(n * sizeof *c);
    pl_unit_kind k = name_unit(name);
    if (!c)
        return NULL;
    memcpy(c, layout[type].c, n * sizeof *c);
    for (uint32_t i = 0; i < n; i++)
        if (c[i].unit == PL_UNIT_NONE)
            c[i].unit = (uint8_t)k;
    if (type == PL_TF_COUNTER)
        c[0].semantics = PL_SEM_COUNTER;
    if (type == PL_TF_HISTOGRAM) {
        c[0].unit = c[1].unit = PL_UNIT_COUNT;
        c[0].semantics = PL_SEM_COUNTER;
    }
    return c;
}

/* The family of doc family df, registered when new; NULL when it cannot be
 * (*nomem says whether for ENOMEM). */
static tf_family *family_of(const pl_tf_family *df, int *nomem)
{
    tf_family *f = find_family(df->name);
    size_t n = strlen(df->name);
    if (f || nfamilies == TF_MAX_FAMILIES)
        return f;
    char *setname = malloc(sizeof PL_TEXTFILE_PREFIX + n);
    char *help = malloc(df->help ? strlen(df->help) + 1 : n + 96);
    if (!setname || !help || !(f = calloc(1, sizeof *f)) || !(f->name = strdup(df->name)) ||
        !(f->counters = family_counters(df->type, df->name))) {
        free(setname);
        free(help);
        if (f)
            free(f->name);
        free(f);
        *nomem = 1;
        return NULL;
    }
    memcpy(setname, PL_TEXTFILE_PREFIX, sizeof PL_TEXTFILE_PREFIX - 1);
    memcpy(setname + sizeof PL_TEXTFILE_PREFIX - 1, df->name, n + 1);
    if (df->help)
        strcpy(help, df->help);
    else
        snprintf(help, n + 96, "The Prometheus %s %s, read from *.prom textfiles.", pl_tf_type_name(df->type),
                 df->name);
    f->type = df->type;
    f->def = (pl_counterset_def){ pl_name_guid("prometheus-textfile", df->name), NULL, NULL, PERF_COUNTERSET_MULTI_INSTANCES, 0,
                                  layout[f->type].n, f->counters, &tf_ops, PL_INDEX_ASSIGN, f };
    f->def.name = setname;
    f->def.help = help;
    if (pl_register_counterset(&f->def, &f->reg, NULL, 0) == ENOMEM)
        *nomem = 1;                    /* a refused name (EEXIST) stays refused: reg NULL */
    families[nfamilies++] = f;         /* kept either way: the registry may hold f->def */
    return f;
}

/* ---- files ------------------------------------------------------------------------ */

static void file_clear(tf_file *fl)
{
    pl_tf_doc_free(&fl->doc);
    free(fl->gfam);
    fl->gfam = NULL;
}

/* The whole of a regular file, at most TF_FILE_MAX bytes: 0 or errno. */
static int slurp(int fd, char **out, size_t *len)
{
    struct stat st;
    size_t cap, n = 0;
    char *buf;
    if (fstat(fd, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EINVAL;
    if ((size_t)st.st_size > TF_FILE_MAX)
        return EFBIG;
    cap = (size_t)st.st_size + 1;
    if (!(buf = malloc(cap)))
        return ENOMEM;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return errno;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap) {                /* it grew while read: rewritten in place, not renamed */
            free(buf);
            return EAGAIN;
        }
    }
    *out = buf;
    *len = n;
    return 0;
}

static int file_read(const tf_dir *d, tf_file *fl)
{
    char path[PATH_MAX], *buf = NULL;
    size_t len = 0;
    int fd, e;
    file_clear(fl);
    snprintf(path, sizeof path, "%s/%s", d->path, fl->name);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return fl->err = errno;
    e = slurp(fd, &buf, &len);
    close(fd);
    if (!e)
        e = pl_tf_parse(buf, len, &fl->doc);
    free(buf);
    if (!e && fl->doc.nfam && !(fl->gfam = calloc(fl->doc.nfam, sizeof *fl->gfam))) {
        pl_tf_doc_free(&fl->doc);
        e = ENOMEM;
    }
    for (uint32_t i = 0; !e && i < fl->doc.nfam; i++) {
        int nomem = 0;
        fl->gfam[i] = family_of(&fl->doc.fam[i], &nomem);
        if (nomem)
            e = ENOMEM;
    }
    if (e) {
        file_clear(fl);
        fl->mtime.tv_sec = -1;         /* read again next time */
    }
    return fl->err = e;
}

/* ---- directories ------------------------------------------------------------------ */

static int is_prom(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".prom") == 0;
}

static int add_file(tf_dir *d, const char *name)
{
    if (d->nfiles == TF_MAX_FILES)
        return 0;
    if (d->nfiles == d->cap) {
        uint32_t cap = d->cap ? 2 * d->cap : 8;
        tf_file *f = realloc(d->files, cap * sizeof *f);
        if (!f)
            return ENOMEM;
        d->files = f;
        d->cap = cap;
    }
    tf_file *fl = &d->files[d->nfiles];
    memset(fl, 0, sizeof *fl);
    fl->mtime.tv_sec = -1;
    fl->seen = 1;
    if (!(fl->name = strdup(name)))
        return ENOMEM;
    d->nfiles++;
    return 0;
}

static void drop_unseen(tf_dir *d)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->nfiles; i++) {
        if (d->files[i].seen) {
            d->files[k++] = d->files[i];
            continue;
        }
        file_clear(&d->files[i]);
        free(d->files[i].name);
    }
    d->nfiles = k;
}

/* The *.prom entries of d now; 0, ENOMEM, or the directory's errno (no files). */
static int list_dir(tf_dir *d)
{
    DIR *dir = opendir(d->path);
    struct dirent *de;
    int e = 0;
    for (uint32_t i = 0; i < d->nfiles; i++)
        d->files[i].seen = 0;
    if (!dir) {
        e = errno;
    } else {
        while (!e && (de = readdir(dir))) {
            uint32_t i = 0;
            if (!is_prom(de->d_name))
                continue;
            while (i < d->nfiles && strcmp(d->files[i].name, de->d_name) != 0)
                i++;
            if (i < d->nfiles)
                d->files[i].seen = 1;
            else
                e = add_file(d, de->d_name);
        }
        closedir(dir);
    }
    drop_unseen(d);
    return e;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* d as it is now: its list when it changed, each changed file read again. */
static int refresh_dir(tf_dir *d)
{
    struct stat st;
    int e = 0;
    if (stat(d->path, &st) != 0) {
        e = errno;
        d->listed = 0;
        for (uint32_t i = 0; i < d->nfiles; i++)
            d->files[i].seen = 0;
        drop_unseen(d);
        return e;
    }
    if (!d->listed || st.st_ino != d->ino || st.st_dev != d->dev || !same_time(&st.st_mtim, &d->mtime)) {
        if ((e = list_dir(d)))
            return e;
        d->listed = 1;
        d->dev = st.st_dev;
        d->ino = st.st_ino;
        d->mtime = st.st_mtim;
    }
    for (uint32_t i = 0; i < d->nfiles; i++) {
        tf_file *fl = &d->files[i];
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", d->path, fl->name);
        if (stat(path, &st) != 0) {
            file_clear(fl);
            fl->err = errno;
            fl->mtime.tv_sec = -1;
            continue;
        }
        if (st.st_ino == fl->ino && st.st_dev == fl->dev && st.st_size == fl->size &&
            same_time(&st.st_mtim, &fl->mtime))
            continue;
        fl->dev = st.st_dev;
        fl->ino = st.st_ino;
        fl->size = st.st_size;
        fl->mtime = st.st_mtim;
        if (file_read(d, fl) == ENOMEM)
            return ENOMEM;
    }
    return 0;
}

static int refresh_locked(void)
{
    for (uint32_t i = 0; i < ndirs; i++)
        if (refresh_dir(&dirs[i]) == ENOMEM)
            return ENOMEM;
    return 0;
}

int pl_textfiles_refresh(void)
{
    pthread_mutex_lock(&tf_lock);
    int e = refresh_locked();
    pthread_mutex_unlock(&tf_lock);
    return e;
}

/* The core's discovery door: every pl_env_sync (a machine handed out, a query
 * add of an unknown set) looks at the directories again. */
static void discover(void)
{
    pl_textfiles_refresh();
}

int pl_textfiles_load(const char *dir, char *msg, size_t msgsize)
{
    uint32_t i;
    int e;
    if (msg && msgsize)
        msg[0] = '\0';
    if (!dir || !*dir || strlen(dir) >= PATH_MAX - NAME_MAX - 2)
        return EINVAL;
    if (pl_register_discoverer(discover))
        return ENOSPC;
    pthread_mutex_lock(&tf_lock);
    for (i = 0; i < ndirs && strcmp(dirs[i].path, dir) != 0; i++)
        ;
    if (i == ndirs) {
        tf_dir *d = realloc(dirs, (ndirs + 1) * sizeof *d);
        char *path = strdup(dir);
        if (d)
            dirs = d;
        if (!d || !path) {
            free(path);
            pthread_mutex_unlock(&tf_lock);
            return ENOMEM;
        }
        memset(&dirs[ndirs], 0, sizeof dirs[ndirs]);
        dirs[ndirs++].path = path;
    }
    e = refresh_dir(&dirs[i]);
    pthread_mutex_unlock(&tf_lock);
    if (e && msg && msgsize)
        snprintf(msg, msgsize, "%s: %s", dir, strerror(e));
    return e;
}

int pl_textfiles_load_default(char *msg, size_t msgsize)
{
    const char *env = getenv("PERFLIB_TEXTFILE_DIR");
    char *list, *save = NULL;
    int first = 0;
    if (!env) {
        int e = pl_textfiles_load(PL_TEXTFILE_DEFAULT_DIR, msg, msgsize);
        return e == ENOENT ? 0 : e;       /* no node exporter here: nothing to read */
    }
    if (!(list = strdup(env)))
        return ENOMEM;
    for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        int e = pl_textfiles_load(d, first ? NULL : msg, first ? 0 : msgsize);
        if (!first)
            first = e;                    /* the first failure is the one told */
    }
    free(list);
    return first;
}

/* ---- provider ops ------------------------------------------------------------------- */

typedef struct tf_state {
    tf_family *f;
    int ftype;                         /* the TYPE its files give now (-1: none yet) */
    const pl_tf_series **ser;          /* this family's series, all files */
    uint32_t nser, cap;
    char msg[512];                     /* the snapshot's err_msg until the next collect */
} tf_state;

static int tf_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    tf_state *st = calloc(1, sizeof *st);
    (void)env;
    if (!st)
        return ENOMEM;
    st->f = cs->provider_data;
    *state = st;
    return 0;
}

static void tf_close(void *state)
{
    tf_state *st = state;
    if (!st)
        return;
    free(st->ser);
    free(st);
}

static int push(tf_state *st, const pl_tf_series *s)
{
    if (st->nser == st->cap) {
        uint32_t cap = st->cap ? 2 * st->cap : 32;
        const pl_tf_series **p = realloc(st->ser, cap * sizeof *p);
        if (!p)
            return ENOMEM;
        st->ser = p;
        st->cap = cap;
    }
    st->ser[st->nser++] = s;
    return 0;
}

static int by_instance(const void *a, const void *b)
{
    const pl_tf_series *x = *(const pl_tf_series *const *)a, *y = *(const pl_tf_series *const *)b;
    int c = strcmp(x->inst, y->inst);
    if (c)
        return c;
    return x->slot != y->slot ? (x->slot < y->slot ? -1 : 1) : (x->line < y->line ? -1 : x->line > y->line);
}

/* The series of family k of file fl, or EINVAL with a sentence when they
 * are not to be trusted. */
static int gather_file(tf_state *st, const tf_dir *d, const tf_file *fl, uint32_t k)
{
    const pl_tf_family *df = &fl->doc.fam[k];
    const char *why = df->err[0] ? df->err : fl->doc.err[0] ? fl->doc.err : NULL;
    if (why) {
        snprintf(st->msg, sizeof st->msg, "%s/%s: %s", d->path, fl->name, why);
        return EINVAL;
    }
    if (st->ftype >= 0 && df->type != st->ftype) {
        snprintf(st->msg, sizeof st->msg, "%s/%s: its TYPE is %s, another file's is %s", d->path, fl->name,
                 pl_tf_type_name(df->type), pl_tf_type_name(st->ftype));
        return EINVAL;
    }
    st->ftype = df->type;
    for (uint32_t i = df->first; i < df->first + df->nsamples; i++)
        if (push(st, &fl->doc.ser[i]))
            return ENOMEM;
    return 0;
}

static const tf_file *first_unread(const tf_dir **dir)
{
    for (uint32_t i = 0; i < ndirs; i++)
        for (uint32_t j = 0; j < dirs[i].nfiles; j++)
            if (dirs[i].files[j].err) {
                *dir = &dirs[i];
                return &dirs[i].files[j];
            }
    return NULL;
}

/* The series of st's family from every file, in instance order; 0, ENOMEM,
 * ENOENT (no file defines it) or EINVAL, with a sentence. */
static int gather(tf_state *st)
{
    int present = 0;
    st->nser = 0;
    st->ftype = -1;
    for (uint32_t i = 0; i < ndirs; i++)
        for (uint32_t j = 0; j < dirs[i].nfiles; j++) {
            const tf_file *fl = &dirs[i].files[j];
            for (uint32_t k = 0; k < fl->doc.nfam; k++) {
                if (fl->gfam[k] != st->f)
                    continue;
                present++;
                int e = gather_file(st, &dirs[i], fl, k);
                if (e)
                    return e;
            }
        }
    if (!present) {
        const tf_dir *bd = NULL;
        const tf_file *bad = first_unread(&bd);   /* a file that did not read may be why */
        int n = snprintf(st->msg, sizeof st->msg, "no *.prom file defines %s now", st->f->name);
        if (bad && n > 0 && (size_t)n < sizeof st->msg)
            snprintf(st->msg + n, sizeof st->msg - (size_t)n, " (%s/%s: %s)", bd->path, bad->name,
                     strerror(bad->err));
        return ENOENT;
    }
    if (present > 1 && st->nser > 1)   /* one file's are in order already */
        qsort(st->ser, st->nser, sizeof *st->ser, by_instance);
    return 0;
}

/* value x 1000 as an unsigned integer; 0 when it has none. */
static int fixed(double v, uint64_t *u)
{
    double x = v * TF_FIX + 0.5;
    if (!(v >= 0.0) || !(x < 18446744073709551616.0))
        return 0;
    *u = (uint64_t)x;
    return 1;
}

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Counter id of the set's layout (reg, the type it was registered with). */
static void put(pl_snapshot *snap, uint32_t inst, int reg, int id, uint64_t v)
{
    int c = layout[reg].idx[id];
    if (c >= 0)
        pl_snap_set(snap, inst, (uint32_t)c, v);
}

/* One instance from the series [a, b) of one name, read as the files' type
 * says, into the counters the set was registered with (a TYPE line added
 * later fills those that fit: no rate of a gauge, no set redefined). */
static void emit(pl_snapshot *snap, uint32_t inst, int reg, int type, const pl_tf_series *const *a, uint32_t n)
{
    static const int dbl_id[3] = { C_VALUE, C_SUM, C_COUNT }, sec_id[3] = { C_VALUE_SEC, C_SUM_SEC, C_COUNT_SEC };
    double v[3] = { 0, 0, 0 };
    uint64_t fx[3] = { 0, 0, 0 };
    int have[3] = { 0, 0, 0 }, good[3] = { 0, 0, 0 }, fxok[3] = { 0, 0, 0 };
    const int rate[3] = { type == PL_TF_COUNTER || type == PL_TF_HISTOGRAM, 1, 1 };
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = a[k]->slot;
        good[s] = !have[s];            /* a duplicate series makes both untrusted */
        have[s] = 1;
        v[s] = a[k]->v;
    }
    if ((type == PL_TF_COUNTER || type == PL_TF_HISTOGRAM) && have[PL_TF_VALUE] && !(v[PL_TF_VALUE] >= 0.0))
        good[PL_TF_VALUE] = 0;         /* a counter or a bucket's count is never negative */
    if (have[PL_TF_COUNT] && !(v[PL_TF_COUNT] >= 0.0))
        good[PL_TF_COUNT] = 0;
    for (int s = 0; s < 3; s++) {
        if (!have[s])
            continue;
        put(snap, inst, reg, dbl_id[s], bits(good[s] ? v[s] : NAN));
        if (good[s] && rate[s] && (fxok[s] = fixed(v[s], &fx[s])))
            put(snap, inst, reg, sec_id[s], fx[s]);
    }
    if (fxok[PL_TF_SUM] && fxok[PL_TF_COUNT]) {
        put(snap, inst, reg, C_AVG, fx[PL_TF_SUM]);
        put(snap, inst, reg, C_AVG_BASE, fx[PL_TF_COUNT]);
    }
}

static uint32_t name_id(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int fill(tf_state *st, pl_snapshot *snap)
{
    int e;
    st->msg[0] = '\0';
    pl_snap_clear(snap);
    if (refresh_locked() == ENOMEM)
        return ENOMEM;
    if ((e = gather(st))) {
        pl_snap_clear(snap);
        snap->err_msg = e == ENOMEM ? NULL : st->msg;
        return e;
    }
    for (uint32_t a = 0, b; a < st->nser; a = b) {
        for (b = a + 1; b < st->nser && strcmp(st->ser[a]->inst, st->ser[b]->inst) == 0; b++)
            ;
        int i = pl_snap_add(snap, st->ser[a]->inst, name_id(st->ser[a]->inst));
        if (i < 0)
            return ENOMEM;
        emit(snap, (uint32_t)i, st->f->type, st->ftype, st->ser + a, b - a);
    }
    return 0;
}

static int tf_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;                      /* a file holds every counter of a family */
    pthread_mutex_lock(&tf_lock);
    int e = fill(state, snap);
    pthread_mutex_unlock(&tf_lock);
    return e;
}

static int tf_instances(void *state, pl_snapshot *snap)
{
    return tf_collect(state, NULL, snap);
}

static const pl_provider_ops tf_ops = { NULL, tf_close, tf_instances, tf_collect, tf_open_set, NULL };
