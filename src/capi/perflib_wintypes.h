/* The Windows types the PerfLib V2 consumer API needs, for Linux.
 *
 * Sizes are Windows' (LLP64): ULONG and DWORD are 32 bits here too, never
 * `unsigned long`.  WCHAR is a UTF-16 code unit (char16_t), not wchar_t,
 * which is 32 bits on Linux: write names as u"..." literals.  Nothing here
 * is a macro that a system header also defines; a program that already has
 * these types from elsewhere defines PERFLIB_NO_WINTYPES first. */
#ifndef PERFLIB_WINTYPES_H
#define PERFLIB_WINTYPES_H

#include <stdint.h>
#include <uchar.h>

#if !defined(PERFLIB_NO_WINTYPES) && !defined(_WINDEF_) && !defined(_WIN32)
typedef uint8_t BYTE;
typedef uint16_t WORD;
typedef uint32_t DWORD;
typedef uint32_t ULONG;
typedef int32_t LONG;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG;
typedef char16_t WCHAR;
typedef void *HANDLE;
typedef BYTE *LPBYTE;
typedef DWORD *LPDWORD;
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;

typedef struct _GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;
typedef GUID *LPGUID;
typedef const GUID *LPCGUID;

typedef struct _SYSTEMTIME {
    WORD wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond, wMilliseconds;
} SYSTEMTIME;

/* for the registry interface (perflib_v1.h) */
typedef char CHAR;
typedef CHAR *LPSTR;
typedef const CHAR *LPCSTR;
typedef int BOOL;
typedef LONG LSTATUS;
typedef uintptr_t ULONG_PTR;
typedef union _LARGE_INTEGER {
    struct {
        DWORD LowPart;
        LONG HighPart;
    };
    struct {
        DWORD LowPart;
        LONG HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER;
typedef struct HKEY__ *HKEY;
typedef void *LPVOID;
typedef void *PVOID;
typedef BYTE *PBYTE;
typedef const WCHAR *PCWSTR;
typedef HANDLE *PHANDLE;
typedef uintptr_t SIZE_T;
#endif

/* calling conventions of Windows' prototypes (seed 002's `DWORD APIENTRY
 * CollectPerfData(...)`): nothing on Linux */
#if !defined(_WIN32)
#ifndef WINAPI
#define WINAPI
#endif
#ifndef APIENTRY
#define APIENTRY
#endif
#endif

#endif
