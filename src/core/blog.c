/* Binary logs (pl_blog.h has the format): the writer appends whole records
 * with one write() each, the reader checks a whole log before it gives a
 * record.  No Lua. */
#include "pl_blog.h"
#include "pl_le.h"
#include "pl_logutil.h"
#include "pl_v1.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

static const uint8_t MAGIC[8] = { 0x89, 'P', 'L', 'B', 0x0D, 0x0A, 0x1A, 0x0A };

/* CRC-32C, reflected polynomial 0x82F63B78 (generated once, checked by the C test's check value) */
static const uint32_t CRC_TABLE[256] = {
    0x00000000u, 0xF26B8303u, 0xE13B70F7u, 0x1350F3F4u, 0xC79A971Fu, 0x35F1141Cu,
    0x26A1E7E8u, 0xD4CA64EBu, 0x8AD958CFu, 0x78B2DBCCu, 0x6BE22838u, 0x9989AB3Bu,
    0x4D43CFD0u, 0xBF284CD3u, 0xAC78BF27u, 0x5E133C24u, 0x105EC76Fu, 0xE235446Cu,
    0xF165B798u, 0x030E349Bu, 0xD7C45070u, 0x25AFD373u, 0x36FF2087u, 0xC494A384u,
    0x9A879FA0u, 0x68EC1CA3u, 0x7BBCEF57u, 0x89D76C54u, 0x5D1D08BFu, 0xAF768BBCu,
    0xBC267848u, 0x4E4DFB4Bu, 0x20BD8EDEu, 0xD2D60DDDu, 0xC186FE29u, 0x33ED7D2Au,
    0xE72719C1u, 0x154C9AC2u, 0x061C6936u, 0xF477EA35u, 0xAA64D611u, 0x580F5512u,
    0x4B5FA6E6u, 0xB93425E5u, 0x6DFE410Eu, 0x9F95C20Du, 0x8CC531F9u, 0x7EAEB2FAu,
    0x30E349B1u, 0xC288CAB2u, 0xD1D83946u, 0x23B3BA45u, 0xF779DEAEu, 0x05125DADu,
    0x1642AE59u, 0xE4292D5Au, 0xBA3A117Eu, 0x4851927Du, 0x5B016189u, 0xA96AE28Au,
    0x7DA08661u, 0x8FCB0562u, 0x9C9BF696u, 0x6EF07595u, 0x417B1DBCu, 0xB3109EBFu,
    0xA0406D4Bu, 0x522BEE48u, 0x86E18AA3u, 0x748A09A0u, 0x67DAFA54u, 0x95B17957u,
    0xCBA24573u, 0x39C9C670u, 0x2A993584u, 0xD8F2B687u, 0x0C38D26Cu, 0xFE53516Fu,
    0xED03A29Bu, 0x1F682198u, 0x5125DAD3u, 0xA34E59D0u, 0xB01EAA24u, 0x42752927u,
    0x96BF4DCCu, 0x64D4CECFu, 0x77843D3Bu, 0x85EFBE38u, 0xDBFC821Cu, 0x2997011Fu,
    0x3AC7F2EBu, 0xC8AC71E8u, 0x1C661503u, 0xEE0D9600u, 0xFD5D65F4u, 0x0F36E6F7u,
    0x61C69362u, 0x93AD1061u, 0x80FDE395u, 0x72966096u, 0xA65C047Du, 0x5437877Eu,
    0x4767748Au, 0xB50CF789u, 0xEB1FCBADu, 0x197448AEu, 0x0A24BB5Au, 0xF84F3859u,
    0x2C855CB2u, 0xDEEEDFB1u, 0xCDBE2C45u, 0x3FD5AF46u, 0x7198540Du, 0x83F3D70Eu,
    0x90A324FAu, 0x62C8A7F9u, 0xB602C312u, 0x44694011u, 0x5739B3E5u, 0xA55230E6u,
    0xFB410CC2u, 0x092A8FC1u, 0x1A7A7C35u, 0xE811FF36u, 0x3CDB9BDDu, 0xCEB018DEu,
    0xDDE0EB2Au, 0x2F8B6829u, 0x82F63B78u, 0x709DB87Bu, 0x63CD4B8Fu, 0x91A6C88Cu,
    0x456CAC67u, 0xB7072F64u, 0xA457DC90u, 0x563C5F93u, 0x082F63B7u, 0xFA44E0B4u,
    0xE9141340u, 0x1B7F9043u, 0xCFB5F4A8u, 0x3DDE77ABu, 0x2E8E845Fu, 0xDCE5075Cu,
    0x92A8FC17u, 0x60C37F14u, 0x73938CE0u, 0x81F80FE3u, 0x55326B08u, 0xA759E80Bu,
    0xB4091BFFu, 0x466298FCu, 0x1871A4D8u, 0xEA1A27DBu, 0xF94AD42Fu, 0x0B21572Cu,
    0xDFEB33C7u, 0x2D80B0C4u, 0x3ED04330u, 0xCCBBC033u, 0xA24BB5A6u, 0x502036A5u,
    0x4370C551u, 0xB11B4652u, 0x65D122B9u, 0x97BAA1BAu, 0x84EA524Eu, 0x7681D14Du,
    0x2892ED69u, 0xDAF96E6Au, 0xC9A99D9Eu, 0x3BC21E9Du, 0xEF087A76u, 0x1D63F975u,
    0x0E330A81u, 0xFC588982u, 0xB21572C9u, 0x407EF1CAu, 0x532E023Eu, 0xA145813Du,
    0x758FE5D6u, 0x87E466D5u, 0x94B49521u, 0x66DF1622u, 0x38CC2A06u, 0xCAA7A905u,
    0xD9F75AF1u, 0x2B9CD9F2u, 0xFF56BD19u, 0x0D3D3E1Au, 0x1E6DCDEEu, 0xEC064EEDu,
    0xC38D26C4u, 0x31E6A5C7u, 0x22B65633u, 0xD0DDD530u, 0x0417B1DBu, 0xF67C32D8u,
    0xE52CC12Cu, 0x1747422Fu, 0x49547E0Bu, 0xBB3FFD08u, 0xA86F0EFCu, 0x5A048DFFu,
    0x8ECEE914u, 0x7CA56A17u, 0x6FF599E3u, 0x9D9E1AE0u, 0xD3D3E1ABu, 0x21B862A8u,
    0x32E8915Cu, 0xC083125Fu, 0x144976B4u, 0xE622F5B7u, 0xF5720643u, 0x07198540u,
    0x590AB964u, 0xAB613A67u, 0xB831C993u, 0x4A5A4A90u, 0x9E902E7Bu, 0x6CFBAD78u,
    0x7FAB5E8Cu, 0x8DC0DD8Fu, 0xE330A81Au, 0x115B2B19u, 0x020BD8EDu, 0xF0605BEEu,
    0x24AA3F05u, 0xD6C1BC06u, 0xC5914FF2u, 0x37FACCF1u, 0x69E9F0D5u, 0x9B8273D6u,
    0x88D28022u, 0x7AB90321u, 0xAE7367CAu, 0x5C18E4C9u, 0x4F48173Du, 0xBD23943Eu,
    0xF36E6F75u, 0x0105EC76u, 0x12551F82u, 0xE03E9C81u, 0x34F4F86Au, 0xC69F7B69u,
    0xD5CF889Du, 0x27A40B9Eu, 0x79B737BAu, 0x8BDCB4B9u, 0x988C474Du, 0x6AE7C44Eu,
    0xBE2DA0A5u, 0x4C4623A6u, 0x5F16D052u, 0xAD7D5351u,
};

static uint32_t crc_table(uint32_t crc, const uint8_t *b, size_t n)
{
    while (n--)
        crc = CRC_TABLE[(crc ^ *b++) & 0xFFu] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE4.2's crc32 instruction computes exactly this CRC, 8 bytes a step: a
 * day of Global history is 7 GB, checked when a log is opened and read. */
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *b, size_t n)
{
    uint64_t c = crc;
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, b, 8);                   /* unaligned, little-endian */
        c = __builtin_ia32_crc32di(c, v);
    }
    crc = (uint32_t)c;
    for (; n; b++, n--)
        crc = __builtin_ia32_crc32qi(crc, *b);
    return crc;
}

static int have_sse42(void)
{
    static int have = -1;                   /* a benign race: every thread computes the same */
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    return have;
}
#endif

uint32_t pl_crc32c(uint32_t crc, const void *p, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (have_sse42())
        return ~crc_sse42(~crc, p, n);
#endif
    return ~crc_table(~crc, p, n);
}

/* ------------------------------------------------------------ reading a log */

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return errno;
        if (k == 0)
            return EIO;               /* the file shrank under us */
        p += k, n -= (size_t)k, off += (uint64_t)k;
    }
    return 0;
}

static int bad(pl_db_error *err, uint64_t off, const char *rule)
{
    err->offset = (size_t)off;
    err->rule = rule;
    return EINVAL;
}

/* The file header at h (PL_BLOG_HEADER bytes) into info: 0 or EINVAL. */
static int parse_header(const uint8_t *h, pl_blog_info *info, pl_db_error *err)
{
    if (memcmp(h, MAGIC, sizeof MAGIC) != 0)
        return bad(err, 0, "not a perflib binary log (bad magic)");
    if (pl_crc32c(0, h, 108) != pl_r32(h + 108))
        return bad(err, 108, "file header CRC does not match");
    info->version = pl_r16(h + 8);
    info->flags = pl_r16(h + 10);
    if (info->version != PL_BLOG_VERSION && info->version != 1)
        return bad(err, 8, "unsupported log version");
    if (info->flags != 0)
        return bad(err, 10, "unknown header flags");
    if (pl_r32(h + 12) != PL_BLOG_HEADER)
        return bad(err, 12, "header size is not 112");
    info->created = (int64_t)pl_r64(h + 16);
    memcpy(info->perflib, h + 24, 16);
    info->perflib[16] = '\0';
    memcpy(info->host, h + 40, PL_BLOG_HOST);
    info->host[PL_BLOG_HOST] = '\0';
    return 0;
}


/* 1 when every byte of fd from off to end is zero (a file extended, never written). */
static int zeros_to_end(int fd, uint64_t off, uint64_t end)
{
    uint8_t b[4096];
    while (off < end) {
        size_t n = end - off < sizeof b ? (size_t)(end - off) : sizeof b;
        if (read_at(fd, b, n, off))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (b[i])
                return 0;
        off += n;
    }
    return 1;
}

/* The payload's own rules: a layout its reader accepts, metadata first
 * (version 1's a V1 metadata block, version 2's perflib definitions). */
static int check_payload(const pl_blog_reader *r, uint32_t type, size_t len, uint64_t off, pl_db_error *err)
{
    pl_db_error e = { 0, NULL };
    if (type == PL_BLOG_DATA) {
        if (r->ndata == r->nrecords)
            return bad(err, off, "data record before any metadata record");
        if (pl_db_validate(r->buf, len, &e) == 0)
            return 0;
    } else if (r->info.version == 1) {
        if (pl_v1_validate(r->buf, len, &e) == 0)
            return 0;
    } else {
        pl_defs *d = NULL;
        int k = pl_defs_read(r->buf, len, &d, &e);
        pl_defs_free(d);
        if (k == ENOMEM)
            return k;
        if (k == 0)
            return 0;
    }
    return bad(err, off + PL_BLOG_RECORD_HEAD + e.offset, e.rule);
}

/* One record at r->pos of a file of size end: 1 whole (r->pos moved past it),
 * 0 torn (r->torn set), or an errno (EINVAL with *err). */
static int scan_one(pl_blog_reader *r, uint64_t end, pl_db_error *err)
{
    uint8_t h[PL_BLOG_RECORD_HEAD];
    uint64_t off = r->pos, rem = end - off;
    const char *torn = NULL;
    if (rem < PL_BLOG_RECORD_HEAD)
        torn = "partial record head at the end of the file";
    else if (read_at(r->fd, h, sizeof h, off))
        return EIO;
    else if (pl_crc32c(0, h, 12) != pl_r32(h + 12)) {
        if (!zeros_to_end(r->fd, off, end))
            return bad(err, off, "record head CRC does not match");
        torn = "zero bytes after the last record";
    }
    if (torn) {
        r->torn = off, r->torn_rule = torn;
        return 0;
    }
    uint32_t type = pl_r32(h), len = pl_r32(h + 4);
    if (type != PL_BLOG_METADATA && type != PL_BLOG_DATA)
        return bad(err, off, "unknown record type");
    if (len > PL_BLOG_MAX_RECORD)
        return bad(err, off + 4, "record longer than 1 GiB");
    uint64_t whole = PL_BLOG_RECORD_HEAD + ALIGN8((uint64_t)len);
    if (whole > rem) {
        r->torn = off, r->torn_rule = "last record runs past the end of the file";
        return 0;
    }
    if (pl_grow((void **)&r->buf, &r->cap, ALIGN8((size_t)len) + 8, 1))
        return ENOMEM;
    int e = read_at(r->fd, r->buf, ALIGN8((size_t)len), off + PL_BLOG_RECORD_HEAD);
    if (e)
        return e;
    int ok = pl_crc32c(0, r->buf, len) == pl_r32(h + 8);
    for (size_t i = len; ok && i < ALIGN8((size_t)len); i++)
        ok = r->buf[i] == 0;
    if (!ok) {
        if (whole != rem)
            return bad(err, off, "record CRC does not match");
        r->torn = off, r->torn_rule = "last record's CRC does not match";
        return 0;
    }
    if ((e = check_payload(r, type, len, off, err)) != 0)
        return e;
    if (type == PL_BLOG_DATA) {
        r->last = (int64_t)pl_r64(r->buf + 16);        /* PerfTime100nSec: validated above */
        if (r->ndata++ == 0)
            r->first = r->last;
    }
    r->nrecords++;
    r->pos = off + whole;
    return 1;
}

/* The header and every record of r->fd: 0 (r->end, r->torn set) or an errno. */
static int scan(pl_blog_reader *r, pl_db_error *err)
{
    struct stat st;
    uint8_t h[PL_BLOG_HEADER];
    if (fstat(r->fd, &st) != 0)
        return errno;
    uint64_t end = (uint64_t)st.st_size;
    if (end == 0)
        return bad(err, 0, "empty file: not a perflib binary log");
    if (end < PL_BLOG_HEADER) {
        size_t n = (size_t)end;
        if (read_at(r->fd, h, n, 0))
            return EIO;
        if (memcmp(h, MAGIC, n < sizeof MAGIC ? n : sizeof MAGIC) != 0)
            return bad(err, 0, "not a perflib binary log (bad magic)");
        return bad(err, end, "file header truncated");
    }
    if (read_at(r->fd, h, sizeof h, 0))
        return EIO;
    int e = parse_header(h, &r->info, err);
    r->pos = PL_BLOG_HEADER;
    while (!e && r->pos < end && (e = scan_one(r, end, err)) == 1)
        e = 0;
    if (e == 1 || (e == 0 && r->torn))
        e = 0;
    r->end = r->torn ? r->torn : r->pos;
    r->pos = PL_BLOG_HEADER;
    return e;
}

static void reader_init(pl_blog_reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
}

int pl_blog_read_open(const char *path, pl_blog_reader *r, pl_db_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    reader_init(r, -1);
    if (fd < 0)
        return errno;
    r->fd = fd;
    int e = scan(r, err);
    if (e)
        pl_blog_read_close(r);
    return e;
}

int pl_blog_read_again(const char *path, const pl_blog_reader *checked, pl_blog_reader *r)
{
    struct stat st;
    reader_init(r, -1);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = fstat(fd, &st) != 0 ? errno : (uint64_t)st.st_size < checked->end ? EINVAL : 0;
    if (e) {
        close(fd);
        return e;
    }
    *r = *checked;
    r->fd = fd;
    r->buf = NULL;
    r->cap = 0;
    r->pos = PL_BLOG_HEADER;
    return 0;
}

int pl_blog_next(pl_blog_reader *r, int64_t from, int64_t to, pl_blog_record *rec)
{
    uint8_t h[PL_BLOG_RECORD_HEAD + 24];      /* the head and the block's times */
    while (r->fd >= 0 && r->pos < r->end) {
        int e = read_at(r->fd, h, sizeof h, r->pos);
        if (e)
            return -e;
        uint32_t type = pl_r32(h), len = pl_r32(h + 4);
        uint64_t whole = PL_BLOG_RECORD_HEAD + ALIGN8((uint64_t)len);
        /* checked when opened; a file changed since is refused, not misread */
        if (pl_crc32c(0, h, 12) != pl_r32(h + 12) || len > PL_BLOG_MAX_RECORD || r->pos + whole > r->end
            || (type == PL_BLOG_DATA && len < PL_DB_DATA_HEADER))
            return -EINVAL;
        int64_t t = type == PL_BLOG_DATA ? (int64_t)pl_r64(h + PL_BLOG_RECORD_HEAD + 16) : 0;
        if (type == PL_BLOG_DATA && (t < from || t > to)) {
            r->pos += whole;                  /* out of range: its payload is not even read */
            continue;
        }
        if ((e = pl_grow((void **)&r->buf, &r->cap, ALIGN8((size_t)len) + 8, 1)) != 0
            || (e = read_at(r->fd, r->buf, len, r->pos + PL_BLOG_RECORD_HEAD)) != 0)
            return -e;
        if (pl_crc32c(0, r->buf, len) != pl_r32(h + 8))
            return -EINVAL;
        rec->type = type;
        rec->offset = r->pos;
        rec->data = r->buf;
        rec->len = len;
        rec->time = t;
        r->pos += whole;
        return 1;
    }
    return 0;
}

void pl_blog_rewind(pl_blog_reader *r)
{
    r->pos = PL_BLOG_HEADER;
}

void pl_blog_read_close(pl_blog_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

/* ------------------------------------------------------------ writing a log */

struct pl_blog_writer {
    int fd;
    uint32_t rotation;            /* 0: the path given; n: its _00n file */
    uint32_t since_sync;
    uint64_t size, ndata;
    int64_t first;                /* the file's first sample's time (FILETIME) */
    pl_blog_opts opts;
    char host[PL_BLOG_HOST + 1];
    uint8_t *buf;                 /* the records of one write, reused */
    size_t cap;
    pl_logenc *enc;               /* what this file has described */
    char *base;                   /* the path given */
    char *path;                   /* the file written now */
};

/* Writes n bytes at the end of the file in one write() (more only after a
 * short one); on failure cuts the file back to w->size: 0 or an errno. */
static int append(pl_blog_writer *w, const uint8_t *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(w->fd, p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : EIO;
            if (ftruncate(w->fd, (off_t)w->size) != 0) {
                /* nothing more to do: the reader ignores a torn tail */
            }
            return e;
        }
        done += (size_t)k;
    }
    w->size += n;
    return 0;
}

static void put_head(uint8_t *h, uint32_t type, const uint8_t *payload, size_t len)
{
    pl_w32(h, type);
    pl_w32(h + 4, (uint32_t)len);
    pl_w32(h + 8, pl_crc32c(0, payload, len));
    pl_w32(h + 12, pl_crc32c(0, h, 12));
    memset(h + PL_BLOG_RECORD_HEAD + len, 0, ALIGN8(len) - len);
}

static int write_header(pl_blog_writer *w)
{
    uint8_t h[PL_BLOG_HEADER];
    memset(h, 0, sizeof h);
    memcpy(h, MAGIC, sizeof MAGIC);
    pl_w16(h + 8, PL_BLOG_VERSION);
    pl_w16(h + 10, 0);
    pl_w32(h + 12, PL_BLOG_HEADER);
    int64_t created;
    pl_now(NULL, NULL, &created);               /* the wall clock as FILETIME, as samples stamp it */
    pl_w64(h + 16, (uint64_t)created);
    strncpy((char *)h + 24, PL_VERSION, 16);
    memcpy(h + 40, w->host, strlen(w->host));
    pl_w32(h + 108, pl_crc32c(0, h, 108));
    return append(w, h, sizeof h);
}

/* An existing log to append to: this version and host, whole records (a torn
 * tail cut off).  0 or an errno with msg. */
static int adopt(pl_blog_writer *w, char *msg, size_t size)
{
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    reader_init(&r, w->fd);
    int e = scan(&r, &err);
    free(r.buf);
    if (e == EINVAL) {
        pl_say(msg, size, "%s: offset %llu: %s", w->path, (unsigned long long)err.offset, err.rule);
        return e;
    }
    if (e) {
        pl_say(msg, size, "%s: %s", w->path, strerror(e));
        return e;
    }
    if (r.info.version != PL_BLOG_VERSION) {
        pl_say(msg, size, "%s: a version %u log: perflib %s writes version %u, in a new file", w->path,
            (unsigned)r.info.version, PL_VERSION, (unsigned)PL_BLOG_VERSION);
        return EINVAL;
    }
    if (strcmp(r.info.host, w->host) != 0) {
        pl_say(msg, size, "%s: a log of host '%s', not '%s': not appended to", w->path, r.info.host, w->host);
        return EINVAL;
    }
    if (r.torn && ftruncate(w->fd, (off_t)r.end) != 0) {
        e = errno;
        pl_say(msg, size, "%s: cutting off a torn last record: %s", w->path, strerror(e));
        return e;
    }
    w->size = r.end;
    w->ndata = r.ndata;
    w->first = r.first;
    return 0;
}

/* Opens w->path (closing the file before): created with its header, or adopted. */
static int open_file(pl_blog_writer *w, char *msg, size_t size)
{
    struct stat st;
    int e = 0;
    if (w->fd >= 0)
        close(w->fd);
    pl_logenc_reset(w->enc);
    w->size = w->ndata = 0;
    w->since_sync = 0;
    w->fd = open(w->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (w->fd < 0 || fstat(w->fd, &st) != 0) {
        e = errno;
        pl_say(msg, size, "%s: %s", w->path, strerror(e));
    } else if (S_ISREG(st.st_mode) && flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
        e = errno;                        /* one writer per log: a second would interleave records */
        pl_say(msg, size, "%s: another writer has it open (%s)", w->path, strerror(e));
    } else if (st.st_size > 0) {
        e = adopt(w, msg, size);
    } else if ((e = write_header(w)) != 0) {
        pl_say(msg, size, "%s: %s", w->path, strerror(e));
    }
    if (e && w->fd >= 0) {                /* never write into a file that was refused */
        close(w->fd);
        w->fd = -1;
    }
    return e;
}

int pl_blog_open(const char *path, const pl_blog_opts *opts, pl_blog_writer **out, char *msg, size_t size)
{
    *out = NULL;
    pl_blog_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->base = strdup(path)) || !(w->enc = pl_logenc_new())) {
        if (w)
            free(w->base);
        free(w);
        pl_say(msg, size, "%s: %s", path, strerror(ENOMEM));
        return ENOMEM;
    }
    w->fd = -1;
    if (opts)
        w->opts = *opts;
    pl_log_host(w->host, sizeof w->host, w->opts.host);
    w->opts.host = NULL;
    int e = pl_set_rotated_path(&w->path, w->base, 0);
    if (e)
        pl_say(msg, size, "%s: %s", path, strerror(e));
    if (e || (e = open_file(w, msg, size)) != 0) {
        pl_blog_close(w);
        return e;
    }
    *out = w;
    return 0;
}

/* On to the next file while this one is full (past one left full by an
 * earlier run, which is adopted like any log). */
static int rotate(pl_blog_writer *w, size_t add, int64_t t, char *msg, size_t size)
{
    while (pl_log_full(w->ndata, w->size, add, w->first, t, w->opts.max_bytes, w->opts.max_seconds)) {
        if (fdatasync(w->fd) != 0 && errno != EINVAL) {
            int e = errno;
            pl_say(msg, size, "%s: fdatasync: %s", w->path, strerror(e));
            return e;
        }
        int e = pl_set_rotated_path(&w->path, w->base, ++w->rotation);
        if (e) {
            pl_say(msg, size, "%s: %s", w->base, strerror(e));
            return e;
        }
        if ((e = open_file(w, msg, size)) != 0)
            return e;
        if ((e = pl_drop_oldest(w->base, w->rotation, w->opts.max_files, NULL, msg, size)) != 0)
            return e;
    }
    return 0;
}

/* The records of s framed in w->buf: their size, or 0 with *e. */
static size_t frame(pl_blog_writer *w, const pl_sample *s, int *e)
{
    pl_log_rec recs[2];
    int n;
    size_t total = 0;
    if ((*e = pl_logenc_encode(w->enc, s, recs, &n)) != 0)
        return 0;
    for (int i = 0; i < n; i++)
        total += PL_BLOG_RECORD_HEAD + ALIGN8(recs[i].len);
    if ((*e = pl_grow((void **)&w->buf, &w->cap, total, 1)) != 0)
        return 0;
    uint8_t *p = w->buf;
    for (int i = 0; i < n; i++) {
        memcpy(p + PL_BLOG_RECORD_HEAD, recs[i].data, recs[i].len);
        put_head(p, recs[i].type, p + PL_BLOG_RECORD_HEAD, recs[i].len);
        p += PL_BLOG_RECORD_HEAD + ALIGN8(recs[i].len);
    }
    return total;
}

int pl_blog_write(pl_blog_writer *w, const pl_sample *s, char *msg, size_t size)
{
    if (w->fd < 0) {
        pl_say(msg, size, "%s: the log could not be reopened", w->path);
        return EBADF;
    }
    int e;
    uint32_t rotation = w->rotation;
    size_t n = frame(w, s, &e);
    if (!e && (e = rotate(w, n, s->time100ns, msg, size)) != 0)
        return e;
    if (!e && w->rotation != rotation)
        n = frame(w, s, &e);                 /* a new file describes its sets again */
    if (e == EFBIG) {
        pl_say(msg, size, "%s: a sample of more than 1 GiB does not fit in a record", w->path);
        return e;
    }
    if (e || (e = append(w, w->buf, n)) != 0 || (e = pl_logenc_commit(w->enc)) != 0) {
        pl_say(msg, size, "%s: %s", w->path, strerror(e));
        return e;
    }
    if (w->ndata++ == 0)
        w->first = s->time100ns;
    if (w->opts.sync_every && ++w->since_sync >= w->opts.sync_every) {
        w->since_sync = 0;
        if (fdatasync(w->fd) != 0 && errno != EINVAL) {
            e = errno;
            pl_say(msg, size, "%s: fdatasync: %s", w->path, strerror(e));
            return e;
        }
    }
    return 0;
}

const char *pl_blog_path(const pl_blog_writer *w)
{
    return w->path;
}

uint64_t pl_blog_size(const pl_blog_writer *w)
{
    return w->size;
}

int pl_blog_close(pl_blog_writer *w)
{
    if (!w)
        return 0;
    int e = 0;
    if (w->fd >= 0) {
        if (fdatasync(w->fd) != 0 && errno != EINVAL)   /* EINVAL: /dev/null and the like */
            e = errno;
        if (close(w->fd) != 0 && !e)
            e = errno;
    }
    pl_logenc_free(w->enc);
    free(w->buf);
    free(w->base);
    free(w->path);
    free(w);
    return e;
}
