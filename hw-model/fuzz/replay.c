/*
 * Run a fuzz target over corpus files without libFuzzer, so `meson test`
 * replays the corpora with any compiler.  Prints TAP.
 *
 *   replay FILE|DIR...
 */
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gint by_name(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path, int *n)
{
    g_autofree char *data = NULL;
    gsize len;
    GError *err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        printf("not ok %d %s # %s\n", ++*n, path, err->message);
        g_error_free(err);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);  /* aborts on a bug */
    printf("ok %d %s\n", ++*n, path);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0, failed = 0;
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);

    for (int i = 1; i < argc; i++) {
        GDir *dir = g_dir_open(argv[i], 0, NULL);
        if (!dir) {
            g_ptr_array_add(files, g_strdup(argv[i]));
            continue;
        }
        const char *name;
        GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
        while ((name = g_dir_read_name(dir)) != NULL) {
            g_ptr_array_add(names, g_build_filename(argv[i], name, NULL));
        }
        g_dir_close(dir);
        g_ptr_array_sort(names, by_name);
        for (guint k = 0; k < names->len; k++) {
            g_ptr_array_add(files, g_strdup(names->pdata[k]));
        }
        g_ptr_array_unref(names);
    }
    printf("1..%u\n", files->len);
    for (guint k = 0; k < files->len; k++) {
        failed += run_file(files->pdata[k], &n);
    }
    g_ptr_array_unref(files);
    return failed ? 1 : 0;
}
