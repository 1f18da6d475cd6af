/*
 * One argv walk for the guest programs' "--name value" and "--flag"
 * options (argv.c): each program gives a table, the walk finds each
 * option in it, checks it has its value and hands the value to the
 * entry's parser.  Part of the leaf library (hw-model/common/): plain C11
 * and libc.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#ifndef PLATTER_ARGV_H
#define PLATTER_ARGV_H

#include <stddef.h>

struct platter_arg {
    const char *name;           /* "--dev" */
    /* NULL: a flag, *(int *)dst = 1; else the value goes to
     * parse(value, dst), which returns 0, or -1 when the value is bad */
    int (*parse)(const char *value, void *dst);
    void *dst;
};

/* Parsers for platter_arg.parse */
int platter_arg_text(const char *value, void *dst);    /* const char ** */

/* Walk argv[1..argc-1] against `args` (n of them).  0: every option was
 * known and parsed; -1: one was unknown, missing its value or had a bad
 * value, and one line "PROG: what" is on stderr. */
int platter_argv_parse(const char *prog, int argc, char **argv,
                       const struct platter_arg *args, size_t n);

#endif
