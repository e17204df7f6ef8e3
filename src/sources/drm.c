/* DRM fdinfo and amdgpu's pp_dpm_* as pure parsers: see drm.h. */
#include "drm.h"
#include "srcparse.h"

#include <string.h>

/* [p, e) with blanks around it removed, copied into out (size PL_DRM_NAME):
 * 1, or 0 when empty or too long. */
static int copy_name(const char *p, const char *e, char *out)
{
    while (p < e && pl_src_blank(*p))
        p++;
    while (e > p && pl_src_blank(e[-1]))
        e--;
    if (p == e || (size_t)(e - p) >= PL_DRM_NAME)
        return 0;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return 1;
}

/* "<uint>[ unit]" up to e, scaled by the unit: 1 with *v, 0 otherwise.
 * units: a NULL-terminated list of suffixes with their multipliers. */
typedef struct unit { const char *s; uint64_t mul; } unit;
static const unit no_unit[] = { { NULL, 1 } };
static const unit mem_units[] = { { "KiB", 1024 }, { "MiB", 1048576 }, { NULL, 1 } };
static const unit ns_units[] = { { "ns", 1 }, { NULL, 1 } };

static int value(const char *p, const char *e, const unit *u, int need_unit, uint64_t *v)
{
    uint64_t x;
    if (pl_src_num(&p, e, &x) != 0)
        return 0;
    while (p < e && pl_src_blank(*p))
        p++;
    while (e > p && pl_src_blank(e[-1]))
        e--;
    if (p == e) {
        *v = x;
        return !need_unit;
    }
    for (; u->s; u++) {
        size_t n = strlen(u->s);
        if ((size_t)(e - p) == n && memcmp(p, u->s, n) == 0)
            return x <= UINT64_MAX / u->mul ? (*v = x * u->mul, 1) : 0;
    }
    return 0;
}

/* The table entry named [p, e), added when new and there is room. */
static void *entry(void *tab, uint32_t *n, uint32_t max, size_t size, const char *p, const char *e)
{
    char name[PL_DRM_NAME];
    if (!copy_name(p, e, name))
        return NULL;
    for (uint32_t i = 0; i < *n; i++) {
        char *rec = (char *)tab + i * size;
        if (strcmp(rec, name) == 0)
            return rec;
    }
    if (*n >= max)
        return NULL;
    char *rec = (char *)tab + (*n)++ * size;
    memset(rec, 0, size);
    memcpy(rec, name, sizeof name);
    return rec;
}

typedef struct keyform {
    const char *prefix;
    int engine;              /* 1: an engine field, 0: a region field */
    int field;
} keyform;

/* Longer prefixes first: "drm-engine-capacity-" is also "drm-engine-",
 * "drm-total-cycles-" also "drm-total-". */
static const keyform forms[] = {
    { "drm-engine-capacity-", 1, PL_DRM_CAPACITY }, { "drm-total-cycles-", 1, PL_DRM_TOTAL_CYCLES },
    { "drm-cycles-", 1, PL_DRM_CYCLES }, { "drm-engine-", 1, PL_DRM_NS },
    { "drm-total-", 0, PL_DRM_TOTAL }, { "drm-resident-", 0, PL_DRM_RESIDENT },
    { "drm-shared-", 0, PL_DRM_SHARED }, { "drm-memory-", 0, PL_DRM_MEMORY },
};

static void keyed(pl_drm_fdinfo *f, const char *k, const char *colon, const char *eol)
{
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t n = strlen(forms[i].prefix);
        const keyform *kf = &forms[i];
        if ((size_t)(colon - k) <= n || memcmp(k, kf->prefix, n) != 0)
            continue;
        if (kf->engine) {
            pl_drm_engine *g = entry(f->eng, &f->neng, PL_DRM_ENGINES, sizeof *g, k + n, colon);
            const unit *u = kf->field == PL_DRM_NS ? ns_units : no_unit;
            if (g)
                g->st[kf->field] = value(colon + 1, eol, u, kf->field == PL_DRM_NS,
                                         &g->v[kf->field]) ? PL_NS_OK : PL_NS_BAD;
        } else {
            pl_drm_region *r = entry(f->reg, &f->nreg, PL_DRM_REGIONS, sizeof *r, k + n, colon);
            if (r)
                r->st[kf->field] = value(colon + 1, eol, mem_units, 0, &r->v[kf->field])
                                       ? PL_NS_OK : PL_NS_BAD;
        }
        return;
    }
}

int pl_parse_drm_fdinfo(const char *buf, size_t len, void *out)
{
    pl_drm_fdinfo *f = out;
    const char *p = buf, *end = buf + len;
    f->drm = f->has_client = 0;
    f->driver[0] = f->pdev[0] = '\0';
    f->client = 0;
    f->neng = f->nreg = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *colon;
        if (!eol)
            break;           /* cut off: not a whole line */
        colon = memchr(p, ':', (size_t)(eol - p));
        if (colon && colon - p > 4 && memcmp(p, "drm-", 4) == 0) {
            size_t kl = (size_t)(colon - p);
            if (kl == 10 && memcmp(p, "drm-driver", 10) == 0)
                f->drm = copy_name(colon + 1, eol, f->driver);
            else if (kl == 8 && memcmp(p, "drm-pdev", 8) == 0) {
                if (!copy_name(colon + 1, eol, f->pdev))
                    f->pdev[0] = '\0';
            } else if (kl == 13 && memcmp(p, "drm-client-id", 13) == 0)
                f->has_client = value(colon + 1, eol, no_unit, 0, &f->client);
            else
                keyed(f, p, colon, eol);
        }
        p = eol + 1;
    }
    return 0;
}

int pl_parse_drm_dpm(const char *buf, size_t len, void *out)
{
    pl_drm_dpm *d = out;
    const char *p = buf, *end = buf + len;
    d->found = 0;
    d->mhz = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *colon, *q;
        uint64_t mhz;
        if (!eol)
            break;
        /* "N: <uint>Mhz *": the level, its clock, the mark of the one in use */
        colon = memchr(p, ':', (size_t)(eol - p));
        q = colon ? colon + 1 : eol;
        if (colon && pl_src_num(&q, eol, &mhz) == 0 && eol - q >= 3 &&
            (memcmp(q, "Mhz", 3) == 0 || memcmp(q, "MHz", 3) == 0)) {
            q += 3;
            while (q < eol && pl_src_blank(*q))
                q++;
            if (q + 1 == eol && *q == '*') {
                if (d->found) {       /* two marks: which one is in use is unknown */
                    d->found = 0;
                    return 0;
                }
                d->found = 1;
                d->mhz = mhz;
            }
        }
        p = eol + 1;
    }
    return 0;
}

/* No path: the providers read each file themselves (one per fd, per card);
 * listed in pl_ksrc_all for the fuzz target and the parser tests. */
const pl_ksrc_def pl_ksrc_drm_fdinfo = {
    NULL, sizeof(pl_drm_fdinfo), PL_KSRC_WHOLE, pl_parse_drm_fdinfo, NULL,
};
const pl_ksrc_def pl_ksrc_drm_dpm = {
    NULL, sizeof(pl_drm_dpm), PL_KSRC_WHOLE, pl_parse_drm_dpm, NULL,
};
