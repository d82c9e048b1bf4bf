/*
 * tty.h - what the console terminal (drivers/tty.c) needs from the process
 * layer for job control, handed to it as an operations table because the
 * process layer is on a floor above (docs/architecture.md).
 *
 * The console is the controlling terminal of one session at a time (at
 * boot, init's): a process's controlling terminal is the console exactly
 * when its session is that one. The terminal keeps the session and its
 * foreground process group; which processes are in which group is the
 * process table's business, asked through these calls.
 */
#ifndef DRIVERS_TTY_H
#define DRIVERS_TTY_H

#include "kernel/types.h"

struct tty_job_ops {
	/* The calling process's pid, group and session. Never sleeps. */
	void (*current_ids)(int *pid, int *pgid, int *sid);
	/* Send sig to every process of group pgid: 0 if one took it, else
	 * -ESRCH (an empty group) or send's error. Never sleeps. */
	int (*kill_pgrp)(int pgid, int sig);
	/* The session of group pgid's members, or -ESRCH if it has none. */
	int (*pgrp_session)(int pgid);
	/* Whether the calling process ignores (or blocks) sig. */
	bool (*sig_ignored)(int sig);
	/* Whether group pgid is orphaned (POSIX): no member has a parent in
	 * another group of the same session, so no shell will continue it. */
	bool (*pgrp_orphaned)(int pgid);
};

/* tty_set_job_ops: install the process layer's table, once at boot, before
 * init runs. Never sleeps. */
void tty_set_job_ops(const struct tty_job_ops *ops);

#endif
