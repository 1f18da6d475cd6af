/*
 * Reading a bounded text file for the model's hosts (hwm.h): a profile,
 * a trace.  Only a regular file is read, opened without blocking so a
 * FIFO is never waited on.
 */
#define _POSIX_C_SOURCE 200809L /* open(O_NONBLOCK), fstat */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwm.h"

bool hwm_read_file(const char *path, gsize max_bytes, char **text,
                   gsize *len, GError **errp)
{
    struct stat st;
    g_autofree char *buf = NULL;
    gsize got = 0;
    bool ok = false;
    /* non-blocking: opening a FIFO with no writer returns at once, so
     * fstat() can refuse it instead of the read hanging */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
        return false;
    }
    if (fstat(fd, &st) != 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is not a regular file (a %s): refused", path,
                    S_ISDIR(st.st_mode) ? "directory" :
                    S_ISFIFO(st.st_mode) ? "FIFO" :
                    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" :
                    "socket or other special file");
    } else if ((guint64)st.st_size > max_bytes) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is too large: %" G_GUINT64_FORMAT " bytes, at most %"
                    G_GSIZE_FORMAT, path, (guint64)st.st_size, max_bytes);
    } else {
        /* one byte more than allowed: a file that grew is caught too */
        buf = g_malloc((gsize)st.st_size + 2);
        gsize want = (gsize)st.st_size + 1;
        ssize_t n = 1;
        while (got < want && (n = read(fd, buf + got, want - got)) > 0) {
            got += (gsize)n;
        }
        if (n < 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "cannot read %s: %s", path, g_strerror(errno));
        } else if (got > (gsize)st.st_size) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "%s changed while it was read", path);
        } else {
            buf[got] = '\0';
            ok = true;
        }
    }
    close(fd);
    if (ok) {
        *text = g_steal_pointer(&buf);
        *len = got;
    }
    return ok;
}
