// Makes the parts of ncursesw that Swift cannot import directly visible as plain functions:
// the wide-character API (hidden unless NCURSES_WIDECHAR), macros, and mutable globals.
#ifndef IAPDESK_CNCURSESW_SHIM_H
#define IAPDESK_CNCURSESW_SHIM_H

#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <ncursesw/curses.h>

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

#endif
