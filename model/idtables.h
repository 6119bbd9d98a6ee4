/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idtables.h - what program identity knows about commands (private to
 * model/): launchers, wrappers, containers, shells, interpreters and
 * the options of each that take arguments.  identity.c resolves a
 * script's program with them. */
#ifndef NODESHARE_IDTABLES_H
#define NODESHARE_IDTABLES_H

#include <stdbool.h>

/* Which options of a command take arguments, so that the first word after
 * them is the operand (the program, the image, ...). */
struct optspec {
    const char *shortargs;      /* getopt(3) letters taking an argument */
    const char *const *args;    /* whole words taking one argument */
    const char *const *args2;   /* whole words taking two (-genv NAME VAL) */
    bool plus;                  /* +opt words are options too */
};

struct launcher {
    const char *name;
    const struct optspec *spec;
};

enum wshape {
    W_PLAIN,        /* options, then the command */
    W_ENV,          /* options, NAME=value and "-", then the command */
    W_OPERAND,      /* options, one operand (mask, duration), the command */
    W_PRIORITY,     /* options, an optional numeric priority, the command */
    W_SUBCOMMAND,   /* a subcommand (perf stat), options, the command */
};

struct wrapper {
    const char *name;
    struct optspec spec;
    enum wshape shape;
    const char *const *stops;   /* options after which nothing is run */
};

struct interp {
    const char *name;           /* also name + version: python3.11 */
    const char *const *args;    /* options taking an argument */
    const char *const *code;    /* options whose argument is inline code */
    const char *const *prog;    /* options whose argument is the program */
    const char *subcommand;     /* R CMD BATCH: skip it and the next word */
};

extern const char *const idt_housekeeping[];
extern const char *const idt_prefix_keywords[];
extern const char *const idt_not_commands[];
extern const struct launcher idt_launchers[];
extern const char *const idt_perf_subcommands[];
extern const struct wrapper idt_wrappers[];
extern const char *const idt_containers[];
extern const char *const idt_shells[];
extern const struct interp idt_interps[];
extern const struct optspec idt_container_spec;
extern const struct optspec idt_shell_spec;
bool idt_in_list (const char *const *list, const char *w);
bool idt_is_option (const struct optspec *spec, const char *o);
int idt_option_nargs (const struct optspec *spec, const char *o,
                         const char *next);
int idt_skip_options (const struct optspec *spec, char **w, int n, int i);

#endif /* !NODESHARE_IDTABLES_H */
