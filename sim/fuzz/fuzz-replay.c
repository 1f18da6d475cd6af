/* Fuzz target: --workload replay, a trace driven through the model on
 * platter-sim's event loop (sim/replay.c, sim/engine.c), with the
 * timeline (--explain) and the recording (--trace-out) written.
 *
 * Input: byte 0 picks the profile (bits 0-1), write cache (2-3), a queue
 * depth of 2 or the profile's (4), closed loop (5) and its --iodepth (6-7);
 * the rest is the trace.  Checked: the run succeeds or fails with a
 * message; without a power cut every request completes once; an open-loop
 * run's recording replays on a fresh device with every completion at its
 * recorded time (what --verify checks), the cuts included. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Replay `trace` on a new device; false with *errp set on a run's error.
 * The recording, if asked for, is returned in *recording (caller frees). */
static bool replay(const HwmProfile *prof, const HwmConfig *cfg,
                   const GArray *trace, bool closed_loop, uint32_t iodepth,
                   SimResult *r, char **recording, GError **errp)
{
    g_autoptr(HwmDevice) dev = hwm_device_new(prof, cfg, errp);
    if (!dev) {
        return false;
    }
    char *explained = NULL;
    size_t rec_len = 0, explained_len = 0;
    ReplayParams rp = { .trace = (GArray *)trace, .trace_name = (char *)"fuzz",
                        .closed_loop = closed_loop, .iodepth = iodepth };
    SimParams p = { .ops = &replay_workload, .own = &rp, .explain = 8 };
    p.explain_out = open_memstream(&explained, &explained_len);
    if (recording) {
        p.trace_out = open_memstream(recording, &rec_len);
        HwmTraceDevice desc = hwm_trace_device(prof, dev);
        trace_write_header(p.trace_out, &desc);
    }
    if (!p.explain_out || (recording && !p.trace_out)) {
        abort();
    }
    bool ok = sim_run(dev, &p, r, errp);
    fclose(p.explain_out);
    free(explained);
    if (recording) {
        fclose(p.trace_out);
    }
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t sel = data[0];
    const HwmProfile *prof = fuzz_profile(sel & 3);
    HwmConfig cfg = { .write_cache = (HwmTristate)((sel >> 2) % 3),
                      .queue_depth = (sel >> 4) & 1 ? 2 : 0 };
    bool closed_loop = (sel >> 5) & 1;
    uint32_t iodepth = 1u << (sel >> 6);
    GError *err = NULL;
    g_autoptr(GArray) trace = trace_parse((const char *)data + 1, size - 1,
                                          "fuzz", NULL, &err);
    if (!trace) {
        g_error_free(err);
        return 0;             /* the trace target checks the parser */
    }
    uint32_t requests = 0, cuts = 0;
    for (guint i = 0; i < trace->len; i++) {
        if (g_array_index(trace, TraceReq, i).power_cut) {
            cuts++;
        } else {
            requests++;
        }
    }

    SimResult r;
    char *rec = NULL;
    bool ok = replay(prof, &cfg, trace, closed_loop, iodepth, &r,
                     closed_loop ? NULL : &rec, &err);
    if (!ok) {
        /* a request the device refuses, a cut in a closed-loop replay,
         * a write cache the profile lacks */
        if (!err || !err->message[0] || strstr(err->message, "model defect")) {
            g_printerr("fuzz-replay: %s\n", err ? err->message : "no error");
            abort();
        }
        g_clear_error(&err);
        free(rec);
        return 0;
    }
    if (r.commands > requests || (cuts == 0 && r.commands != requests)) {
        g_printerr("fuzz-replay: %u requests, %" G_GUINT64_FORMAT
                   " completed, %u cuts\n", requests, r.commands, cuts);
        abort();
    }
    if (closed_loop) {
        return 0;             /* it does not keep the recorded times */
    }

    g_autoptr(GArray) again = trace_parse(rec, strlen(rec), "recording",
                                          NULL, &err);
    if (!again) {
        /* nothing completed and no cut recorded: an empty trace */
        if (r.commands > 0 || r.power_cuts > 0) {
            g_printerr("fuzz-replay: the recording does not parse: %s\n%s",
                       err->message, rec);
            abort();
        }
        g_clear_error(&err);
        free(rec);
        return 0;
    }
    SimResult r2;
    if ((r.commands > 0 && !trace_check_verifiable(again, "recording", &err))
        || !replay(prof, &cfg, again, false, 1, &r2, NULL, &err)) {
        g_printerr("fuzz-replay: the recording does not replay: %s\n%s",
                   err->message, rec);
        abort();
    }
    if (r2.replay_mismatches != 0 || r2.replay_checked != r.commands) {
        g_printerr("fuzz-replay: the recording replays with %" G_GUINT64_FORMAT
                   " of %" G_GUINT64_FORMAT " completions differing (first "
                   "at line %u)\n%s", r2.replay_mismatches, r2.replay_checked,
                   r2.replay_first_mismatch_line, rec);
        abort();
    }
    free(rec);
    return 0;
}
