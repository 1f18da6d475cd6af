/*
 * Output files written only on success (outfile.h).
 */
#define _POSIX_C_SOURCE 200809L /* fchmod, umask */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwm.h"
#include "outfile.h"

/* "--timeline: cannot write PATH: why" */
static bool bad(GError **errp, const OutFile *f, const char *what,
                const char *path, int err)
{
    g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "%s: %s %s: %s",
                f->option, what, path, g_strerror(err));
    return false;
}

/* Check `path` and create the temporary file beside it. */
bool outfile_open(OutFile *f, const char *option, const char *path,
                         GError **errp)
{
    struct stat st;

    f->option = option;
    f->fd = -1;
    if (!*path) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "%s: empty file name",
                    option);
        return false;
    }
    /* renaming over a directory, device or FIFO would replace it */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s: %s exists and is not a regular file", option, path);
        return false;
    }
    f->path = g_strdup(path);
    f->tmp = g_strdup_printf("%s.XXXXXX", path);
    f->fd = g_mkstemp(f->tmp);
    if (f->fd < 0) {
        bad(errp, f, "cannot write", path, errno);
        g_clear_pointer(&f->tmp, g_free);
        return false;
    }
    /* a picture, not a secret: the mode a plain create would give */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(f->fd, 0666 & ~mask) != 0) {
        return bad(errp, f, "cannot write", path, errno);
    }
    return true;
}

/* Write f->text and rename it over the target. */
bool outfile_commit(OutFile *f, GError **errp)
{
    const char *p = f->text->str;
    size_t left = f->text->len;

    while (left > 0) {
        ssize_t n = write(f->fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return bad(errp, f, "cannot write", f->tmp, n < 0 ? errno : EIO);
        }
        p += n;
        left -= (size_t)n;
    }
    int fd = f->fd;
    f->fd = -1;
    if (close(fd) != 0) {
        return bad(errp, f, "cannot write", f->tmp, errno);
    }
    if (rename(f->tmp, f->path) != 0) {
        int err = errno;
        g_autofree char *what = g_strdup_printf("%s to", f->tmp);
        return bad(errp, f, "cannot rename", what, err);
    }
    g_clear_pointer(&f->tmp, g_free);
    return true;
}

/* The temporary file goes unless outfile_commit() renamed it. */
void outfile_free(OutFile *f)
{
    if (f->fd >= 0) {
        close(f->fd);
    }
    if (f->tmp) {
        unlink(f->tmp);
    }
    g_free(f->tmp);
    g_free(f->path);
    if (f->text) {
        g_string_free(f->text, TRUE);
    }
}
