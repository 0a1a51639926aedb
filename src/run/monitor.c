// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --monitor's screen (monitor.h), drawn with plain ANSI escapes on the alternate screen, so
 * that it works on any terminal, over ssh too, and needs no curses. From the top:
 *
 *   the header: module, uptime, invoker's uid, loader's pid, module memory, probe count,
 *     refresh interval, sort column
 *   the status window: the probes (index, state, hits, cycles min/avg/max, point and where
 *     the script has it), sorted by the column `s` chooses, then the globals (one line
 *     each, the end's formats)
 *   the output window: the script's latest output lines
 *   the keys line
 *
 * Keys, as stap's: q quits (the session stops as on ^C: end probes run), x hides/shows the
 * status window, s rotates the sort column, Tab switches the window the navigation keys
 * (up/down, j/k, PgUp/PgDn) scroll. stap's c, t, p and r (reset globals, toggle probes,
 * pause, resume) need the module to switch its probes, which tapster's cannot yet: the
 * keys line says so when one is typed.
 */
#define _GNU_SOURCE
#include "run/monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "util.h"

/* Bytes of the latest output kept for the output window. */
#define SHOWN_KEEP (64 * 1024)

struct point {
	int index;
	long long hits, min, avg, max;
	char *name;	/* "PP (FILE:LINE:COL)" */
};

enum sort_column { SORT_INDEX, SORT_HITS, SORT_MIN, SORT_AVG, SORT_MAX, SORT_NAME, NR_SORTS };
static const char *const sort_names[NR_SORTS] = { "index", "hits", "min", "avg", "max", "name" };

static struct {
	bool active;
	struct termios saved;
	int interval_s;
	struct strbuf out, err;		/* all the script's output, for the end */
	struct strbuf shown;		/* both, in order, for the output window */
	/* The last snapshot. */
	char module[128], memory[32];
	long long uptime_ms;
	int uid, pid;
	struct point *points;
	int npoints;
	char **globals;
	int nglobals;
	/* The screen's state. */
	enum sort_column sort;
	bool status_hidden;
	bool output_focused;	/* Tab: the navigation keys scroll the output window */
	int status_scroll, output_scroll;	/* lines scrolled down / up from the latest */
	const char *message;	/* on the keys line, until the next key */
} m;

bool monitor_possible(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

void monitor_begin(int interval_s)
{
	struct termios raw;

	m.interval_s = interval_s;
	if (tcgetattr(STDIN_FILENO, &m.saved) == 0) {
		raw = m.saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);	/* ^C still interrupts */
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	m.active = true;
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
	fputs("Waiting for the first snapshot...", stdout);
	fflush(stdout);
}

static void clear_points(void)
{
	for (int i = 0; i < m.npoints; i++)
		free(m.points[i].name);
	free(m.points);
	m.points = NULL;
	m.npoints = 0;
	for (int i = 0; i < m.nglobals; i++)
		free(m.globals[i]);
	free(m.globals);
	m.globals = NULL;
	m.nglobals = 0;
}

/* "point INDEX HITS MIN AVG MAX<TAB>PP<TAB>LOCATION" (runtime/monitor.h). */
static void add_point(const char *line)
{
	struct point p = { 0 };
	const char *pp = strchr(line, '\t');
	const char *location = pp ? strchr(pp + 1, '\t') : NULL;

	if (!pp || sscanf(line, "point %d %lld %lld %lld %lld", &p.index, &p.hits, &p.min,
			  &p.avg, &p.max) != 5)
		return;
	pp++;
	/* The probe that reads the globals for this screen is not the script's. */
	if (strstr(pp, "\"__tap_monitor\""))
		return;
	if (location)
		p.name = xasprintf("%.*s (%s)", (int)(location - pp), pp, location + 1);
	else
		p.name = xstrdup(pp);
	m.points = xrealloc(m.points, (size_t)(m.npoints + 1) * sizeof(*m.points));
	m.points[m.npoints++] = p;
}

static void parse_snapshot_line(const char *line, bool *in_globals)
{
	if (*in_globals) {
		m.globals = xrealloc(m.globals, (size_t)(m.nglobals + 1) * sizeof(*m.globals));
		m.globals[m.nglobals++] = xstrdup(line);
	} else if (!strcmp(line, "globals")) {
		*in_globals = true;
	} else if (!strncmp(line, "point ", 6)) {
		add_point(line);
	} else if (!strncmp(line, "module ", 7)) {
		snprintf(m.module, sizeof(m.module), "%s", line + 7);
	} else if (!strncmp(line, "memory ", 7)) {
		snprintf(m.memory, sizeof(m.memory), "%s", line + 7);
	} else {
		sscanf(line, "uptime_ms %lld", &m.uptime_ms);
		sscanf(line, "uid %d", &m.uid);
		sscanf(line, "pid %d", &m.pid);
	}
}

static int compare_points(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	long long d = 0;

	switch (m.sort) {
	case SORT_HITS: d = y->hits - x->hits; break;
	case SORT_MIN: d = y->min - x->min; break;
	case SORT_AVG: d = y->avg - x->avg; break;
	case SORT_MAX: d = y->max - x->max; break;
	case SORT_NAME: d = strcmp(x->name, y->name); break;
	default: break;
	}
	if (!d)
		d = x->index - y->index;
	return d < 0 ? -1 : d > 0;
}

static void screen_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row >= 8 && ws.ws_col >= 20) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* One line of the screen at `row`, cut to the width, inverse video when `bar`. */
static void put_line(int row, int cols, const char *text, size_t len, bool bar)
{
	printf("\033[%d;1H\033[2K%s", row, bar ? "\033[7m" : "");
	for (size_t i = 0; i < len && (int)i < cols; i++)
		putchar(text[i] == '\t' || (unsigned char)text[i] < ' ' ? ' ' : text[i]);
	if (bar) {
		for (int i = (int)len; i < cols; i++)
			putchar(' ');
		fputs("\033[0m", stdout);
	}
}

static void put_text(int row, int cols, const char *text, bool bar)
{
	put_line(row, cols, text, strlen(text), bar);
}

/* The status window's lines: the probes' table, then the globals. */
static char **status_lines(int *count)
{
	char **lines = xcalloc((size_t)(m.nglobals + m.npoints + 4), sizeof(*lines));
	int n = 0;

	lines[n++] = xstrdup("Probes:");
	lines[n++] = xasprintf("  %5s %5s %10s %10s %10s %10s  %s", "index", "state", "hits",
			       "min", "avg", "max", "name");
	qsort(m.points, (size_t)m.npoints, sizeof(*m.points), compare_points);
	for (int i = 0; i < m.npoints; i++) {
		const struct point *p = &m.points[i];

		lines[n++] = xasprintf("  %5d %5s %10lld %10lld %10lld %10lld  %s", p->index, "on",
				       p->hits, p->min, p->avg, p->max, p->name);
	}
	lines[n++] = xstrdup("Globals:");
	for (int i = 0; i < m.nglobals; i++)
		lines[n++] = xasprintf("  %s", m.globals[i]);
	*count = n;
	return lines;
}

/* The start of each line of the output window's text (the last one may be unfinished). */
static const char **output_lines(int *count)
{
	const char **starts = NULL;
	int n = 0;
	const char *text = m.shown.buf ? m.shown.buf : "";

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		starts = xrealloc(starts, (size_t)(n + 1) * sizeof(*starts));
		starts[n++] = p;
		p = nl ? nl + 1 : p + strlen(p);
	}
	*count = n;
	return starts;
}

static int clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

static void draw(void)
{
	int rows, cols, nstatus = 0, nout = 0, row = 1, status_rows = 0, out_rows;
	char **status = status_lines(&nstatus);
	const char **out = output_lines(&nout);
	char *header;

	screen_size(&rows, &cols);
	fputs("\033[H", stdout);
	header = xasprintf("tapster monitor  module: %s  uptime: %llds  uid: %d  pid: %d"
			   "  memory: %s bytes", m.module, m.uptime_ms / 1000, m.uid, m.pid,
			   m.memory);
	put_text(row++, cols, header, true);
	free(header);
	header = xasprintf("probes: %d  refresh: %ds  sort: %s  window: %s", m.npoints,
			   m.interval_s, sort_names[m.sort], m.output_focused ? "output" : "status");
	put_text(row++, cols, header, false);
	free(header);
	if (!m.status_hidden) {
		status_rows = nstatus < (rows - 4) / 2 + 1 ? nstatus : (rows - 4) / 2 + 1;
		if (!nout)
			status_rows = nstatus < rows - 4 ? nstatus : rows - 4;
		m.status_scroll = clamp(m.status_scroll, 0, nstatus - status_rows);
		for (int i = 0; i < status_rows; i++)
			put_text(row++, cols, status[m.status_scroll + i], false);
	}
	put_text(row++, cols, "Output:", true);
	out_rows = rows - row;	/* the keys line takes the last */
	m.output_scroll = clamp(m.output_scroll, 0, nout > out_rows ? nout - out_rows : 0);
	for (int i = 0; i < out_rows; i++) {
		int line = nout - out_rows - m.output_scroll + i;

		if (line >= 0 && line < nout) {
			const char *end = strchr(out[line], '\n');

			put_line(row++, cols, out[line], end ? (size_t)(end - out[line]) :
				 strlen(out[line]), false);
		} else {
			put_text(row++, cols, "", false);
		}
	}
	put_text(rows, cols, m.message ? m.message :
		 "q quit  x hide/show status  s sort  Tab window  up/down j/k PgUp/PgDn scroll",
		 true);
	fflush(stdout);
	for (int i = 0; i < nstatus; i++)
		free(status[i]);
	free(status);
	free(out);
}

void monitor_output(int port, const char *buf, size_t len)
{
	sb_addn(port == 2 ? &m.err : &m.out, buf, len);
	sb_addn(&m.shown, buf, len);
	/* The window shows the last lines only: keep the last SHOWN_KEEP bytes or so, from a
	 * line's start, so that a flood of output costs each redraw little. */
	if (m.shown.len > 2 * SHOWN_KEEP) {
		const char *from = m.shown.buf + m.shown.len - SHOWN_KEEP;
		const char *nl = memchr(from, '\n', SHOWN_KEEP);
		size_t keep = nl ? (size_t)(m.shown.buf + m.shown.len - (nl + 1)) : SHOWN_KEEP;

		memmove(m.shown.buf, m.shown.buf + m.shown.len - keep, keep);
		m.shown.len = keep;
		m.shown.buf[keep] = '\0';
	}
}

void monitor_snapshot(const char *text, size_t len)
{
	char *copy = xstrndup(text, len), *save = NULL;
	bool in_globals = false;

	clear_points();
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_snapshot_line(line, &in_globals);
	free(copy);
	if (m.active)
		draw();
}

/* Scrolls the window the navigation keys are on by `lines` (down when positive). */
static void scroll(int lines)
{
	if (m.output_focused)
		m.output_scroll -= lines;
	else
		m.status_scroll += lines;
}

bool monitor_keys(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		m.message = NULL;
		if (buf[i] == '\033' && i + 2 < len && buf[i + 1] == '[') {
			char code = buf[i + 2];

			i += 2;
			if (code == 'A')
				scroll(-1);
			else if (code == 'B')
				scroll(1);
			else if ((code == '5' || code == '6') && i + 1 < len && buf[i + 1] == '~') {
				i++;
				scroll(code == '5' ? -10 : 10);
			}
			continue;
		}
		switch (buf[i]) {
		case 'q':
		case 'Q':
			return true;
		case 'x': m.status_hidden = !m.status_hidden; break;
		case 's': m.sort = (m.sort + 1) % NR_SORTS; break;
		case '\t': m.output_focused = !m.output_focused; break;
		case 'j': scroll(1); break;
		case 'k': scroll(-1); break;
		case 'c':
		case 't':
		case 'p':
		case 'r':
			m.message = "c, t, p and r (reset globals, toggle, pause, resume probes) are not"
				    " available in tapster yet";
			break;
		default: break;
		}
	}
	if (m.active)
		draw();
	return false;
}

void monitor_end(void)
{
	if (!m.active)
		return;
	m.active = false;
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSANOW, &m.saved);
	if (m.out.buf)
		(void)!write(STDOUT_FILENO, m.out.buf, m.out.len);
	if (m.err.buf)
		(void)!write(STDERR_FILENO, m.err.buf, m.err.len);
	clear_points();
	free(m.out.buf);
	free(m.err.buf);
	free(m.shown.buf);
	memset(&m.out, 0, sizeof(m.out));
	memset(&m.err, 0, sizeof(m.err));
	memset(&m.shown, 0, sizeof(m.shown));
}
