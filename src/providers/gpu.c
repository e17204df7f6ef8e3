/* GPU Device (49000) and GPU Adapter Memory (50000): one instance per DRM
 * card (/sys/class/drm/cardN, "card0", id N) and per NVIDIA device of NVML
 * ("nvidia0", id 0x10000 + index; gpu_nvml.c).  Render nodes and
 * connectors (renderD128, card0-DP-1) are not cards.  No card and no NVML
 * (a VM) is zero instances.
 *
 * A card's files depend on its driver (device/driver's link):
 *  - amdgpu (drivers/gpu/drm/amd/pm/amdgpu_pm.c, amdgpu_vram_mgr.c,
 *    amdgpu_gtt_mgr.c, 6.x): device/gpu_busy_percent, mem_busy_percent,
 *    mem_info_{vram,vis_vram,gtt}_{total,used} in bytes, pp_dpm_sclk and
 *    pp_dpm_mclk (the '*' level), else the hwmon's freq1_input and
 *    freq2_input in Hz;
 *  - i915 (drivers/gpu/drm/i915/gt/intel_gt_sysfs_pm.c, 6.x): gt_act_freq_mhz,
 *    gt_cur_freq_mhz, gt_min/max/boost_freq_mhz, power/rc6_residency_ms;
 *  - xe (drivers/gpu/drm/xe/xe_gt_freq.c, xe_gt_idle.c, 6.8):
 *    device/tile0/gt0/freq0/{act,cur,min,max}_freq,
 *    device/tile0/gt0/gtidle/idle_residency_ms;
 *  - any driver with a device/hwmon/hwmonM (amdgpu; i915 and xe on discrete
 *    boards): power1_average, else power1_input, in uW, temp1_input in m°C
 *    (Documentation/hwmon/sysfs-interface.rst).
 * Each file is kept open and read with one pread; one that does not exist
 * is not tried again while the card stays; one that fails or does not hold
 * one whole number leaves its values unset.  Text facts (driver, PCI slot
 * and id, product name) through the info op. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "gpu.h"
#include "drm.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CLASS "sys/class/drm"
#define NV_ID 0x10000u

/* The values of one device, as the rows read them. */
enum {
    R_BUSY, R_MEMBUSY, R_POWER, R_TEMP, R_ACT, R_CUR, R_MIN, R_MAX, R_BOOST, R_MCLK, R_IDLE,
    R_VRAM_USED, R_VRAM_TOTAL, R_VIS_USED, R_VIS_TOTAL, R_GTT_USED, R_GTT_TOTAL, R_COMMITTED, NR
};
typedef struct gpu_row {
    uint64_t v[NR];
    uint8_t st[NR];
} gpu_row;
enum { S_ROW, NSRC };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, gpu_row) };

#define MHZ(R, id, name, what, field) \
    R(id, name, what, LRAW, PL_NO_ID, ADV, 0, PL_U(HERTZ, 1e6, GAUGE), PL_FIELD(S_ROW, field))
#define DEV_ROWS(R) \
    R(0, "% GPU Busy", "Share of time the GPU was busy (amdgpu device/gpu_busy_percent; NVML " \
      "nvmlDeviceGetUtilizationRates gpu).", LRAW, PL_NO_ID, NOV, 0, PL_U(PERCENT, 1, GAUGE), \
      PL_FIELD(S_ROW, R_BUSY)) \
    R(1, "% Memory Busy", "Share of time the memory controller was busy (amdgpu device/" \
      "mem_busy_percent; NVML nvmlDeviceGetUtilizationRates memory).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(PERCENT, 1, GAUGE), PL_FIELD(S_ROW, R_MEMBUSY)) \
    R(2, "Power (mW)", "Board power in microwatts with scale -3, so it formats to milliwatts " \
      "(device/hwmon/hwmonM/power1_average, else power1_input; NVML nvmlDeviceGetPowerUsage).", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(WATTS, 1e-6, GAUGE), PL_FIELD(S_ROW, R_POWER)) \
    R(3, "Temperature", "GPU temperature in millidegrees Celsius with scale -3, so it formats to " \
      "degrees (device/hwmon/hwmonM/temp1_input; NVML nvmlDeviceGetTemperature).", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(CELSIUS, 1e-3, GAUGE), PL_FIELD(S_ROW, R_TEMP)) \
    MHZ(R, 4, "Actual Frequency (MHz)", "Clock the GPU runs at (i915 gt_act_freq_mhz; xe " \
        "freq0/act_freq; amdgpu pp_dpm_sclk's '*' level, else hwmon freq1_input).", R_ACT) \
    MHZ(R, 5, "Requested Frequency (MHz)", "Clock the driver asked for (i915 gt_cur_freq_mhz; xe " \
        "freq0/cur_freq).", R_CUR) \
    MHZ(R, 6, "Minimum Frequency (MHz)", "Lowest clock allowed (i915 gt_min_freq_mhz; xe " \
        "freq0/min_freq).", R_MIN) \
    MHZ(R, 7, "Maximum Frequency (MHz)", "Highest clock allowed (i915 gt_max_freq_mhz; xe " \
        "freq0/max_freq).", R_MAX) \
    MHZ(R, 8, "Boost Frequency (MHz)", "Clock used when a client asks for a boost (i915 " \
        "gt_boost_freq_mhz).", R_BOOST) \
    MHZ(R, 9, "Memory Clock (MHz)", "Memory clock (amdgpu pp_dpm_mclk's '*' level, else hwmon " \
        "freq2_input).", R_MCLK) \
    R(10, "% Idle Time", "Share of time the GT was in its idle power state (i915 power/" \
      "rc6_residency_ms; xe gtidle/idle_residency_ms; ms kept in 100 ns).", PERF_100NSEC_TIMER, \
      PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_ROW, R_IDLE))

#define BROW(...) PL_GPU_BYTES_ROW(__VA_ARGS__)
#define MEM_ROWS(R) \
    BROW(R, 0, "Dedicated Usage", "Video memory in use, bytes (amdgpu device/" \
         "mem_info_vram_used; NVML nvmlDeviceGetMemoryInfo used).", R_VRAM_USED, NOV) \
    BROW(R, 1, "Dedicated Limit", "Video memory in all, bytes (amdgpu device/" \
         "mem_info_vram_total; NVML nvmlDeviceGetMemoryInfo total).", R_VRAM_TOTAL, NOV) \
    R(2, "% Dedicated Usage", "Share of the video memory in use (mem_info_vram_used / " \
      "mem_info_vram_total; NVML used / total).", PERF_LARGE_RAW_FRACTION, 3, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, R_VRAM_USED)) \
    R(3, "% Dedicated Usage Base", "Video memory in all, the base of % Dedicated Usage " \
      "(mem_info_vram_total; NVML total).", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), \
      PL_FIELD(S_ROW, R_VRAM_TOTAL)) \
    BROW(R, 4, "Visible Dedicated Usage", "CPU-visible video memory in use, bytes " \
         "(amdgpu device/mem_info_vis_vram_used).", R_VIS_USED, ADV) \
    BROW(R, 5, "Visible Dedicated Limit", "CPU-visible video memory in all, bytes " \
         "(amdgpu device/mem_info_vis_vram_total).", R_VIS_TOTAL, ADV) \
    BROW(R, 6, "Shared Usage", "System memory mapped for the GPU (GTT) in use, bytes " \
         "(amdgpu device/mem_info_gtt_used).", R_GTT_USED, NOV) \
    BROW(R, 7, "Shared Limit", "System memory the GPU may map (GTT), bytes (amdgpu " \
         "device/mem_info_gtt_total).", R_GTT_TOTAL, ADV) \
    BROW(R, 8, "Total Committed", "Dedicated Usage + Shared Usage, bytes (amdgpu " \
         "mem_info_vram_used + mem_info_gtt_used; NVML: used).", R_COMMITTED, NOV)

static const pl_counter_def dev_counters[] = { DEV_ROWS(PL_ROW_COUNTER) };
static const pl_feed dev_feeds[] = { DEV_ROWS(PL_ROW_FEED) };
static const pl_counter_def mem_counters[] = { MEM_ROWS(PL_ROW_COUNTER) };
static const pl_feed mem_feeds[] = { MEM_ROWS(PL_ROW_FEED) };
#define NDEV (sizeof dev_counters / sizeof dev_counters[0])
#define NMEM (sizeof mem_counters / sizeof mem_counters[0])

/* ---- a card's files ---------------------------------------------------------- */
enum { K_UNKNOWN, K_OTHER, K_AMDGPU, K_I915, K_XE, NKIND };
enum {
    F_BUSY, F_MEMBUSY, F_VRAM_USED, F_VRAM_TOTAL, F_VIS_USED, F_VIS_TOTAL, F_GTT_USED,
    F_GTT_TOTAL, F_SCLK, F_MCLK, F_ACT, F_CUR, F_MIN, F_MAX, F_BOOST, F_IDLE,
    F_POWER_AVG, F_POWER_IN, F_TEMP, F_FREQ1, F_FREQ2, NF
};
#define HW "device/hwmon/hwmon%d/"
#define XE_GT "device/tile0/gt0/"
static const char *const amd_files[F_POWER_AVG] = {
    "device/gpu_busy_percent", "device/mem_busy_percent", "device/mem_info_vram_used",
    "device/mem_info_vram_total", "device/mem_info_vis_vram_used", "device/mem_info_vis_vram_total",
    "device/mem_info_gtt_used", "device/mem_info_gtt_total", "device/pp_dpm_sclk",
    "device/pp_dpm_mclk",
};
static const char *const i915_files[F_POWER_AVG] = {
    [F_ACT] = "gt_act_freq_mhz", [F_CUR] = "gt_cur_freq_mhz", [F_MIN] = "gt_min_freq_mhz",
    [F_MAX] = "gt_max_freq_mhz", [F_BOOST] = "gt_boost_freq_mhz", [F_IDLE] = "power/rc6_residency_ms",
};
static const char *const xe_files[F_POWER_AVG] = {
    [F_ACT] = XE_GT "freq0/act_freq", [F_CUR] = XE_GT "freq0/cur_freq",
    [F_MIN] = XE_GT "freq0/min_freq", [F_MAX] = XE_GT "freq0/max_freq",
    [F_IDLE] = XE_GT "gtidle/idle_residency_ms",
};
static const char *const hw_files[NF - F_POWER_AVG] = {
    HW "power1_average", HW "power1_input", HW "temp1_input", HW "freq1_input", HW "freq2_input",
};

typedef struct card {
    unsigned num;            /* first: a pl_numbered record */
    int kind;                /* K_*, K_UNKNOWN until its driver was read */
    int hwmon;               /* N of device/hwmon/hwmonN, -1: none */
    uint32_t absent;         /* bit f: file f does not exist */
    int fd[NF];
} card;

typedef struct gpu_state {
    pl_env *env;
    const pl_feed *feeds;
    uint32_t nc;
    pl_numbered cards;       /* of card */
    pl_nvml *nv;
    char path[512];
} gpu_state;

static void card_init(void *rec)
{
    card *c = rec;
    c->hwmon = -1;
    for (int f = 0; f < NF; f++)
        c->fd[f] = -1;
}

static void card_close(void *rec)
{
    card *c = rec;
    for (int f = 0; f < NF; f++)
        if (c->fd[f] >= 0) {
            close(c->fd[f]);
            c->fd[f] = -1;
        }
}

/* The last part of the link rel (below the root) into out: 0 or errno. */
static int link_base(const gpu_state *s, const char *rel, char *out, size_t size)
{
    char path[512], target[512];
    ssize_t n;
    const char *b;
    snprintf(path, sizeof path, "%s%s", pl_env_root_prefix(s->env), rel);
    if ((n = readlink(path, target, sizeof target - 1)) < 0)
        return errno;
    target[n] = '\0';
    b = strrchr(target, '/');
    pl_fact_escape(b ? b + 1 : target, out, size);
    return 0;
}

/* The card's driver and hwmon directory, once per card (not on the
 * sampling path's steady state). */
static void classify(gpu_state *s, card *c)
{
    char rel[96], drv[64];
    DIR *d;
    struct dirent *e;
    unsigned n;
    c->kind = K_OTHER;
    snprintf(rel, sizeof rel, CLASS "/card%u/device/driver", c->num);
    if (link_base(s, rel, drv, sizeof drv) == 0)
        c->kind = !strcmp(drv, "amdgpu") ? K_AMDGPU : !strcmp(drv, "i915") ? K_I915
                : !strcmp(drv, "xe") ? K_XE : K_OTHER;
    snprintf(s->path, sizeof s->path, "%s" CLASS "/card%u/device/hwmon",
             pl_env_root_prefix(s->env), c->num);
    if (!(d = opendir(s->path)))
        return;
    while ((e = readdir(d)))
        if (pl_entry_number(e->d_name, "hwmon", 1000000, &n) && (c->hwmon < 0 || (int)n < c->hwmon))
            c->hwmon = (int)n;
    closedir(d);
}

/* Reads file f of the card into buf: 0, or errno (ENOENT: never again). */
static int card_file(gpu_state *s, card *c, int f, char *buf, size_t size)
{
    const char *rel = NULL;
    int e;
    if (c->absent & 1u << f)
        return ENOENT;
    if (c->fd[f] < 0) {
        char sub[96];
        if (f >= F_POWER_AVG) {
            if (c->hwmon < 0)
                return ENOENT;
            snprintf(sub, sizeof sub, hw_files[f - F_POWER_AVG], c->hwmon);
            rel = sub;
        } else {
            rel = c->kind == K_AMDGPU ? amd_files[f] : c->kind == K_I915 ? i915_files[f]
                : c->kind == K_XE ? xe_files[f] : NULL;
        }
        if (!rel) {
            c->absent |= 1u << f;
            return ENOENT;
        }
        snprintf(s->path, sizeof s->path, CLASS "/card%u/%s", c->num, rel);
        rel = s->path;
    }
    if ((e = pl_read_once(&c->fd[f], s->env, rel ? rel : "", buf, size)) == ENOENT)
        c->absent |= 1u << f;
    return e;
}

/* File f as one whole unsigned number: 1 with *v. */
static int card_num(gpu_state *s, card *c, int f, uint64_t *v)
{
    char buf[64];
    int64_t x;
    if (card_file(s, c, f, buf, sizeof buf) || pl_parse_i64_whole(buf, &x) || x < 0)
        return 0;
    *v = (uint64_t)x;
    return 1;
}

/* amdgpu's pp_dpm file f: 1 with the MHz of the level in use. */
static int card_dpm(gpu_state *s, card *c, int f, uint64_t *mhz)
{
    char buf[1024];
    pl_drm_dpm d;
    if (card_file(s, c, f, buf, sizeof buf))
        return 0;
    pl_parse_drm_dpm(buf, strlen(buf), &d);
    *mhz = d.mhz;
    return d.found;
}

/* amdgpu's clock in MHz: the pp_dpm level in use, else the hwmon's Hz rounded. */
static int amd_clock(gpu_state *s, card *c, int dpm, int hz, uint64_t *mhz)
{
    uint64_t v;
    if (card_dpm(s, c, dpm, mhz))
        return 1;
    if (!card_num(s, c, hz, &v))
        return 0;
    *mhz = (v + 500000) / 1000000;
    return 1;
}

static void put(gpu_row *r, int k, int ok, uint64_t v)
{
    if (ok) {
        r->v[k] = v;
        r->st[k] = PL_NS_OK;
    }
}

/* Row field k of a DRM card. */
static void card_field(gpu_state *s, card *c, gpu_row *r, int k)
{
    static const int direct[NR] = {
        [R_BUSY] = F_BUSY + 1, [R_MEMBUSY] = F_MEMBUSY + 1, [R_CUR] = F_CUR + 1,
        [R_MIN] = F_MIN + 1, [R_MAX] = F_MAX + 1, [R_BOOST] = F_BOOST + 1,
        [R_VRAM_USED] = F_VRAM_USED + 1, [R_VRAM_TOTAL] = F_VRAM_TOTAL + 1,
        [R_VIS_USED] = F_VIS_USED + 1, [R_VIS_TOTAL] = F_VIS_TOTAL + 1,
        [R_GTT_USED] = F_GTT_USED + 1, [R_GTT_TOTAL] = F_GTT_TOTAL + 1,
    };
    uint64_t v = 0, w = 0;
    int64_t t = -1;
    char buf[64];
    int ok = 0;
    switch (k) {
    case R_POWER:
        ok = card_num(s, c, F_POWER_AVG, &v) || card_num(s, c, F_POWER_IN, &v);
        break;
    case R_TEMP:     /* below 0 °C is no running GPU's reading */
        ok = !card_file(s, c, F_TEMP, buf, sizeof buf) && !pl_parse_i64_whole(buf, &t) && t >= 0;
        v = (uint64_t)t;
        break;
    case R_ACT:
        ok = c->kind == K_AMDGPU ? amd_clock(s, c, F_SCLK, F_FREQ1, &v) : card_num(s, c, F_ACT, &v);
        break;
    case R_MCLK:
        ok = amd_clock(s, c, F_MCLK, F_FREQ2, &v);
        break;
    case R_IDLE:     /* ms kept in 100 ns */
        ok = card_num(s, c, F_IDLE, &w) && pl_mul_ok(w, 10000, &v);
        break;
    case R_COMMITTED:
        ok = card_num(s, c, F_VRAM_USED, &v) && card_num(s, c, F_GTT_USED, &w) &&
             pl_add_ok(v, w, &v);
        break;
    default:
        ok = direct[k] && card_num(s, c, direct[k] - 1, &v);
    }
    put(r, k, ok, v);
}

/* Row field k of NVIDIA device values nv. */
static void nvml_field(const pl_nvml_vals *nv, gpu_row *r, int k)
{
    static const int8_t from[NR] = {
        [R_BUSY] = PL_NV_GPU_BUSY + 1, [R_MEMBUSY] = PL_NV_MEM_BUSY + 1,
        [R_VRAM_USED] = PL_NV_MEM_USED + 1, [R_VRAM_TOTAL] = PL_NV_MEM_TOTAL + 1,
        [R_COMMITTED] = PL_NV_MEM_USED + 1, [R_POWER] = PL_NV_POWER_MW + 1,
        [R_TEMP] = PL_NV_TEMP_C + 1,
    };
    int f = from[k] - 1;
    if (f < 0 || !(nv->have & 1u << f))
        return;
    /* milliwatts and degrees in the units of the DRM rows: uW, m°C */
    put(r, k, 1, nv->v[f] * (k == R_POWER || k == R_TEMP ? 1000u : 1u));
}

/* ---- the sets ------------------------------------------------------------------ */
static int gpu_open(pl_env *env, void **state, const pl_feed *feeds, uint32_t nc)
{
    gpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->feeds = feeds;
    s->nc = nc;
    pl_numbered_init(&s->cards, sizeof(card));
    s->nv = pl_nvml_open(env);
    *state = s;
    return 0;
}

static int dev_open(pl_env *env, void **state)
{
    return gpu_open(env, state, dev_feeds, NDEV);
}

static int mem_open(pl_env *env, void **state)
{
    return gpu_open(env, state, mem_feeds, NMEM);
}

static void gpu_close(void *state)
{
    gpu_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->cards, card_close);
    pl_nvml_close(s->nv);
    pl_env_unref(s->env);
    free(s);
}

/* The cards (classified once) and NVIDIA devices as instances. */
static int gpu_list(gpu_state *s, pl_snapshot *snap)
{
    char name[32];
    int e;
    pl_snap_clear(snap);
    if ((e = pl_numbered_list(&s->cards, s->env, CLASS, "card", 1u << 16, card_init,
                              card_close)) != 0)
        return e;
    for (uint32_t i = 0; i < s->cards.n; i++) {
        card *c = (card *)s->cards.v + i;
        if (c->kind == K_UNKNOWN)
            classify(s, c);
        snprintf(name, sizeof name, "card%u", c->num);
        if (pl_snap_add(snap, name, c->num) < 0)
            return ENOMEM;
    }
    for (unsigned i = 0; i < pl_nvml_count(s->nv); i++) {
        snprintf(name, sizeof name, "nvidia%u", i);
        if (pl_snap_add(snap, name, NV_ID + i) < 0)
            return ENOMEM;
    }
    return 0;
}

static int gpu_instances(void *state, pl_snapshot *snap)
{
    return gpu_list(state, snap);
}

/* The row fields the wanted counters read. */
static uint32_t row_need(const gpu_state *s, const uint8_t *wanted)
{
    uint32_t need = 0;
    for (uint32_t i = 0; i < s->nc; i++)
        if (!wanted || wanted[i])
            need |= 1u << s->feeds[i].a;
    return need;
}

static int gpu_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    gpu_state *s = state;
    uint32_t need = row_need(s, wanted), ncard;
    pl_feed_in in;
    int e;
    if ((e = gpu_list(s, snap)) != 0)
        return e;
    ncard = s->cards.n;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < snap->ninst; i++) {
        gpu_row r;
        pl_nvml_vals nv;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        if (i >= ncard && pl_nvml_read(s->nv, i - ncard, &nv) != 0)
            continue;
        for (int k = 0; k < NR; k++)
            if (need & 1u << k) {
                if (i < ncard)
                    card_field(s, (card *)s->cards.v + i, &r, k);
                else
                    nvml_field(&nv, &r, k);
            }
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, s->feeds, s->nc, wanted);
    }
    return 0;
}

/* ---- text facts ---------------------------------------------------------------- */
/* The first line of rel (below the root), escaped: 0 or errno. */
static int read_text(const gpu_state *s, const char *rel, char *out, size_t size)
{
    char buf[256];
    int e = pl_read_text(s->env, rel, buf, sizeof buf);
    if (!e) {
        buf[strcspn(buf, "\n")] = '\0';
        pl_fact_escape(buf, out, size);
    }
    return e;
}

static int card_info(gpu_state *s, unsigned num, pl_info_fn emit, void *ud)
{
    char rel[96], v[256], ven[32], dev[32], id[80];
    snprintf(rel, sizeof rel, CLASS "/card%u/device", num);
    if (link_base(s, rel, v, sizeof v) != 0)
        return ENOENT;
    if (emit(ud, "pci_slot", v))
        return 0;
    snprintf(rel, sizeof rel, CLASS "/card%u/device/driver", num);
    if (link_base(s, rel, v, sizeof v) == 0 && emit(ud, "driver", v))
        return 0;
    /* "0x1002" and "0x73bf" -> "1002:73bf", as lspci -n writes it */
    snprintf(rel, sizeof rel, CLASS "/card%u/device/vendor", num);
    if (read_text(s, rel, ven, sizeof ven) == 0) {
        snprintf(rel, sizeof rel, CLASS "/card%u/device/device", num);
        if (read_text(s, rel, dev, sizeof dev) == 0) {
            snprintf(id, sizeof id, "%s:%s", ven + (strncmp(ven, "0x", 2) ? 0 : 2),
                     dev + (strncmp(dev, "0x", 2) ? 0 : 2));
            if (emit(ud, "pci_id", id))
                return 0;
        }
    }
    /* amdgpu's product_name (from the board's FRU, 5.x) */
    snprintf(rel, sizeof rel, CLASS "/card%u/device/product_name", num);
    if (read_text(s, rel, v, sizeof v) == 0 && v[0])
        emit(ud, "product_name", v);
    return 0;
}

static int gpu_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    gpu_state *s = state;
    unsigned num;
    char v[256];
    if (!instance)
        return ENOENT;
    if (pl_entry_number(instance, "nvidia", pl_nvml_count(s->nv), &num)) {
        if (emit(ud, "driver", "nvidia"))
            return 0;
        if (pl_nvml_name(s->nv, num, v, sizeof v) == 0)
            emit(ud, "product_name", v);
        return 0;
    }
    if (!pl_entry_number(instance, "card", 1u << 16, &num))
        return ENOENT;
    return card_info(s, num, emit, ud);
}

static const pl_provider_ops dev_ops = { dev_open, gpu_close, gpu_instances, gpu_collect, NULL,
                                         gpu_info };
static const pl_provider_ops mem_ops = { mem_open, gpu_close, gpu_instances, gpu_collect, NULL,
                                         gpu_info };

const pl_counterset_def pl_gpu_device_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xb066970c, 0xbdf7, 0x5a59, { 0xbb, 0x7c, 0x96, 0x88, 0x32, 0xd5, 0x57, 0xc9 } },
    "GPU Device",
    "Utilisation, power, temperature and clocks of each GPU: DRM cards (/sys/class/drm/cardN: "
    "amdgpu, i915, xe) and NVIDIA devices through NVML when libnvidia-ml.so.1 is there; no "
    "instances without GPUs.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NDEV, dev_counters, &dev_ops, 49000, NULL,
};

const pl_counterset_def pl_gpu_adapter_memory_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x9a2b6916, 0xa111, 0x5deb, { 0xbd, 0xb2, 0x3f, 0x50, 0xfc, 0xbf, 0x93, 0x4f } },
    "GPU Adapter Memory",
    "Video memory (dedicated) and GTT (shared) use of each GPU: amdgpu's /sys/class/drm/cardN/"
    "device/mem_info_*, NVML's memory info; Windows' GPU Adapter Memory.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NMEM, mem_counters, &mem_ops, 50000, NULL,
};
