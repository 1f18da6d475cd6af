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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trace-format/header", test_header);
    g_test_add_func("/trace-format/diff", test_diff);
    g_test_add_func("/trace-format/lines", test_lines);
    return g_test_run();
}
