/*
 * QMP commands of the hddmodel block driver, for binaries that share the
 * block QAPI schema but do not link the driver (qemu-storage-daemon): the
 * driver exists only in system emulators with TCG.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-block-core.h"

HddModelInfoList *qmp_query_hddmodel(Error **errp)
{
    return NULL;
}

HddModelPowerCut *qmp_hddmodel_power_cut(const char *node_name, Error **errp)
{
    error_setg(errp, "the hddmodel block driver is not part of this program");
    return NULL;
}
