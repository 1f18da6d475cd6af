/* platter-sim output: a fio-like human block, or one versioned JSON object
 * alone on stdout. */
#ifndef PLATTER_REPORT_H
#define PLATTER_REPORT_H

#include <stdio.h>

#include "workload.h"

#define PLATTER_SIM_JSON_VERSION 1

typedef struct {
    const char *profile;
    const char *workload;
    const char *policy;       /* NULL when not applicable */
    const char *pattern;      /* NULL when not applicable */
    bool write_cache, fua;
    uint32_t queue_depth;
    uint64_t host_cpu_ns;     /* the only host-dependent figure */
} ReportInfo;

void report_human(FILE *f, const SimParams *p, const SimResult *r,
                  const ReportInfo *info);
void report_json(FILE *f, const SimParams *p, const SimResult *r,
                 const ReportInfo *info);

#endif
