#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Read a one-line sysfs/procfs file without its trailing newline; "" if it
 * cannot be read (attributes differ between kernels and device types). */
static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    /* Drop the newline and trailing blanks ("scheduler" ends in one). */
    size_t n = strcspn(buf, "\n");
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

void report_begin(FILE *f, const char *test)
{
    struct utsname u;
    char ver[512], both[800];
    if (uname(&u) != 0)
        strcpy(u.release, "?");
    read_line("/proc/version", ver, sizeof(ver));
    snprintf(both, sizeof(both), "%s | %s", u.release, ver);
    fprintf(f, "{\"version\":%d,\"test\":", REPORT_VERSION);
    json_str(f, test);
    fputs(",\"kernel\":", f);
    json_str(f, both);
}

int blk_dev_open(struct blk_dev *d, const char *path)
{
    struct stat st;
    memset(d, 0, sizeof(*d));
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    d->dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
    snprintf(d->path, sizeof(d->path), "%s", path);
    snprintf(d->sysfs, sizeof(d->sysfs), "/sys/dev/block/%u:%u",
             major(d->dev), minor(d->dev));
    blk_stat_read(d, &d->before);
    if (!d->before.valid) {
        fprintf(stderr, "%s: no block statistics at %s/stat\n", path, d->sysfs);
        return -1;
    }
    return 0;
}

void blk_stat_read(const struct blk_dev *d, struct blk_stat *st)
{
    char p[512], line[512];
    unsigned long long v[17] = {0};
    memset(st, 0, sizeof(*st));
    snprintf(p, sizeof(p), "%s/stat", d->sysfs);
    read_line(p, line, sizeof(line));
    /* Fields (Documentation/block/stat.rst): 5 write I/Os, 7 write sectors,
     * 16 flush requests completed. */
    int n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                   "%llu %llu %llu %llu %llu %llu %llu",
                   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                   &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14],
                   &v[15], &v[16]);
    if (n < 17)
        return;
    st->writes = v[4];
    st->write_sectors = v[6];
    st->flushes = v[15];
    st->valid = 1;
}

/* Queue attribute of the whole disk: a partition's sysfs dir has none, its
 * parent's does. */
static void queue_attr(const struct blk_dev *d, const char *name, char *buf,
                       size_t len)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/queue/%s", d->sysfs, name);
    read_line(p, buf, len);
    if (!buf[0]) {
        snprintf(p, sizeof(p), "%s/../queue/%s", d->sysfs, name);
        read_line(p, buf, len);
    }
}

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

void report_device(FILE *f, const struct blk_dev *d)
{
    static const char *const attrs[] = {
        "fua", "write_cache", "rotational", "logical_block_size",
        "physical_block_size", "max_sectors_kb", "nr_requests", "scheduler",
    };
    char name[256] = "", p[512], buf[256];
    /* The kernel's name for the device, from the uevent file. */
    snprintf(p, sizeof(p), "%s/uevent", d->sysfs);
    FILE *u = fopen(p, "r");
    if (u) {
        while (fgets(buf, sizeof(buf), u))
            if (!strncmp(buf, "DEVNAME=", 8)) {
                buf[strcspn(buf, "\n")] = '\0';
                snprintf(name, sizeof(name), "%s", buf + 8);
            }
        fclose(u);
    }
    fputs(",\"device\":{\"path\":", f);
    json_str(f, d->path);
    fputs(",\"name\":", f);
    json_str(f, name);
    snprintf(p, sizeof(p), "%s/size", d->sysfs);
    read_line(p, buf, sizeof(buf));
    fprintf(f, ",\"size_bytes\":%llu", strtoull(buf, NULL, 10) * 512ULL);
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        queue_attr(d, attrs[i], buf, sizeof(buf));
        fprintf(f, ",\"%s\":", attrs[i]);
        if (is_number(buf))
            fputs(buf, f);
        else
            json_str(f, buf);
    }
    struct blk_stat now;
    blk_stat_read(d, &now);
    fprintf(f, ",\"stat_delta\":{\"writes\":%llu,\"write_sectors\":%llu,"
            "\"flushes\":%llu}}",
            (unsigned long long)(now.writes - d->before.writes),
            (unsigned long long)(now.write_sectors - d->before.write_sectors),
            (unsigned long long)(now.flushes - d->before.flushes));
}

void report_lat(FILE *f, const char *key, const struct lat_summary *s)
{
    fputc(',', f);
    json_str(f, key);
    fprintf(f, ":{\"avg\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p99.9\":%.3f,"
            "\"min\":%.3f,\"max\":%.3f}",
            s->avg_us, s->p50_us, s->p99_us, s->p999_us, s->min_us, s->max_us);
}

void report_hist(FILE *f, const char *key, const struct lat_samples *s)
{
    fputc(',', f);
    json_str(f, key);
    fputc(':', f);
    fputc('[', f);
    for (size_t i = 0; i < s->n;) {
        size_t j = i + 1;
        uint64_t b = lat_bucket(s->ns[i]);
        while (j < s->n && lat_bucket(s->ns[j]) == b)
            j++;
        fprintf(f, "%s[%lld,%llu]", i ? "," : "", (long long)s->ns[j - 1],
                (unsigned long long)(j - i));
        i = j;
    }
    fputc(']', f);
}

void report_end(FILE *f)
{
    fputs("}\n", f);
    fflush(f);
}
