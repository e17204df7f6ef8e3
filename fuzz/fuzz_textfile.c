/* libFuzzer target: the Prometheus text-format parser (pl_tf_parse) on
 * untrusted bytes.  Whatever the input, every sample belongs to a family of
 * the document, every family name is a metric name, every instance name
 * is non-empty, bounded and free of the characters a counter path or a
 * wildcard would read (textfile.h), and every sentence is terminated. */
#include "textfile.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > PL_TF_NAME_MAX || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:"
                                                   "0123456789") != n || (s[0] >= '0' && s[0] <= '9'))
        abort();
}

static void check_instance(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PL_TF_INST_MAX || strpbrk(s, "\\()/#*?[]\""))
        abort();
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7F)
            abort();
        if (ch == '%' && !(s[i + 1] && s[i + 2] && strchr("0123456789ABCDEF", s[i + 1]) &&
                           strchr("0123456789ABCDEF", s[i + 2])))
            abort();                   /* a % is always the start of an escape */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    pl_tf_doc d;
    if (!buf)
        return 0;
    memcpy(buf, data, size);          /* exactly size bytes: one more is an overflow */
    if (pl_tf_parse(buf, size, &d) == 0) {
        if (memchr(d.err, '\0', sizeof d.err) == NULL)
            abort();
        for (uint32_t i = 0; i < d.nfam; i++) {
            check_name(d.fam[i].name);
            if (memchr(d.fam[i].err, '\0', sizeof d.fam[i].err) == NULL || d.fam[i].type < 0 ||
                d.fam[i].type >= PL_TF_NTYPES)
                abort();
        }
        for (uint32_t i = 0; i < d.nser; i++) {
            if (d.ser[i].fam >= d.nfam || d.ser[i].slot > PL_TF_COUNT || d.ser[i].line == 0)
                abort();
            check_instance(d.ser[i].inst);
        }
        pl_tf_doc_free(&d);
    }
    free(buf);
    return 0;
}
