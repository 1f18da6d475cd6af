/*
 * platter-sim --html FILE: one self-contained HTML page (no network, no
 * external scripts or fonts) that animates a run from the record
 * --timeline draws: a top view of the drive (or the dies of a flash
 * device), the queue and the write cache, and the timeline's bars under a
 * cursor.  The page is a template with its CSS and script (sim/html/,
 * embedded at build time) around the record as JSON.
 */
#ifndef PLATTER_HTML_H
#define PLATTER_HTML_H

#include "timeline.h"

/* Version of the page's JSON record ("v"); the browser test reads it. */
#define HTML_RECORD_VERSION 1

typedef struct {
    const TimelineRow *rows;    /* completion order */
    guint nrows;
    const HwmEvent *durable;    /* write-backs (DURABLE and HOME events),
                                   time order */
    guint ndurable;
    bool durable_full;          /* more write-backs came than were kept */
    const hwm_ns (*others)[2];  /* submit, done of commands not among the
                                   rows, in the drive beside them */
    guint nothers;
    hwm_ns from_ns;             /* --timeline-from */
    const char *command;        /* the caption */
    const char *question;       /* the question the page answers, or NULL */
    const char *notice;         /* what to notice on it, or NULL */
} HtmlRecord;

/* The page for `rec` on `dev` (after the run). */
GString *html_page(const HtmlRecord *rec, const HwmDevice *dev);

/* The template and its parts (html-assets.c, generated from sim/html/). */
extern const char html_asset_page[], html_asset_css[], html_asset_js[];

#endif
