/*
 * qtest: the hddmodel driver behind an ide-hd on ICH9 AHCI (the `sata`
 * front end).  With platter's AHCI/IDE patch the drive advertises FUA
 * (fua=on: IDENTIFY words 84/87 bit 6) and its NCQ depth (ncq-depth,
 * word 75); WRITE FPDMA QUEUED with FUA set and WRITE DMA FUA EXT reach
 * the driver as one FUA write; a FLUSH CACHE issued while NCQ commands
 * are outstanding is aborted, as ATA has it, and one issued after the
 * queue drained reaches the driver as one flush that makes every cached
 * write durable.  Stock QEMU has neither property, so every test here
 * fails on it at start-up; with the properties taken out each still fails
 * there on its own check (no FUA bit in IDENTIFY, no FUA write at the
 * driver, WRITE DMA FUA EXT aborted, the flush run beside the queue).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqos/ahci.h"
#include "hddmodel-rig.h"

#define SATA_NODE       "d3"
#define SECTOR          512
#define IO_BYTES        4096

/* ATA words and bits the guest's libata reads (ATA8-ACS IDENTIFY DEVICE) */
#define ID_QUEUE_DEPTH  75
#define ID_SATA_CAP     76
#define ID_CFSSE        84      /* bit 6: WRITE DMA FUA EXT */
#define ID_CFS_ENABLE_1 85      /* bit 5: volatile write cache enabled */
#define ID_CSF_DEFAULT  87
#define CMD_WRITE_DMA_FUA_EXT 0x3D
#define NCQ_FUA_BIT     0x80    /* FIS byte 7 (device) of an FPDMA command */
#define FIS_COMMAND     2
#define FIS_DEVICE      7
#define ATA_ABRT        0x04

typedef struct Sata {
    Rig *r;
    char *img;
    AHCIQState *ahci;
    uint8_t port;
} Sata;

/*
 * The rig plus an ICH9 AHCI at 1f.2 (where libqos looks for it) with an
 * ide-hd (more properties: ide_opts) on its own hddmodel node, whose
 * write cache is on.
 */
static Sata *sata_start(const char *ide_opts)
{
    Sata *s = g_new0(Sata, 1);
    g_autofree char *more = NULL;
    uint16_t id[SECTOR / 2];
    uint32_t fingerprint;

    s->img = make_image();
    more = g_strdup_printf(
        "-device ich9-ahci,id=ahci0,addr=1f.2 "
        "-blockdev driver=hddmodel,node-name=%s,profile=%s,profile-dir=%s,"
        "fua=on,write-cache=on,file.driver=file,file.filename=%s "
        "-device ide-hd,drive=%s,bus=ahci0.0,serial=platter3,"
        "rotation_rate=7200,%s ",
        SATA_NODE, profile_name(), profile_dir(), s->img, SATA_NODE,
        ide_opts);
    s->r = rig_start_full(NULL, true, "", more);
    s->ahci = g_new0(AHCIQState, 1);
    s->ahci->parent = s->r->qs;
    s->ahci->dev = get_ahci_device(s->r->qts, &fingerprint);
    s->ahci->fingerprint = fingerprint;
    ahci_pci_enable(s->ahci);
    ahci_hba_enable(s->ahci);
    s->port = ahci_port_select(s->ahci);
    ahci_port_clear(s->ahci, s->port);
    /*
     * a first command, as a host's driver sends (IDENTIFY), clears the
     * error register's reset signature that NCQ's FIS would otherwise show
     */
    ahci_io(s->ahci, s->port, CMD_IDENTIFY, id, sizeof(id), 0);
    return s;
}

static void sata_stop(Sata *s)
{
    ahci_clean_mem(s->ahci);
    free_ahci_device(s->ahci->dev);
    g_free(s->ahci);
    rig_stop(s->r);
    unlink(s->img);
    g_free(s->img);
    g_free(s);
}

/*
 * Is the command still in flight?  NCQ: until its PxSACT bit clears (PxCI
 * clears when it is queued).  Otherwise: while busy or issued, unless the
 * device reported an error (the HBA then leaves PxCI set until the host
 * restarts the port: AHCI 1.3 6.2.2.1).
 */
static bool cmd_busy(Sata *s, AHCICommand *cmd, bool ncq)
{
    uint32_t bit = 1u << ahci_command_slot(cmd);
    uint32_t tfd = ahci_px_rreg(s->ahci, s->port, AHCI_PX_TFD);

    if (ncq) {
        return ahci_px_rreg(s->ahci, s->port, AHCI_PX_SACT) & bit;
    }
    return !(tfd & AHCI_PX_TFD_STS_ERR) &&
           ((tfd & AHCI_PX_TFD_STS_BSY) ||
            (ahci_px_rreg(s->ahci, s->port, AHCI_PX_CI) & bit));
}

/*
 * Error recovery (AHCI 1.3 6.2.2.1): stop the port (which clears PxCI),
 * clear the error interrupts, start it again; then one good command that
 * is not queued (IDENTIFY) clears the device's error status, which the
 * next NCQ command's FIS would otherwise repeat.
 */
static void port_recover(Sata *s)
{
    uint16_t id[SECTOR / 2];

    ahci_px_clr(s->ahci, s->port, AHCI_PX_CMD, AHCI_PX_CMD_ST);
    g_assert_cmphex(ahci_px_rreg(s->ahci, s->port, AHCI_PX_CMD) &
                    AHCI_PX_CMD_CR, ==, 0);
    ahci_px_wreg(s->ahci, s->port, AHCI_PX_SERR,
                 ahci_px_rreg(s->ahci, s->port, AHCI_PX_SERR));
    ahci_port_clear(s->ahci, s->port);
    ahci_px_set(s->ahci, s->port, AHCI_PX_CMD, AHCI_PX_CMD_ST);
    ahci_io(s->ahci, s->port, CMD_IDENTIFY, id, sizeof(id), 0);
}

/*
 * Step the virtual clock from deadline to deadline until the command is
 * done: the drive completes only on QEMU_CLOCK_VIRTUAL, which moves only
 * when the test steps it (libqos's ahci_command_wait would spin forever).
 */
static void cmd_wait(Sata *s, AHCICommand *cmd, bool ncq)
{
    int i;

    for (i = 0; i < MAX_STEPS && cmd_busy(s, cmd, ncq); i++) {
        step_next(s->r);
    }
    g_assert_cmpint(i, <, MAX_STEPS);
}

/* The command's FIS as libqos wrote it into the guest's command table */
static uint64_t cmd_fis_addr(Sata *s, AHCICommand *cmd)
{
    AHCICommandHeader h;

    ahci_get_command_header(s->ahci, s->port, ahci_command_slot(cmd), &h);
    return h.ctba;
}

/*
 * A 4 KiB write of a pattern at lba.  ncq: WRITE FPDMA QUEUED (FUA in its
 * device byte if fua), else WRITE DMA EXT (WRITE DMA FUA EXT if fua).
 * Committed, not issued.
 */
static AHCICommand *write_cmd(Sata *s, uint64_t lba, bool ncq, bool fua,
                              uint64_t *buf)
{
    AHCICommand *cmd = ahci_command_create(ncq ? WRITE_FPDMA_QUEUED
                                               : CMD_WRITE_DMA_EXT);
    uint8_t data[IO_BYTES];
    uint64_t fis;

    fill(data, sizeof(data), (unsigned)lba);
    *buf = ahci_alloc(s->ahci, IO_BYTES);
    qtest_memwrite(s->r->qts, *buf, data, sizeof(data));
    ahci_command_set_buffer(cmd, *buf);
    ahci_command_set_size(cmd, IO_BYTES);
    ahci_command_set_offset(cmd, lba);
    ahci_command_commit(s->ahci, cmd, s->port);
    fis = cmd_fis_addr(s, cmd);
    if (fua && ncq) {
        qtest_writeb(s->r->qts, fis + FIS_DEVICE,
                     qtest_readb(s->r->qts, fis + FIS_DEVICE) | NCQ_FUA_BIT);
    } else if (fua) {
        /* the same FIS as WRITE DMA EXT, another opcode */
        qtest_writeb(s->r->qts, fis + FIS_COMMAND, CMD_WRITE_DMA_FUA_EXT);
    }
    return cmd;
}

/* Issue a committed command, wait for it and check it succeeded. */
static void run_ok(Sata *s, AHCICommand *cmd, bool ncq)
{
    ahci_command_issue_async(s->ahci, cmd);
    cmd_wait(s, cmd, ncq);
    ahci_command_verify(s->ahci, cmd);
}

static void write_io(Sata *s, uint64_t lba, bool ncq, bool fua)
{
    uint64_t buf;
    AHCICommand *cmd = write_cmd(s, lba, ncq, fua, &buf);

    run_ok(s, cmd, ncq);
    ahci_command_free(cmd);
    ahci_free(s->ahci, buf);
}

static void identify(Sata *s, uint16_t *id)
{
    int i;

    ahci_io(s->ahci, s->port, CMD_IDENTIFY, id, SECTOR, 0);
    for (i = 0; i < SECTOR / 2; i++) {
        id[i] = le16_to_cpu(id[i]);
    }
}

/*
 * IDENTIFY: FUA (words 84 and 87, bit 6) as the fua property says, the
 * NCQ depth (word 75, depth - 1) as ncq-depth says, the volatile write
 * cache (word 85 bit 5) as the drive's write-cache says.
 */
static void test_identify(void)
{
    uint16_t id[SECTOR / 2];
    Sata *s = sata_start("fua=on,ncq-depth=16,write-cache=on");

    identify(s, id);
    g_assert_cmphex(id[ID_CFSSE] & 0xc000, ==, 0x4000);
    g_assert_cmphex(id[ID_CFSSE] & (1 << 6), ==, 1 << 6);
    g_assert_cmphex(id[ID_CSF_DEFAULT] & (1 << 6), ==, 1 << 6);
    g_assert_cmpuint(id[ID_QUEUE_DEPTH] & 0x1f, ==, 15);
    g_assert_cmphex(id[ID_SATA_CAP] & (1 << 8), ==, 1 << 8);
    g_assert_cmphex(id[ID_CFS_ENABLE_1] & (1 << 5), ==, 1 << 5);
    sata_stop(s);

    s = sata_start("fua=off,write-cache=off");
    identify(s, id);
    g_assert_cmphex(id[ID_CFSSE] & (1 << 6), ==, 0);
    g_assert_cmphex(id[ID_CSF_DEFAULT] & (1 << 6), ==, 0);
    g_assert_cmpuint(id[ID_QUEUE_DEPTH] & 0x1f, ==, 31);
    g_assert_cmphex(id[ID_CFS_ENABLE_1] & (1 << 5), ==, 0);
    sata_stop(s);
}

/*
 * NCQ: WRITE FPDMA QUEUED with FUA reaches the driver as one FUA write and
 * is durable at completion; without FUA it is a cached write that a power
 * cut loses.  Stock QEMU wrote both as plain writes.
 */
static void test_ncq_fua(void)
{
    Sata *s = sata_start("fua=on,write-cache=on");
    bool destaged;
    QDict *cut;

    write_io(s, 1000, true, true);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "flushes"), ==, 0);
    write_io(s, 5000, true, false);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "writes"), ==, 2);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "fua-writes"), ==, 1);

    /* (a profile may have written the cached write back already) */
    destaged = node_stat(s->r, SATA_NODE, "destages") > 0;
    cut = power_cut(s->r, SATA_NODE);
    g_assert_false(cut_lost(cut, 1000 * SECTOR, IO_BYTES));
    g_assert_true(destaged || cut_lost(cut, 5000 * SECTOR, IO_BYTES));
    qobject_unref(cut);
    sata_stop(s);
}

/*
 * WRITE DMA FUA EXT (not queued): one FUA write on a drive with fua=on;
 * aborted on one without (it does not advertise the command), where the
 * driver never sees it.
 */
static void test_write_dma_fua_ext(void)
{
    Sata *s = sata_start("fua=on,write-cache=on");
    AHCICommand *cmd;
    uint64_t buf;
    uint32_t tfd;

    write_io(s, 2000, false, true);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "flushes"), ==, 0);
    sata_stop(s);

    s = sata_start("fua=off,write-cache=on");
    cmd = write_cmd(s, 2000, false, true, &buf);
    ahci_command_issue_async(s->ahci, cmd);
    cmd_wait(s, cmd, false);
    tfd = ahci_px_rreg(s->ahci, s->port, AHCI_PX_TFD);
    g_assert_cmphex(tfd & AHCI_PX_TFD_STS_ERR, ==, AHCI_PX_TFD_STS_ERR);
    g_assert_cmphex((tfd >> 8) & ATA_ABRT, ==, ATA_ABRT);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "writes"), ==, 0);
    ahci_command_free(cmd);
    ahci_free(s->ahci, buf);
    sata_stop(s);
}

/*
 * FLUSH CACHE is not queued: issued while an NCQ write is outstanding it
 * is aborted (ATA; stock QEMU ran it beside the queue), and the driver
 * sees no flush.  Once the queue has drained, it is one flush at the
 * driver, after which a power cut loses nothing.
 */
static void test_flush_not_queued(void)
{
    Sata *s = sata_start("fua=on,write-cache=on");
    AHCICommand *w, *f;
    uint64_t buf;
    uint32_t tfd;
    QDict *cut;

    w = write_cmd(s, 3000, true, false, &buf);
    ahci_command_issue_async(s->ahci, w);
    g_assert_true(cmd_busy(s, w, true));     /* the model takes time */
    f = ahci_command_create(CMD_FLUSH_CACHE);
    ahci_command_commit(s->ahci, f, s->port);
    ahci_command_issue_async(s->ahci, f);
    /* the abort needs no time: the clock has not moved */
    g_assert_false(cmd_busy(s, f, false));
    tfd = ahci_px_rreg(s->ahci, s->port, AHCI_PX_TFD);
    g_assert_cmphex(tfd & AHCI_PX_TFD_STS_ERR, ==, AHCI_PX_TFD_STS_ERR);
    g_assert_cmphex((tfd >> 8) & ATA_ABRT, ==, ATA_ABRT);
    ahci_command_free(f);
    cmd_wait(s, w, true);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "flushes"), ==, 0);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "writes"), ==, 1);
    ahci_command_free(w);
    ahci_free(s->ahci, buf);
    port_recover(s);

    write_io(s, 4000, true, false);
    f = ahci_command_create(CMD_FLUSH_CACHE);
    ahci_command_commit(s->ahci, f, s->port);
    run_ok(s, f, false);
    ahci_command_free(f);
    g_assert_cmpuint(node_stat(s->r, SATA_NODE, "flushes"), ==, 1);
    cut = power_cut(s->r, SATA_NODE);
    g_assert_cmpuint(qdict_get_int(cut, "lost-bytes"), ==, 0);
    qobject_unref(cut);
    sata_stop(s);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/sata/identify", test_identify);
        qtest_add_func("/hddmodel/sata/ncq-fua", test_ncq_fua);
        qtest_add_func("/hddmodel/sata/write-dma-fua-ext",
                       test_write_dma_fua_ext);
        qtest_add_func("/hddmodel/sata/flush-not-queued",
                       test_flush_not_queued);
    }
    return g_test_run();
}
