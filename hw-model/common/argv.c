/*
 * The guest programs' argv walk (platter-argv.h).  Plain C11 and libc:
 * part of the leaf library (hw-model/common/).
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#include "platter-argv.h"

#include <stdio.h>
#include <string.h>

/* An argument quoted in an error: a control character in it (a newline, a
 * vertical tab, an escape) would split the one error line or drive the
 * terminal, so it prints as '?', as platter-sim's errors do. */
static void put_arg(const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, stderr);
}

int platter_arg_text(const char *value, void *dst)
{
    *(const char **)dst = value;
    return 0;
}

int platter_argv_parse(const char *prog, int argc, char **argv,
                       const struct platter_arg *args, size_t n)
{
    for (int i = 1; i < argc; i++) {
        const struct platter_arg *a = NULL;

        for (size_t k = 0; k < n && !a; k++)
            if (!strcmp(argv[i], args[k].name))
                a = &args[k];
        if (!a) {
            fprintf(stderr, "%s: unknown option '", prog);
            put_arg(argv[i]);
            fputs("'\n", stderr);
            return -1;
        }
        if (!a->parse) {
            *(int *)a->dst = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", prog, a->name);
            return -1;
        }
        if (a->parse(argv[i + 1], a->dst) != 0) {
            fprintf(stderr, "%s: bad value for %s: ", prog, a->name);
            put_arg(argv[i + 1]);
            fputc('\n', stderr);
            return -1;
        }
        i++;
    }
    return 0;
}
