/*
 * hddmodel: a node's life.  Its options (the schema's
 * BlockdevOptionsHddModel, read with the QAPI visitor), opening the model,
 * the image and the trace, and closing: a clean shutdown puts everything
 * the drive holds on the image.
 *
 * Owns the setup and teardown of every BDRVHddState member.  State
 * transitions it makes: IDLE or DOWN -> OFF (close), and a pending power
 * loss's cut (CUT -> OFF, through hdd_cut_for_good()).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "qapi/qapi-visit-block-core.h"
#include "qobject/qdict.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "block/qdict.h"
#include "system/runstate.h"

#include "hddmodel.h"

#define HDD_DEFAULT_PROFILE "generic-7200"

static char *hdd_default_profile_dir(void)
{
    g_autofree char *datadir = get_relocated_path(CONFIG_QEMU_DATADIR);

    return g_build_filename(datadir, "..", "platter", "profiles", NULL);
}

/*
 * The options as the schema defines them (BlockdevOptionsHddModel in
 * qapi/block-core.json): one definition for -drive's strings and for
 * -blockdev's and blockdev-add's typed values.  Everything but "file" (the
 * image's node, for bdrv_open_file_child()) is consumed.
 */
static BlockdevOptions *hdd_parse_options(QDict *options, Error **errp)
{
    BlockdevOptions *opts = NULL;
    QObject *file;
    Visitor *v;

    qdict_put_str(options, "driver", "hddmodel");
    v = qobject_input_visitor_new_flat_confused(options, errp);
    if (v) {
        visit_type_BlockdevOptions(v, NULL, &opts, errp);
        visit_free(v);
    }
    qdict_del(options, "driver");
    if (!opts) {
        return NULL;
    }
    assert(opts->driver == BLOCKDEV_DRIVER_HDDMODEL);
    file = qobject_ref(qdict_get(options, "file"));
    while (qdict_first(options)) {
        qdict_del(options, qdict_first(options)->key);
    }
    qdict_put_obj(options, "file", file);
    return opts;
}

static HwmTristate hdd_tristate(bool given, bool on)
{
    return !given ? HWM_TRISTATE_PROFILE : on ? HWM_ON : HWM_OFF;
}

static const HwmPolicy hdd_policies[HDD_MODEL_POLICY__MAX] = {
    [HDD_MODEL_POLICY_FIFO] = HWM_POLICY_FIFO,
    [HDD_MODEL_POLICY_SPTF] = HWM_POLICY_SPTF,
};

static HwmConfig hdd_config(const BlockdevOptionsHddModel *o)
{
    return (HwmConfig) {
        .write_cache = hdd_tristate(o->has_write_cache, o->write_cache),
        .fua = hdd_tristate(o->has_fua, o->fua),
        .queue_depth = o->has_queue_depth ? o->queue_depth : 0,
        .policy = o->has_policy ? hdd_policies[o->policy]
                                : HWM_POLICY_PROFILE,
    };
}

static void hdd_free(BDRVHddState *s)
{
    timer_del(&s->timer);
    timer_del(&s->cut_timer);
    timer_del(&s->cycle_timer);
    timer_del(&s->answer_timer);
    g_clear_pointer(&s->acct.samples, g_array_unref);
    if (s->vm_state) {
        qemu_del_vm_change_state_handler(s->vm_state);
        s->vm_state = NULL;
    }
    g_clear_pointer(&s->ff_bh, qemu_bh_delete);
    g_clear_pointer(&s->cut_bh, qemu_bh_delete);
    hdd_close_trace(s);
    hdd_crash_free(s);
    g_clear_pointer(&s->by_tag, g_hash_table_unref);
    g_clear_pointer(&s->map, hdd_map_free);
    g_clear_pointer(&s->unwritten, hdd_map_free);
    g_clear_pointer(&s->dev, hwm_device_free);
    g_clear_pointer(&s->profile, hwm_profile_free);
}

int hdd_open(BlockDriverState *bs, QDict *options, int flags,
                    Error **errp)
{
    BDRVHddState *s = bs->opaque;
    g_autoptr(BlockdevOptions) opts = NULL;
    BlockdevOptionsHddModel *o;
    HwmConfig cfg;
    g_autoptr(GError) gerr = NULL;
    g_autofree char *default_dir = NULL;
    const char *profile, *dir;
    int64_t len;
    int ret;

    s->bs = bs;
    QTAILQ_INIT(&s->reqs);
    QTAILQ_INIT(&s->answers);
    s->by_tag = g_hash_table_new(g_int64_hash, g_int64_equal);
    s->map = hdd_map_new();
    s->unwritten = hdd_map_new();
    qemu_co_queue_init(&s->write_out_done);
    timer_init_ns(&s->timer, QEMU_CLOCK_VIRTUAL, hdd_timer_cb, s);
    timer_init_ns(&s->cut_timer, QEMU_CLOCK_VIRTUAL, hdd_cut_timer_cb, s);
    timer_init_ns(&s->cycle_timer, QEMU_CLOCK_VIRTUAL, hdd_cycle_timer_cb, s);
    timer_init_ns(&s->answer_timer, QEMU_CLOCK_VIRTUAL, hdd_answer_timer_cb,
                  s);
    s->vm_state = qemu_add_vm_change_state_handler(hdd_vm_state_change, s);
    s->ff_bh = aio_bh_new(bdrv_get_aio_context(bs), hdd_fast_forward_bh, s);
    s->cut_bh = aio_bh_new(qemu_get_aio_context(), hdd_cut_bh, s);

    opts = hdd_parse_options(options, errp);
    if (!opts) {
        ret = -EINVAL;
        goto fail;
    }
    o = &opts->u.hddmodel;

    ret = bdrv_open_file_child(NULL, options, "file", bs, errp);
    if (ret < 0) {
        goto fail;
    }

    cfg = hdd_config(o);
    profile = o->profile ? o->profile : HDD_DEFAULT_PROFILE;
    dir = o->profile_dir;
    if (!dir) {
        default_dir = hdd_default_profile_dir();
        dir = default_dir;
    }
    s->profile = hwm_profile_load(profile, dir, &gerr);
    if (!s->profile) {
        error_setg(errp, "hddmodel: profile '%s' (dir %s): %s", profile, dir,
                   gerr->message);
        ret = -EINVAL;
        goto fail;
    }
    s->dev = hwm_device_new(s->profile, &cfg, &gerr);
    if (!s->dev) {
        error_setg(errp, "hddmodel: profile '%s': %s", profile,
                   gerr->message);
        ret = -EINVAL;
        goto fail;
    }
    s->queue_depth = MAX(hwm_device_queue_depth(s->dev), 1);

    bdrv_graph_rdlock_main_loop();
    len = bdrv_getlength(bs->file->bs);
    bdrv_graph_rdunlock_main_loop();
    if (len < 0) {
        error_setg_errno(errp, -len, "hddmodel: cannot get the image size");
        ret = len;
        goto fail;
    }
    if (len % HWM_SECTOR_BYTES ||
        (uint64_t)len > hwm_device_capacity_bytes(s->dev)) {
        error_setg(errp, "hddmodel: image size %" PRId64 " must be a multiple "
                   "of %u and at most the profile's capacity %" PRIu64,
                   len, HWM_SECTOR_BYTES, hwm_device_capacity_bytes(s->dev));
        ret = -EINVAL;
        goto fail;
    }

    if (o->trace && !hdd_open_trace(s, o->trace, errp)) {
        ret = -EINVAL;
        goto fail;
    }

    if (o->crash_journal && !hdd_crash_open(s, o->crash_journal, errp)) {
        ret = -EINVAL;
        goto fail;
    }

    if (!hdd_parse_cut(s, o, errp)) {
        ret = -EINVAL;
        goto fail;
    }

    bs->supported_write_flags = hwm_device_fua(s->dev) ? BDRV_REQ_FUA : 0;
    return 0;

fail:
    hdd_free(s);
    return ret;
}

void GRAPH_UNLOCKED hdd_close(BlockDriverState *bs)
{
    BDRVHddState *s = bs->opaque;
    int ret = 0;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    /* (the drain before has answered them; none may be left waiting) */
    hdd_answer_all(s);
    /*
     * The accounting ends here, before the close's own write-out, and
     * before the exit notifiers, which find no node left (hddmodel-qmp.c)
     */
    hdd_acct_print(bs, s);
    switch (s->state) {
    case HDD_CUT:
        /* a power loss whose cut has not run yet */
        hdd_cut_for_good(s);
        break;
    case HDD_OFF:
        break;
    default:
        /*
         * A clean shutdown: everything the drive holds reaches the media.
         * bdrv_close() drained first, so no request should be left; fail
         * any rather than leave a coroutine waiting.
         */
        hdd_set_state(s, HDD_OFF);
        hdd_fail_all(s);
        ret = hdd_write_out_everything(s);
        break;
    }
    if (ret == 0) {
        bdrv_flush(bs->file->bs);
    }
    hdd_free(s);
}
