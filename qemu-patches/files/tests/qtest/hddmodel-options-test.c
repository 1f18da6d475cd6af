/*
 * qtest: the hddmodel driver's options.  They are defined once, by
 * BlockdevOptionsHddModel in qapi/block-core.json, and parsed with its
 * QAPI visitor whether they come as strings (-drive, HMP drive_add) or
 * typed (-blockdev, QMP blockdev-add).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qobject/qjson.h"
#include "qobject/qlist.h"
#include "hddmodel-rig.h"

/*
 * A bad driver option is one error naming the option (and the value where
 * one was given), whether the options come as strings (-drive, here HMP
 * drive_add, what scripts/run-guest uses) or typed (QMP blockdev-add), and
 * QEMU carries on.  Each fragment must appear in the error.
 */
static const struct {
    const char *opts;
    const char *frag[2];
} bad_options[] = {
    { "policy=bogus", { "policy", "bogus" } },
    { "queue-depth=x", { "queue-depth" } },
    { "queue-depth=4294967296", { "queue-depth" } },
    { "fua=maybe", { "fua" } },
    { "write-cache=2", { "write-cache" } },
    { "power-cut-request=0", { "power-cut-request counts from 1" } },
    { "power-cut-request=x", { "power-cut-request" } },
    { "power-cut-ns=-1", { "power-cut-ns" } },
    { "power-cut-ns=9223372036854775807",
      { "power-cut-ns 9223372036854775807 is too large" } },
    /* HWM_TIME_MAX + 1: a cut the model could not be run to */
    { "power-cut-ns=4611686018427387904",
      { "power-cut-ns 4611686018427387904 is too large" } },
    { "power-cut-every-ns=1", { "power-cut-every-ns 1 is out of range" } },
    { "power-cut-every-ns=2305843009213693952",
      { "power-cut-every-ns 2305843009213693952 is out of range" } },
    { "power-cut-every-ns=x", { "power-cut-every-ns" } },
    { "power-cut-seed=5",
      { "power-cut-seed does nothing without power-cut-every-ns" } },
    { "profile=nosuch", { "profile 'nosuch'", "nosuch.profile" } },
    { "profile-dir=/nonexistent", { "/nonexistent/" } },
    { "bogus=1", { "bogus" } },
    { "trace=/nonexistent/t", { "cannot open trace file '/nonexistent/t'" } },
    /* a device: the trace's writes would fail (here: no space left) */
    { "trace=/dev/full", { "trace file '/dev/full'", "not a regular file" } },
};

/* The same, typed (JSON members), through QMP blockdev-add. */
static const struct {
    const char *json;
    const char *frag;
} bad_typed_options[] = {
    { "{'power-cut-request': 0}", "power-cut-request counts from 1" },
    { "{'policy': 'bogus'}", "policy" },
    { "{'queue-depth': 4294967296}", "queue-depth" },
};

/* blockdev-add of hddmodel node n0 on img with these members as well */
static QDict *blockdev_add(QTestState *qts, const char *img, const char *json)
{
    QDict *args = qobject_to(QDict, qobject_from_json(json, &error_abort));
    QDict *file = qdict_new();

    qdict_put_str(file, "driver", "file");
    qdict_put_str(file, "filename", img);
    qdict_put_str(args, "driver", "hddmodel");
    qdict_put_str(args, "node-name", "n0");
    qdict_put_str(args, "profile-dir", profile_dir());
    qdict_put(args, "file", file);
    return qtest_qmp(qts, "{'execute': 'blockdev-add', 'arguments': %p}",
                     args);
}

static void test_bad_options(void)
{
    g_autofree char *img = make_image();
    QTestState *qts = qtest_initf("-machine none -nodefaults %s",
                                  extra_args());
    g_autofree char *ok = NULL;
    QDict *resp, *info;
    size_t i, j;

    for (i = 0; i < G_N_ELEMENTS(bad_options); i++) {
        g_autofree char *out = qtest_hmp(qts, "drive_add 0 if=none,id=bad%zu,"
                                         "driver=hddmodel,profile-dir=%s,"
                                         "file=%s,%s", i, profile_dir(), img,
                                         bad_options[i].opts);

        g_test_message("%s: %s", bad_options[i].opts, out);
        for (j = 0; j < 2 && bad_options[i].frag[j]; j++) {
            g_assert_nonnull(strstr(out, bad_options[i].frag[j]));
        }
        g_assert_null(strstr(out, "\nOK"));
        g_assert_cmpint(strncmp(out, "OK", 2), !=, 0);
    }
    for (i = 0; i < G_N_ELEMENTS(bad_typed_options); i++) {
        const char *desc;

        resp = blockdev_add(qts, img, bad_typed_options[i].json);
        desc = qdict_get_str(qdict_get_qdict(resp, "error"), "desc");
        g_test_message("%s: %s", bad_typed_options[i].json, desc);
        g_assert_nonnull(strstr(desc, bad_typed_options[i].frag));
        qobject_unref(resp);
    }

    /*
     * A FIFO with no reader as the trace: refused, not opened (opening it
     * for writing blocks until a reader comes, and QEMU with it).
     */
    {
        g_autofree char *dir = g_dir_make_tmp("hddmodel-fifo.XXXXXX", NULL);
        g_autofree char *fifo = g_build_filename(dir, "trace", NULL);
        g_autofree char *out = NULL;

        g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
        out = qtest_hmp(qts, "drive_add 0 if=none,id=fifo,driver=hddmodel,"
                        "profile-dir=%s,file=%s,trace=%s", profile_dir(), img,
                        fifo);
        g_test_message("trace=FIFO: %s", out);
        g_assert_nonnull(strstr(out, "not a regular file"));
        unlink(fifo);
        rmdir(dir);
    }

    /* the same node with good options opens, both ways */
    ok = qtest_hmp(qts, "drive_add 0 if=none,id=good,driver=hddmodel,"
                   "profile-dir=%s,file=%s,policy=fifo,queue-depth=2,fua=on",
                   profile_dir(), img);
    g_assert_cmpstr(ok, ==, "OK\r\n");
    g_free(qtest_hmp(qts, "drive_del good"));
    resp = blockdev_add(qts, img, "{'policy': 'sptf', 'queue-depth': 3, "
                        "'write-cache': false}");
    g_assert_true(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'query-hddmodel'}");
    info = qobject_to(QDict, qlist_peek(qdict_get_qlist(resp, "return")));
    g_assert_cmpstr(qdict_get_str(info, "node-name"), ==, "n0");
    g_assert_cmpint(qdict_get_int(info, "queue-depth"), ==, 3);
    g_assert_false(qdict_get_bool(info, "write-cache"));
    qobject_unref(resp);
    qtest_quit(qts);
    unlink(img);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/options/bad", test_bad_options);
    }
    return g_test_run();
}
