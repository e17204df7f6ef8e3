/* Displaying object, instance and counter names: the second consumer of
 * seed 004, ported to C on Linux against perflib's registry interface.
 *
 * It loads the English name table (HKEY_PERFORMANCE_TEXT "Counter") into an
 * array indexed by title index, sized by the table's first pair (1 -> the
 * highest index), collects the performance data (RegQueryValueExW on
 * HKEY_PERFORMANCE_DATA, growing the buffer on ERROR_MORE_DATA), and walks
 * PERF_DATA_BLOCK -> PERF_OBJECT_TYPE -> PERF_COUNTER_DEFINITION ->
 * PERF_INSTANCE_DEFINITION, printing
 *
 *   Object <index> <name>
 *     Counter <index> <name>
 *     Instance <name>[ (parent <object name> #<instance>)]
 *
 *   build/examples/reg_object_names ["Global" | "1000 2000" | ...]
 *
 * Build outside the tree: cc reg_object_names.c $(pkg-config --cflags --libs perflib) */
#include <perflib_v1.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_INCREMENT 16384
#define MAX_VALUE_NAME 256

/* Queries one value, growing the buffer on ERROR_MORE_DATA; NULL on failure. */
static LPBYTE QueryValue(HKEY hKey, LPCWSTR pwszValue, DWORD *pdwSize)
{
    DWORD dwBufferSize = BUFFER_INCREMENT;
    LPBYTE pBuffer = NULL;
    LSTATUS status = ERROR_MORE_DATA;
    while (status == ERROR_MORE_DATA) {
        LPBYTE p = realloc(pBuffer, dwBufferSize);
        if (!p)
            break;
        pBuffer = p;
        *pdwSize = dwBufferSize;
        status = RegQueryValueExW(hKey, pwszValue, NULL, NULL, pBuffer, pdwSize);
        dwBufferSize += BUFFER_INCREMENT;
    }
    if (status != ERROR_SUCCESS) {
        fprintf(stderr, "RegQueryValueEx failed with %ld\n", (long)status);
        free(pBuffer);
        return NULL;
    }
    return pBuffer;
}

/* Prints a UTF-16 string as UTF-8 (printf has no WCHAR conversion here). */
static void PrintW(LPCWSTR s)
{
    for (; *s; s++) {
        unsigned long c = *s;
        if (c >= 0xD800 && c < 0xDC00 && s[1] >= 0xDC00 && s[1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (unsigned long)(*++s - 0xDC00);
        if (c < 0x80)
            putchar((int)c);
        else if (c < 0x800)
            printf("%c%c", (int)(0xC0 | c >> 6), (int)(0x80 | (c & 0x3F)));
        else if (c < 0x10000)
            printf("%c%c%c", (int)(0xE0 | c >> 12), (int)(0x80 | ((c >> 6) & 0x3F)), (int)(0x80 | (c & 0x3F)));
        else
            printf("%c%c%c%c", (int)(0xF0 | c >> 18), (int)(0x80 | ((c >> 12) & 0x3F)),
                   (int)(0x80 | ((c >> 6) & 0x3F)), (int)(0x80 | (c & 0x3F)));
    }
}

static DWORD ParseW(LPCWSTR s)
{
    DWORD v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (DWORD)(*s - '0');
    return v;
}

static size_t LenW(LPCWSTR s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* The name table as an array of pointers into pTable, indexed by title index. */
static LPCWSTR *LoadNames(LPCWSTR pTable, DWORD *pdwLast)
{
    LPCWSTR p = pTable + LenW(pTable) + 1;        /* the first pair: "1", the highest index */
    DWORD dwLast = ParseW(p);
    LPCWSTR *names = calloc((size_t)dwLast + 1, sizeof *names);
    if (!names)
        return NULL;
    for (p += LenW(p) + 1; *p; ) {
        DWORD i = ParseW(p);
        p += LenW(p) + 1;
        if (i <= dwLast)
            names[i] = p;
        p += LenW(p) + 1;
    }
    *pdwLast = dwLast;
    return names;
}

static void PrintName(LPCWSTR *names, DWORD dwLast, DWORD i)
{
    if (i <= dwLast && names[i])
        PrintW(names[i]);
    else
        printf("<no name %lu>", (unsigned long)i);
}

/* The object with title index in the data block, or NULL. */
static PERF_OBJECT_TYPE *FindObject(PERF_DATA_BLOCK *pdb, DWORD dwIndex)
{
    PERF_OBJECT_TYPE *po = (PERF_OBJECT_TYPE *)((LPBYTE)pdb + pdb->HeaderLength);
    for (DWORD i = 0; i < pdb->NumObjectTypes; i++) {
        if (po->ObjectNameTitleIndex == dwIndex)
            return po;
        po = (PERF_OBJECT_TYPE *)((LPBYTE)po + po->TotalByteLength);
    }
    return NULL;
}

/* The name of instance n of an object (instances only), or NULL. */
static LPCWSTR InstanceName(PERF_OBJECT_TYPE *po, DWORD n)
{
    PERF_INSTANCE_DEFINITION *pi = (PERF_INSTANCE_DEFINITION *)((LPBYTE)po + po->DefinitionLength);
    if (po->NumInstances <= 0 || n >= (DWORD)po->NumInstances)
        return NULL;
    for (DWORD i = 0; i < n; i++) {
        PERF_COUNTER_BLOCK *pcb = (PERF_COUNTER_BLOCK *)((LPBYTE)pi + pi->ByteLength);
        pi = (PERF_INSTANCE_DEFINITION *)((LPBYTE)pcb + pcb->ByteLength);
    }
    return (LPCWSTR)((LPBYTE)pi + pi->NameOffset);
}

static void PrintObject(PERF_DATA_BLOCK *pdb, PERF_OBJECT_TYPE *po, LPCWSTR *names, DWORD dwLast)
{
    PERF_COUNTER_DEFINITION *pcd = (PERF_COUNTER_DEFINITION *)((LPBYTE)po + po->HeaderLength);
    printf("Object %lu ", (unsigned long)po->ObjectNameTitleIndex);
    PrintName(names, dwLast, po->ObjectNameTitleIndex);
    putchar('\n');
    for (DWORD c = 0; c < po->NumCounters; c++) {
        printf("  Counter %lu ", (unsigned long)pcd->CounterNameTitleIndex);
        PrintName(names, dwLast, pcd->CounterNameTitleIndex);
        putchar('\n');
        pcd = (PERF_COUNTER_DEFINITION *)((LPBYTE)pcd + pcd->ByteLength);
    }
    if (po->NumInstances <= 0)
        return;                                /* PERF_NO_INSTANCES, or metadata only */
    PERF_INSTANCE_DEFINITION *pi = (PERF_INSTANCE_DEFINITION *)((LPBYTE)po + po->DefinitionLength);
    for (LONG i = 0; i < po->NumInstances; i++) {
        printf("  Instance ");
        PrintW((LPCWSTR)((LPBYTE)pi + pi->NameOffset));
        if (pi->ParentObjectTitleIndex) {
            PERF_OBJECT_TYPE *parent = FindObject(pdb, pi->ParentObjectTitleIndex);
            LPCWSTR pname = parent ? InstanceName(parent, pi->ParentObjectInstance) : NULL;
            printf(" (parent ");
            PrintName(names, dwLast, pi->ParentObjectTitleIndex);
            printf(" #%lu", (unsigned long)pi->ParentObjectInstance);
            if (pname) {
                printf(" ");
                PrintW(pname);
            }
            printf(")");
        }
        putchar('\n');
        PERF_COUNTER_BLOCK *pcb = (PERF_COUNTER_BLOCK *)((LPBYTE)pi + pi->ByteLength);
        pi = (PERF_INSTANCE_DEFINITION *)((LPBYTE)pcb + pcb->ByteLength);
    }
}

int main(int argc, char **argv)
{
    WCHAR wszValue[MAX_VALUE_NAME];
    const char *value = argc > 1 ? argv[1] : "Global";
    DWORD dwSize, dwLast = 0;
    size_t n = strlen(value);
    int rc = 1;
    if (n >= MAX_VALUE_NAME) {
        fprintf(stderr, "value name too long\n");
        return 2;
    }
    for (size_t i = 0; i <= n; i++)
        wszValue[i] = (WCHAR)(unsigned char)value[i];  /* value names are ASCII */
    LPWSTR pTable = (LPWSTR)QueryValue(HKEY_PERFORMANCE_TEXT, u"Counter", &dwSize);
    LPCWSTR *names = pTable ? LoadNames(pTable, &dwLast) : NULL;
    PERF_DATA_BLOCK *pdb = names ? (PERF_DATA_BLOCK *)QueryValue(HKEY_PERFORMANCE_DATA, wszValue, &dwSize) : NULL;
    if (pdb) {
        PERF_OBJECT_TYPE *po = (PERF_OBJECT_TYPE *)((LPBYTE)pdb + pdb->HeaderLength);
        for (DWORD i = 0; i < pdb->NumObjectTypes; i++) {
            PrintObject(pdb, po, names, dwLast);
            po = (PERF_OBJECT_TYPE *)((LPBYTE)po + po->TotalByteLength);
        }
        rc = 0;
    }
    free(pdb);
    free(names);
    free(pTable);
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    return rc;
}
