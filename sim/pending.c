/* platter-sim's output files, written only when the run succeeds
 * (pending.h). */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "pending.h"

bool pending_open(Pending *pd, bool explain, const char *trace_out,
                  GError **errp)
{
    struct stat st;

    pd->trace_out = trace_out;
    if (explain && !(pd->explain = tmpfile())) {
        return opt_bad(errp, "--explain: cannot create a temporary file: %s",
                       g_strerror(errno));
    }
    if (!pd->trace_out) {
        return true;
    }
    /* renaming over a device or FIFO would replace it, not write to it */
    if (stat(pd->trace_out, &st) == 0 && !S_ISREG(st.st_mode)) {
        return opt_bad(errp, "--trace-out: %s exists and is not a regular "
                       "file", pd->trace_out);
    }
    pd->trace_tmp = g_strdup_printf("%s.XXXXXX", pd->trace_out);
    int fd = g_mkstemp(pd->trace_tmp);
    if (fd < 0) {
        g_clear_pointer(&pd->trace_tmp, g_free);
        return opt_bad(errp, "--trace-out: cannot write %s: %s", pd->trace_out,
                       g_strerror(errno));
    }
    if (!(pd->trace = fdopen(fd, "w"))) {
        close(fd);
        return opt_bad(errp, "--trace-out: cannot write %s: %s", pd->trace_out,
                       g_strerror(errno));
    }
    return true;
}

bool pending_commit(Pending *pd, FILE *explain_to, GError **errp)
{
    if (pd->trace) {
        FILE *f = g_steal_pointer(&pd->trace);
        bool written = !ferror(f);
        if (fclose(f) != 0 || !written) {
            return opt_bad(errp, "--trace-out: writing %s failed: %s",
                           pd->trace_tmp, g_strerror(errno));
        }
        if (rename(pd->trace_tmp, pd->trace_out) != 0) {
            return opt_bad(errp, "--trace-out: cannot rename %s to %s: %s",
                           pd->trace_tmp, pd->trace_out, g_strerror(errno));
        }
        g_clear_pointer(&pd->trace_tmp, g_free);
    }
    if (pd->explain) {
        char buf[65536];
        size_t n;
        rewind(pd->explain);
        while ((n = fread(buf, 1, sizeof buf, pd->explain)) > 0) {
            fwrite(buf, 1, n, explain_to);
        }
    }
    return true;
}

void pending_discard(Pending *pd)
{
    if (pd->explain) {
        fclose(pd->explain);
    }
    if (pd->trace) {
        fclose(pd->trace);
    }
    if (pd->trace_tmp) {
        unlink(pd->trace_tmp);
        g_free(pd->trace_tmp);
    }
    *pd = (Pending){ 0 };
}

