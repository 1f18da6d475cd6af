/*
 * platter-sim's command line up to the run: parse argv, load the profile,
 * check every option against the workload, make the device and load the
 * workload's input (a trace).  main.c runs what this sets up; the fuzz
 * target `options` (sim/fuzz/fuzz-options.c) calls it alone, so every
 * argument vector is checked the way platter-sim checks it, without a run.
 */
#ifndef PLATTER_CLI_H
#define PLATTER_CLI_H

#include <stdbool.h>

#include "hwm.h"
#include "options.h"
#include "workload.h"

typedef enum {
    CLI_VERSION,              /* --version: print it and exit */
    CLI_DUMP,                 /* --dump-profile: `prof` dumps, a device
                                 can be made of it */
    CLI_RUN,                  /* `dev` made, `p` checked and prepared */
} CliWhat;

typedef struct {
    Options *o;               /* every option's value, by name */
    CliWhat what;
    HwmProfile *prof;         /* CLI_DUMP, CLI_RUN */
    HwmDevice *dev;           /* CLI_RUN */
    SimParams p;              /* CLI_RUN */
} SimCli;

/* Parse argv (GOption: argc and argv lose the options) into `c`, which the
 * caller zeroes and clears with sim_cli_clear() either way.  profile_dir:
 * where profile NAMEs are found unless --profile-dir or
 * PLATTER_PROFILE_DIR says.  help: --help prints and exits (GOption), else
 * it is an unknown option.  0, or the exit status (2) with *errp set. */
int sim_cli_setup(SimCli *c, int *argc, char ***argv, const char *profile_dir,
                  bool help, GError **errp);
void sim_cli_clear(SimCli *c);

#endif
