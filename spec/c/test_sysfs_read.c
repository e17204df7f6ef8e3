/* The kept-file readers of sysfs attributes (pl_sysfs.c): pl_read_once
 * keeps the file open and reads it anew; pl_read_attr remembers an
 * attribute that was not there when first opened (PL_FD_ABSENT) and does
 * not look for it again; pl_read_text reads a file without keeping it. */
#include "perflib.h"
#include "pl_provider.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void test_read_once(void)
{
    const char *root = tmp("once");
    pl_env *env;
    char buf[16];
    int fd = -1;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/a", "12\n") == 1);
    env = pl_env_new(root);
    CHECK(env != NULL);
    CHECK_EQ_U64(pl_read_once(&fd, env, "sys/a", buf, sizeof buf), 0);
    CHECK_STR(buf, "12\n");
    CHECK(fd >= 0);
    CHECK(put(root, "sys/a", "345\n") == 1);       /* the kept file, read anew */
    CHECK_EQ_U64(pl_read_once(&fd, env, NULL, buf, sizeof buf), 0);
    CHECK_STR(buf, "345\n");
    CHECK_EQ_U64(pl_read_once(&fd, env, "sys/a", buf, 3), 0);   /* cut to size - 1 */
    CHECK_STR(buf, "34");
    close(fd);
    CHECK_EQ_U64(pl_read_text(env, "sys/a", buf, sizeof buf), 0);
    CHECK_STR(buf, "345\n");
    CHECK_EQ_U64(pl_read_text(env, "sys/none", buf, sizeof buf), ENOENT);
    pl_env_unref(env);
}

static void test_read_attr(void)
{
    const char *root = tmp("attr");
    pl_env *env;
    char buf[16];
    int fd = -1, fd2 = -1;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/b", "7\n") == 1);
    env = pl_env_new(root);
    CHECK(env != NULL);
    /* not there at the first open: marked, and not looked for again */
    CHECK_EQ_U64(pl_read_attr(&fd, env, "sys/missing", buf, sizeof buf), ENOENT);
    CHECK(fd == PL_FD_ABSENT);
    CHECK(put(root, "sys/missing", "1\n") == 1);
    CHECK_EQ_U64(pl_read_attr(&fd, env, "sys/missing", buf, sizeof buf), ENOENT);
    CHECK(fd == PL_FD_ABSENT);
    /* a new record (fd -1) finds it */
    CHECK_EQ_U64(pl_read_attr(&fd2, env, "sys/missing", buf, sizeof buf), 0);
    CHECK_STR(buf, "1\n");
    close(fd2);
    /* a file that is there: kept open like pl_read_once */
    fd = -1;
    CHECK_EQ_U64(pl_read_attr(&fd, env, "sys/b", buf, sizeof buf), 0);
    CHECK_STR(buf, "7\n");
    CHECK(fd >= 0);
    close(fd);
    /* another error (a directory, EISDIR) is not a mark */
    fd = -1;
    CHECK(pl_read_attr(&fd, env, "sys", buf, sizeof buf) != 0);
    CHECK(fd == -1);
    pl_env_unref(env);
}

int main(void)
{
    ct_tmp_init("test_sysfs_read");
    RUN(test_read_once);
    RUN(test_read_attr);
    ct_tmp_remove();
    return CT_END();
}
