/* Retrieving counter names and help text: the first consumer of seed 004
 * (Microsoft's "Using the Registry Functions to Consume Counter Data"),
 * ported to C on Linux against perflib's registry interface.
 *
 * It reads the "Counter" and "Help" tables of HKEY_PERFORMANCE_NLSTEXT
 * (the user's language; perflib's are English) with RegQueryValueExA,
 * growing the buffer while the call answers ERROR_MORE_DATA, skips the
 * first pair (1 -> the highest index, no name), and prints each name with
 * its help text, found at the name's index + 1:
 *
 *   index <TAB> name <TAB> help
 *
 *   build/examples/reg_counter_names
 *
 * Build outside the tree: cc reg_counter_names.c $(pkg-config --cflags --libs perflib) */
#include <perflib_v1.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_INCREMENT 16384

/* The whole REG_MULTI_SZ value, or NULL. */
static LPSTR GetTextTable(LPCSTR pszValueName)
{
    DWORD dwBufferSize = BUFFER_INCREMENT, dwSize, dwType = 0;
    LPSTR pBuffer = NULL;
    LSTATUS status = ERROR_MORE_DATA;
    while (status == ERROR_MORE_DATA) {
        LPSTR p = realloc(pBuffer, dwBufferSize);
        if (!p) {
            fprintf(stderr, "out of memory\n");
            break;
        }
        pBuffer = p;
        dwSize = dwBufferSize;
        status = RegQueryValueExA(HKEY_PERFORMANCE_NLSTEXT, pszValueName, NULL, &dwType, (LPBYTE)pBuffer, &dwSize);
        dwBufferSize += BUFFER_INCREMENT;
    }
    if (status != ERROR_SUCCESS || dwType != REG_MULTI_SZ) {
        fprintf(stderr, "RegQueryValueEx(%s) failed with %ld\n", pszValueName, (long)status);
        free(pBuffer);
        return NULL;
    }
    return pBuffer;
}

/* The text of index in a table of pairs, or "". */
static LPCSTR FindText(LPCSTR pTable, DWORD dwIndex)
{
    for (LPCSTR p = pTable; *p; ) {
        DWORD i = (DWORD)strtoul(p, NULL, 10);
        p += strlen(p) + 1;
        if (i == dwIndex)
            return p;
        p += strlen(p) + 1;
    }
    return "";
}

int main(void)
{
    int rc = 1;
    LPSTR pNames = GetTextTable("Counter");
    LPSTR pHelp = GetTextTable("Help");
    if (pNames && pHelp) {
        LPCSTR p = pNames;
        p += strlen(p) + 1;                    /* the first pair: 1 and the highest index */
        p += strlen(p) + 1;
        while (*p) {
            DWORD dwIndex = (DWORD)strtoul(p, NULL, 10);
            p += strlen(p) + 1;
            printf("%lu\t%s\t%s\n", (unsigned long)dwIndex, p, FindText(pHelp, dwIndex + 1));
            p += strlen(p) + 1;
        }
        rc = 0;
    }
    free(pNames);
    free(pHelp);
    RegCloseKey(HKEY_PERFORMANCE_NLSTEXT);
    return rc;
}
