// Makes the parts of ncursesw that Swift cannot import directly visible as plain functions:
// the wide-character API (hidden unless NCURSES_WIDECHAR), macros, and mutable globals.
#ifndef IAPDESK_CNCURSESW_SHIM_H
#define IAPDESK_CNCURSESW_SHIM_H

#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

extern int wcwidth(wchar_t c);

// Pseudo-terminal functions (hidden without _XOPEN_SOURCE), for benchmarks that drive ncurses on a pty.
#include <stdlib.h>
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern char *ptsname(int fd);

static inline attr_t iapdesk_a_normal(void) { return A_NORMAL; }
static inline attr_t iapdesk_a_bold(void) { return A_BOLD; }
static inline attr_t iapdesk_a_dim(void) { return A_DIM; }
static inline attr_t iapdesk_a_underline(void) { return A_UNDERLINE; }
static inline attr_t iapdesk_a_reverse(void) { return A_REVERSE; }
static inline attr_t iapdesk_a_italic(void) { return A_ITALIC; }
static inline int iapdesk_key_f(int n) { return KEY_F(n); }
static inline WINDOW *iapdesk_stdscr(void) { return stdscr; }
static inline int iapdesk_colors(void) { return COLORS; }
static inline int iapdesk_color_pairs(void) { return COLOR_PAIRS; }
static inline int iapdesk_codeset_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (codeset[0] == 'U' || codeset[0] == 'u') && (codeset[1] == 'T' || codeset[1] == 't');
}
static inline mmask_t iapdesk_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t iapdesk_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t iapdesk_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline int iapdesk_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

#include <unistd.h>
#include <string.h>
#include <sys/ioctl.h>

/* Takes the terminal's size now: after a suspension the shell, not the console, received the
   SIGWINCH of any resize. False when the size was already right (or cannot be read). */
static inline int iapdesk_take_terminal_size(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) return 0;
    if (size.ws_row == LINES && size.ws_col == COLS) return 0;
    return resize_term(size.ws_row, size.ws_col) == OK;
}

static inline int iapdesk_has_cap(const char *cap) { return cap != NULL && cap != (char *)-1; }

static inline int iapdesk_write_all(int fd, const char *text, size_t left) {
    while (left > 0) {
        ssize_t done = write(fd, text, left);
        if (done <= 0) return ERR;
        text += done;
        left -= (size_t)done;
    }
    return OK;
}

/* Capability strings go out through tputs, as ncurses' own output does: it turns their padding
   (vt100's ri is ESC M$<5>) into delays or pad characters instead of printing it. tputs takes a
   function of one character, so they are gathered here and written to `fd` in large writes. */
typedef struct { int fd; size_t count; char bytes[1024]; } iapdesk_capability_buffer;

/* Held in a function: a static variable of this header would not be emitted for Swift's use. */
static inline iapdesk_capability_buffer *iapdesk_capability_output(void) {
    static iapdesk_capability_buffer buffer;
    return &buffer;
}

static inline int iapdesk_capability_char(int c) {
    iapdesk_capability_buffer *out = iapdesk_capability_output();
    if (out->count == sizeof out->bytes) {
        iapdesk_write_all(out->fd, out->bytes, out->count);
        out->count = 0;
    }
    out->bytes[out->count++] = (char)c;
    return c;
}

static inline void iapdesk_put_capability(const char *capability) { tputs(capability, 1, iapdesk_capability_char); }

static inline int iapdesk_flush_capabilities(void) {
    iapdesk_capability_buffer *out = iapdesk_capability_output();
    int result = iapdesk_write_all(out->fd, out->bytes, out->count);
    out->count = 0;
    return result;
}

/* Moves rows top..bottom (inclusive) of the screen by n (> 0: up, < 0: down) with the terminal's
   scroll region, and moves them the same way in curscr (what ncurses believes the screen shows),
   newscr and win, so that the next doupdate compares against what is really there.
   Call it between updates only: doupdate has flushed its output and reset the attributes to
   normal, so the rows that come in are blank on the terminal as in curscr. The bytes go straight
   to fd (ncurses' putp and mvcur write to standard output, not to the screen's terminal); the
   cursor is put back where ncurses left it (curscr's cursor), so its next moves start right.
   ERR when the terminal lacks a needed capability (nothing is written then). */
static inline int iapdesk_scroll_rows(int fd, WINDOW *win, int top, int bottom, int n) {
    char *csr = tigetstr("csr");
    char *cup = tigetstr("cup");
    char *many = tigetstr(n > 0 ? "indn" : "rin");
    char *one = tigetstr(n > 0 ? "ind" : "ri");
    int count = n > 0 ? n : -n;
    if (!iapdesk_has_cap(csr) || !iapdesk_has_cap(cup) || (!iapdesk_has_cap(many) && !iapdesk_has_cap(one)) || n == 0
        || bottom <= top || count > bottom - top) return ERR;
    int row = getcury(curscr), column = getcurx(curscr);
        /* tiparm answers in one static buffer: each result is put out before the next is made. */
    iapdesk_capability_output()->fd = fd;
    iapdesk_capability_output()->count = 0;
    iapdesk_put_capability(tiparm(csr, top, bottom));
    iapdesk_put_capability(tiparm(cup, n > 0 ? bottom : top, 0));
    /* One row with ind (a line feed on most terminals) as ncurses itself does: fewer bytes. */
    if (iapdesk_has_cap(many) && !(count == 1 && iapdesk_has_cap(one))) {
        iapdesk_put_capability(tiparm(many, count));
    } else {
        for (int i = 0; i < count; i++) iapdesk_put_capability(one);
    }
    iapdesk_put_capability(tiparm(csr, 0, LINES - 1));
    iapdesk_put_capability(tiparm(cup, row, column));
    iapdesk_flush_capabilities();
    WINDOW *windows[3] = { curscr, newscr, win };
    for (int i = 0; i < 3; i++) {
        wsetscrreg(windows[i], top, bottom);
        scrollok(windows[i], TRUE);
        wscrl(windows[i], n);
        scrollok(windows[i], FALSE);
        wsetscrreg(windows[i], 0, LINES - 1);
    }
    /* The moved rows are right in all three now: left out of the next update, and so out of
       ncurses' own line-move detection, whose hashes of them date from before this move (it
       would otherwise find them moved and scroll them a second time). */
    wtouchln(newscr, top, bottom - top + 1, 0);
    wtouchln(win, top, bottom - top + 1, 0);
    return OK;
}

/* Whether the console can draw on terminal type `term` (NULL: $TERM), asked of terminfo before
   curses starts (initscr would print its own error and exit on an unknown type):
   1 it moves the cursor to any cell (cup) and clears the screen (clear); 0 it cannot (dumb,
   hard-copy); -1 terminfo does not know the type (or has no database). Leaves no terminal set up. */
static inline int iapdesk_terminal_can_draw(const char *term, int fd) {
    int error = 0;
    if (setupterm((char *)term, fd, &error) != OK) return error == 1 ? 0 : -1;
    int can = iapdesk_has_cap(tigetstr("cup")) && iapdesk_has_cap(tigetstr("clear"));
    del_curterm(cur_term);
    return can;
}

/* Whether the terminal keeps the shell's screen while the console runs (smcup/rmcup). */
static inline int iapdesk_has_alternate_screen(void) { return iapdesk_has_cap(tigetstr("rmcup")); }

static inline int iapdesk_can_scroll_rows(void) {
    return iapdesk_has_cap(tigetstr("csr")) && iapdesk_has_cap(tigetstr("cup"))
        && (iapdesk_has_cap(tigetstr("indn")) || iapdesk_has_cap(tigetstr("ind")))
        && (iapdesk_has_cap(tigetstr("rin")) || iapdesk_has_cap(tigetstr("ri")));
}

#endif
