/*
 * The platter-trace writer and the header parser (hwm.h, src/tracefmt.c)
 * agree: what one writes the other reads back, and the lines are the
 * format platter-sim and the QEMU driver have written since v1.
 */
#include <string.h>

#include "hwm.h"

static const HwmTraceDevice dev = {
    .profile = "st20000nm007d", .capacity_bytes = 20000588955648ull,
    .fua = true, .write_cache = false, .queue_depth = 32,
};

static void test_header(void)
{
    g_autoptr(GString) s = g_string_new(NULL);
    hwm_trace_append_header(s, &dev);
    g_assert_cmpstr(s->str, ==, "# platter-trace v1\n"
                    "# profile=st20000nm007d capacity=20000588955648 fua=1 "
                    "write-cache=0 queue-depth=32\n");

    /* the device line, after "# ", reads back as written */
    g_autofree char *line = g_strndup(strchr(s->str, '\n') + 3,
                                      strlen(strchr(s->str, '\n') + 3) - 1);
    HwmTraceDevice back;
    uint32_t given;
    GError *err = NULL;
    g_assert_true(hwm_trace_parse_device(line, &back, &given, &err));
    g_assert_no_error(err);
    g_assert_cmpstr(back.profile, ==, dev.profile);
    g_assert_cmpuint(back.capacity_bytes, ==, dev.capacity_bytes);
    g_assert_true(back.fua && !back.write_cache);
    g_assert_cmpuint(back.queue_depth, ==, 32);
    g_assert_null(hwm_trace_device_diff(&back, given, &dev));
}

/* Only the keys a line gives are compared, in the writer's order. */
static void test_diff(void)
{
    char line[] = "queue-depth=1 profile=st20000nm007d write-cache=1";
    HwmTraceDevice t;
    uint32_t given;
    GError *err = NULL;
    g_assert_true(hwm_trace_parse_device(line, &t, &given, &err));
    g_autofree char *d = hwm_trace_device_diff(&t, given, &dev);
    g_assert_cmpstr(d, ==, "write-cache=1 (this device: 0), "
                    "queue-depth=1 (this device: 32)");

    char bad[] = "profile=x fua=yes";
    g_assert_false(hwm_trace_parse_device(bad, &t, &given, &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_INVALID);
    g_assert_cmpstr(err->message, ==, "key 'fua': 'yes': not 0 or 1");
    g_clear_error(&err);
}

static void test_lines(void)
{
    g_autoptr(GString) s = g_string_new(NULL);
    HwmEvent e = { .kind = HWM_EV_COMPLETE, .time_ns = 127827, .op = HWM_OP_WRITE,
                   .flags = HWM_REQ_FUA, .submit_ns = 5000,
                   .offset = 99418378240ull, .length = 4096 };
    hwm_trace_append_request(s, &e);
    e.op = HWM_OP_FLUSH;
    e.flags = 0;
    e.offset = e.length = 0;
    hwm_trace_append_request(s, &e);
    hwm_trace_append_power_cut(s, 423034193, 8192);
    g_assert_cmpstr(s->str, ==,
                    "5000 W 99418378240 4096 FUA # done=127827\n"
                    "5000 F 0 0 - # done=127827\n"
                    "# power-cut at=423034193 lost=8192\n");

    static const char *const letters[] = { "R", "W", "F", "D" };
    for (int op = HWM_OP_READ; op <= HWM_OP_DISCARD; op++) {
        HwmOp got;
        g_assert_true(hwm_trace_parse_op(letters[op], &got));
        g_assert_cmpint(got, ==, op);
    }
    HwmOp op;
    uint32_t flags;
    g_assert_false(hwm_trace_parse_op("RW", &op));
    g_assert_false(hwm_trace_parse_op("", &op));
    g_assert_true(hwm_trace_parse_flags("FUA", &flags) && flags == HWM_REQ_FUA);
    g_assert_true(hwm_trace_parse_flags("-", &flags) && flags == 0);
    g_assert_false(hwm_trace_parse_flags("fua", &flags));
}

/* Lines come in the order the device took the commands; a cut writes
 * those completed and skips the dropped. */
static void test_order(void)
{
    g_autoptr(GString) s = g_string_new(NULL);
    HwmTraceOrder *o = hwm_trace_order_new();
    HwmEvent e = { .kind = HWM_EV_COMPLETE, .op = HWM_OP_WRITE,
                   .submit_ns = 1000, .length = 4096 };
    uint64_t seq[5];

    for (int i = 0; i < 5; i++) {
        seq[i] = hwm_trace_order_submitted(o);
        g_assert_cmpuint(seq[i], ==, (uint64_t)i);
    }
    e.offset = 4096;
    e.time_ns = 2000;
    hwm_trace_order_completed(o, seq[1], &e, s);
    g_assert_cmpstr(s->str, ==, "");            /* 0 still at the device */
    e.offset = 0;
    e.time_ns = 3000;
    hwm_trace_order_completed(o, seq[0], &e, s);
    g_assert_cmpstr(s->str, ==, "1000 W 0 4096 - # done=3000\n"
                                "1000 W 4096 4096 - # done=2000\n");
    g_string_truncate(s, 0);
    e.offset = 12288;
    hwm_trace_order_completed(o, seq[3], &e, s);
    hwm_trace_order_power_cut(o, 4000, 512, s); /* 2 and 4 dropped */
    g_assert_cmpstr(s->str, ==, "1000 W 12288 4096 - # done=3000\n"
                                "# power-cut at=4000 lost=512\n");
    g_string_truncate(s, 0);
    seq[0] = hwm_trace_order_submitted(o);
    g_assert_cmpuint(seq[0], ==, 5);
    e.offset = 0;
    hwm_trace_order_completed(o, seq[0], &e, s);
    g_assert_cmpstr(s->str, ==, "1000 W 0 4096 - # done=3000\n");
    hwm_trace_order_free(o);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trace-format/header", test_header);
    g_test_add_func("/trace-format/diff", test_diff);
    g_test_add_func("/trace-format/lines", test_lines);
    g_test_add_func("/trace-format/order", test_order);
    return g_test_run();
}
