/* Parsers of the bonding driver's sysfs files: see bonding.h. */
#include "bonding.h"

#include <string.h>

/* bond_mode_tbl of drivers/net/bonding/bond_options.c, by number */
static const char *const modes[] = {
    "balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb",
    "balance-alb",
};
#define NMODES (int)(sizeof modes / sizeof modes[0])

int pl_bond_mode(const char *text)
{
    size_t nl = strcspn(text, " \n");
    const char *num = text + nl;
    int m;
    if (*num != ' ' || num[1] < '0' || num[1] > '9' || (num[2] != '\n' && num[2] != '\0'))
        return -1;
    m = num[1] - '0';
    if (m >= NMODES || strlen(modes[m]) != nl || strncmp(text, modes[m], nl) != 0)
        return -1;
    return m;
}

const char *pl_bond_mode_name(int mode)
{
    return mode >= 0 && mode < NMODES ? modes[mode] : NULL;
}

int pl_bond_link(const char *text)
{
    static const char *const words[] = { "down", "up", "going down", "going back" };
    size_t l = strcspn(text, "\n");
    for (int i = 0; i < 4; i++)
        if (strlen(words[i]) == l && strncmp(text, words[i], l) == 0)
            return i;
    return -1;
}

int pl_bond_next_name(const char **p, char *out, size_t cap)
{
    const char *s = *p;
    size_t l;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    l = strcspn(s, " \t\n");
    *p = s + l;
    if (l == 0)
        return 0;
    if (l >= cap || memchr(s, '/', l) || (l == 1 && s[0] == '.') ||
        (l == 2 && s[0] == '.' && s[1] == '.'))
        return -1;
    memcpy(out, s, l);
    out[l] = '\0';
    return 1;
}
