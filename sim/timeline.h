/*
 * platter-sim --timeline FILE.svg: a picture of where device commands
 * spent their time.  Each command is a bar on a virtual-time axis, split
 * into the parts of its HwmBreakdown; under the bars, the platter's angle
 * under the head over the same axis.  Hand-written SVG, no library.
 *
 * The file appears only when the run succeeds: it is written to a
 * temporary file beside its target, created before the run (so a bad path
 * fails first), and renamed over the target at the end.
 */
#ifndef PLATTER_TIMELINE_H
#define PLATTER_TIMELINE_H

#include "hwm.h"

typedef struct Timeline Timeline;

/* The per-command record both pictures are drawn from: a completion and
 * its number in completion order (--explain's). */
typedef struct {
    uint64_t n;
    HwmEvent e;
} TimelineRow;

/* Commands drawn when --timeline-count is not given, and at most. */
#define TIMELINE_DEFAULT_COMMANDS 50u
#define TIMELINE_MAX_COMMANDS 5000u

/* A page's words around its picture (NULL: none): the question it answers
 * (--html-question) and what to notice (--html-notice). */
typedef struct {
    const char *question;
    const char *notice;
} TimelineLesson;

/*
 * Check the options (`path` from --timeline, `html` from --html, `count`
 * from --timeline-count, `from` from --timeline-from; NULL: not given) and
 * create the temporary files.  `command` is the command line drawn as the
 * picture's caption.  The same record feeds the SVG and the HTML page;
 * `lesson`'s words go on the page only.
 */
Timeline *timeline_open(const char *path, const char *html,
                        const char *count, const char *from,
                        const char *command, const TimelineLesson *lesson,
                        GError **errp);

/* Every event of the run, in the order hwm_advance() returned them. */
void timeline_event(Timeline *tl, const HwmEvent *e);

/* Draw the picture and the page (the run is over and succeeded).  Fails
 * when no command was selected. */
bool timeline_render(Timeline *tl, const HwmDevice *dev, GError **errp);

/* Write the picture and the page and rename them over their targets. */
bool timeline_commit(Timeline *tl, GError **errp);

/* Free; the temporary file goes unless timeline_commit() renamed it. */
void timeline_free(Timeline *tl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Timeline, timeline_free)

/* The command line as a caption: the program's base name, the arguments
 * shell-quoted, without --timeline FILE, --html FILE and the page's
 * words (they name only the output, or are on the page already). */
char *timeline_command_line(int argc, char **argv);

#endif
