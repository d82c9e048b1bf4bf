/*
 * sh - a small shell: runs a script file (sh FILE [ARG...]), a string
 * (sh -c STRING [ARG0 ARG...]) or standard input, with a "$ " prompt when
 * standard input is a terminal.
 *
 * The language: words separated by blanks; '...' and "..." quotes and
 * backslash; # comments; ; and newline between commands; pipelines
 * a | b | c; redirections < f, > f, >> f, N> f, N>> f, N>&M; & to run in
 * the background; $? $$ $! $# $0..$9 $NAME ${NAME} from the environment.
 * Builtins: cd, exit, export, pwd, wait, jobs, fg, bg, kill, true, false,
 * ':'. There are no globs, no control structures and no field splitting
 * of $NAME.
 *
 * Job control, when standard input is a terminal: the shell leads a
 * process group of its own and ignores SIGINT, SIGQUIT, SIGTSTP, SIGTTIN
 * and SIGTTOU; each pipeline runs in a new group, made the terminal's
 * foreground group while it runs (so a typed ^C ends it, not the shell),
 * and the shell takes the terminal back after. "cmd &" prints "[N] PID";
 * jobs, fg [%N], bg [%N], wait [%N|PID...] and kill [-SIG] %N|PID act on
 * them, and a finished background job is reported before the next prompt.
 *
 * Input is lexed lazily, one pipeline at a time, so that "false; echo $?"
 * expands $? after false has run. The shell itself writes only with
 * write(2) and unbuffered stderr, so fork() never copies pending output.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAXARGS = 128, MAXREDIRS = 10, MAXCMDS = 16 };

struct redir {
	int fd;        /* the descriptor being redirected */
	int mode;      /* '<' read, '>' truncate, 'a' append, '&' duplicate */
	int src;       /* for '&': the descriptor to copy */
	char *path;    /* for the others: the file */
};

struct cmd {
	int argc, nredir;
	char *argv[MAXARGS + 1];
	struct redir redir[MAXREDIRS];
};

struct pipeline {
	int ncmds, background;
	struct cmd cmds[MAXCMDS];
};

enum tok { T_WORD, T_REDIR, T_PIPE, T_AMP, T_SEMI, T_NL, T_EOF, T_ERR };

struct lexer {
	const char *p;
};

/* A growable string. */
struct str {
	char *s;
	size_t len, cap;
};

static int last_status;      /* $? */
static pid_t last_bg;        /* $! */
static int interactive;
static pid_t shell_pgid;     /* the shell's group, the terminal's between jobs */
static int npos;             /* $0..$N: the script's name and arguments */
static char **pos;

static void str_putc(struct str *w, char c)
{
	if (w->len + 2 > w->cap) {
		w->cap = w->cap ? 2 * w->cap : 32;
		w->s = realloc(w->s, w->cap);
		if (!w->s) {
			perror("sh: realloc");
			exit(2);
		}
	}
	w->s[w->len++] = c;
	w->s[w->len] = '\0';
}

static void str_puts(struct str *w, const char *s)
{
	while (*s)
		str_putc(w, *s++);
}

static void syntax(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sh: syntax error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* $... at lx->p: append the value to w. */
static void expand(struct lexer *lx, struct str *w)
{
	const char *p = lx->p + 1;
	char name[128], num[24];
	size_t n = 0;
	if (*p == '?' || *p == '$' || *p == '!' || *p == '#') {
		long v = *p == '?' ? last_status : *p == '$' ? getpid() :
			 *p == '!' ? last_bg : (npos > 0 ? npos - 1 : 0);
		snprintf(num, sizeof num, "%ld", v);
		str_puts(w, num);
		lx->p = p + 1;
		return;
	}
	if (isdigit((unsigned char)*p)) {
		int i = *p - '0';
		if (i < npos)
			str_puts(w, pos[i]);
		lx->p = p + 1;
		return;
	}
	int brace = *p == '{';
	p += brace;
	while ((isalnum((unsigned char)*p) || *p == '_') && n < sizeof name - 1)
		name[n++] = *p++;
	name[n] = '\0';
	if (n == 0 || (brace && *p != '}')) {
		str_putc(w, '$');          /* not an expansion: a plain '$' */
		lx->p++;
		return;
	}
	const char *v = getenv(name);
	if (v)
		str_puts(w, v);
	lx->p = p + brace;
}

/* Inside "...": backslash quotes only $ ` " \ and newline. */
static int lex_dquote(struct lexer *lx, struct str *w)
{
	lx->p++;
	while (*lx->p && *lx->p != '"') {
		if (*lx->p == '\\' && lx->p[1] && strchr("$`\"\\\n", lx->p[1])) {
			if (lx->p[1] != '\n')
				str_putc(w, lx->p[1]);
			lx->p += 2;
		} else if (*lx->p == '$') {
			expand(lx, w);
		} else {
			str_putc(w, *lx->p++);
		}
	}
	if (!*lx->p) {
		syntax("unterminated \"");
		return -1;
	}
	lx->p++;
	return 0;
}

/*
 * One word at lx->p into *out (malloc'd). Returns 1 for a word, 0 for a
 * word that vanished (only unquoted expansions, all empty), -1 on error.
 */
static int lex_word(struct lexer *lx, char **out)
{
	struct str w = { 0 };
	int keep = 0;
	while (*lx->p && !strchr(" \t\n;&|<>", *lx->p)) {
		char c = *lx->p;
		if (c == '\'') {
			const char *end = strchr(lx->p + 1, '\'');
			if (!end) {
				syntax("unterminated '");
				free(w.s);
				return -1;
			}
			for (const char *q = lx->p + 1; q < end; q++)
				str_putc(&w, *q);
			lx->p = end + 1;
			keep = 1;
		} else if (c == '"') {
			if (lex_dquote(lx, &w) < 0) {
				free(w.s);
				return -1;
			}
			keep = 1;
		} else if (c == '\\') {
			lx->p++;
			if (*lx->p == '\n') {      /* line continuation */
				lx->p++;
				continue;
			}
			/* a backslash at the very end stays itself */
			str_putc(&w, *lx->p ? *lx->p++ : '\\');
			keep = 1;
		} else if (c == '$') {
			expand(lx, &w);
		} else {
			str_putc(&w, *lx->p++);
			keep = 1;
		}
	}
	if (!keep && w.len == 0) {
		free(w.s);
		return 0;
	}
	if (!w.s)
		str_putc(&w, '\0');      /* "" was quoted: an empty word */
	*out = w.s;
	return 1;
}

/* A redirection at lx->p (after an optional descriptor digit). */
static enum tok lex_redir(struct lexer *lx, struct redir *r, int fd)
{
	char c = *lx->p++;
	r->mode = c;
	r->fd = fd >= 0 ? fd : (c == '<' ? 0 : 1);
	r->path = NULL;
	if (c == '>' && *lx->p == '>') {
		r->mode = 'a';
		lx->p++;
	}
	if (*lx->p == '&' && r->mode != 'a') {
		lx->p++;
		if (!isdigit((unsigned char)*lx->p)) {
			syntax("expected a descriptor after &");
			return T_ERR;
		}
		r->mode = '&';
		for (r->src = 0; isdigit((unsigned char)*lx->p); lx->p++)
			r->src = r->src * 10 + (*lx->p - '0');
		return T_REDIR;
	}
	while (*lx->p == ' ' || *lx->p == '\t')
		lx->p++;
	int got = -1;
	if (!*lx->p || strchr("\n;&|<>", *lx->p) || (got = lex_word(lx, &r->path)) == 0)
		syntax("expected a file name after %c", c);
	return got > 0 ? T_REDIR : T_ERR;
}

/* The next token; a word goes to *word, a redirection to *r. */
static enum tok next_token(struct lexer *lx, char **word, struct redir *r)
{
	for (;;) {
		while (*lx->p == ' ' || *lx->p == '\t' || (lx->p[0] == '\\' && lx->p[1] == '\n'))
			lx->p += *lx->p == '\\' ? 2 : 1;
		if (*lx->p == '#')
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		const char *p = lx->p;
		switch (*p) {
		case '\0': return T_EOF;
		case '\n': lx->p++; return T_NL;
		case ';': lx->p++; return T_SEMI;
		case '&': lx->p++; return T_AMP;
		case '|': lx->p++; return T_PIPE;
		case '<': case '>': return lex_redir(lx, r, -1);
		}
		if (isdigit((unsigned char)p[0]) && (p[1] == '<' || p[1] == '>')) {
			lx->p++;
			return lex_redir(lx, r, p[0] - '0');
		}
		int got = lex_word(lx, word);
		if (got < 0)
			return T_ERR;
		if (got > 0)
			return T_WORD;
	}
}

static void free_pipeline(struct pipeline *pl)
{
	for (int i = 0; i < pl->ncmds; i++) {
		struct cmd *c = &pl->cmds[i];
		for (int j = 0; j < c->argc; j++)
			free(c->argv[j]);
		for (int j = 0; j < c->nredir; j++)
			free(c->redir[j].path);
	}
	pl->ncmds = 0;
}

/* Add a token to the pipeline's last command; returns -1 on overflow. */
static int add_token(struct pipeline *pl, enum tok t, char *word, struct redir *r)
{
	struct cmd *c = &pl->cmds[pl->ncmds - 1];
	if (t == T_WORD) {
		if (c->argc == MAXARGS) {
			syntax("more than %d words in a command", MAXARGS);
			free(word);
			return -1;
		}
		c->argv[c->argc++] = word;
		c->argv[c->argc] = NULL;
		return 0;
	}
	if (c->nredir == MAXREDIRS) {
		syntax("more than %d redirections", MAXREDIRS);
		free(r->path);
		return -1;
	}
	c->redir[c->nredir++] = *r;
	return 0;
}

/*
 * Read one pipeline. Returns its terminator (T_SEMI, T_AMP, T_NL, T_EOF)
 * or T_ERR; pl->ncmds is 0 for an empty line.
 */
static enum tok parse_pipeline(struct lexer *lx, struct pipeline *pl)
{
	memset(pl, 0, sizeof *pl);
	pl->ncmds = 1;
	for (;;) {
		char *word = NULL;
		struct redir r;
		enum tok t = next_token(lx, &word, &r);
		struct cmd *c = &pl->cmds[pl->ncmds - 1];
		int empty = c->argc == 0 && c->nredir == 0;
		if (t == T_WORD || t == T_REDIR) {
			if (add_token(pl, t, word, &r) < 0)
				return T_ERR;
			continue;
		}
		if (t == T_ERR)
			return T_ERR;
		if (empty && pl->ncmds > 1 && t == T_NL)
			continue;          /* a newline may follow a | */
		if (empty && (pl->ncmds > 1 || t == T_PIPE || t == T_SEMI || t == T_AMP)) {
			syntax("unexpected %s", t == T_PIPE ? "|" : t == T_SEMI ? ";" :
			       t == T_AMP ? "&" : "end after |");
			return T_ERR;
		}
		if (t != T_PIPE) {
			if (empty)
				pl->ncmds = 0;
			pl->background = t == T_AMP;
			return t;
		}
		if (pl->ncmds == MAXCMDS) {
			syntax("more than %d commands in a pipeline", MAXCMDS);
			return T_ERR;
		}
		pl->ncmds++;
	}
}

/* Apply a command's redirections in order; returns -1 after reporting. */
static int apply_redirs(struct cmd *c)
{
	for (int i = 0; i < c->nredir; i++) {
		struct redir *r = &c->redir[i];
		int fd;
		if (r->mode == '&') {
			if (dup2(r->src, r->fd) < 0) {
				fprintf(stderr, "sh: %d: %s\n", r->src, strerror(errno));
				return -1;
			}
			continue;
		}
		int flags = r->mode == '<' ? O_RDONLY : r->mode == '>' ?
			    O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY | O_CREAT | O_APPEND;
		fd = open(r->path, flags, 0666);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", r->path, strerror(errno));
			return -1;
		}
		if (fd != r->fd) {
			dup2(fd, r->fd);
			close(fd);
		}
	}
	return 0;
}

/* The builtins; each returns its exit status. */
static int bi_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("HOME");
	char cwd[4096];
	if (!dir || !*dir)
		dir = "/";
	if (chdir(dir) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (getcwd(cwd, sizeof cwd))
		setenv("PWD", cwd, 1);
	return 0;
}

static int bi_exit(int argc, char **argv)
{
	char *end;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : last_status;
	if (argc > 1 && (*end || !*argv[1])) {
		fprintf(stderr, "sh: exit: %s: not a number\n", argv[1]);
		n = 2;
	}
	exit((int)(n & 0xff));
}

static int bi_export(int argc, char **argv)
{
	int status = 0;
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		int valid = n > 0 && !isdigit((unsigned char)argv[i][0]);
		for (size_t j = 0; j < n; j++)
			valid &= isalnum((unsigned char)argv[i][j]) || argv[i][j] == '_';
		if (!valid) {
			fprintf(stderr, "sh: export: %s: bad variable name\n", argv[i]);
			status = 1;
		} else if (eq) {
			*eq = '\0';
			setenv(argv[i], eq + 1, 1);
			*eq = '=';
		}
	}
	return status;
}

static int bi_pwd(int argc, char **argv)
{
	char cwd[4096];
	(void)argc, (void)argv;
	if (!getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	dprintf(1, "%s\n", cwd);
	return 0;
}

/* The status a shell reports for a wait status: code, or 128 + signal. */
static int shell_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ------------------------------------------------------------ jobs */

enum { MAXJOBS = 16 };

/* A pipeline started in the background, or stopped in the foreground. */
struct job {
	int used;
	pid_t pgid;                /* its group (its first process) */
	pid_t pids[MAXCMDS];       /* 0 once reaped */
	int npids, alive;
	int status;                /* the last process's wait status */
	int stopped;
	char text[80];             /* the command, for jobs */
};

static struct job jobs[MAXJOBS];

/* A job for the pipeline whose processes are pids (those < 0 failed to fork). */
static void job_init(struct job *j, const pid_t *pids, int n, const char *text)
{
	memset(j, 0, sizeof *j);
	j->used = 1;
	j->pgid = pids[0];
	for (int k = 0; k < n; k++) {
		if (pids[k] > 0) {
			j->pids[j->npids++] = pids[k];
			j->alive++;
		}
	}
	snprintf(j->text, sizeof j->text, "%s", text);
}

/* Keep j in the table (as %N); NULL when the table is full. */
static struct job *job_add(const struct job *j)
{
	for (int i = 0; i < MAXJOBS; i++) {
		if (!jobs[i].used) {
			jobs[i] = *j;
			return &jobs[i];
		}
	}
	return NULL;
}

/* Record a wait status for pid if it is one of j's; true if it was. */
static int job_note_in(struct job *j, pid_t pid, int st)
{
	for (int k = 0; j->used && k < j->npids; k++) {
		if (j->pids[k] != pid)
			continue;
		if (WIFSTOPPED(st)) {
			j->stopped = 1;
			return 1;
		}
		j->pids[k] = 0;
		j->alive--;
		if (k == j->npids - 1)
			j->status = st;
		return 1;
	}
	return 0;
}

/* Record a wait status for pid in its job of the table, if it has one. */
static void job_note(pid_t pid, int st)
{
	for (int i = 0; i < MAXJOBS; i++)
		if (job_note_in(&jobs[i], pid, st))
			return;
}

/* The job %N (text "%N", or "%" / NULL for the latest), or NULL. */
static struct job *job_find(const char *spec)
{
	struct job *last = NULL;
	if (spec && spec[0] == '%' && spec[1]) {
		int n = atoi(spec + 1);
		return n >= 1 && n <= MAXJOBS && jobs[n - 1].used ? &jobs[n - 1] : NULL;
	}
	for (int i = 0; i < MAXJOBS; i++)
		if (jobs[i].used)
			last = &jobs[i];
	return last;
}

static const char *job_state(const struct job *j)
{
	static char buf[48];
	if (j->alive)
		return j->stopped ? "Stopped" : "Running";
	if (WIFSIGNALED(j->status))
		return strsignal(WTERMSIG(j->status));
	if (WEXITSTATUS(j->status))
		snprintf(buf, sizeof buf, "Exit %d", WEXITSTATUS(j->status));
	return WEXITSTATUS(j->status) ? buf : "Done";
}

/* Collect every child that has ended (or stopped), without waiting; with
 * notify, report and forget the jobs that have ended. */
static void jobs_reap(int notify)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0)
		job_note(pid, st);
	for (int i = 0; notify && i < MAXJOBS; i++) {
		if (jobs[i].used && !jobs[i].alive) {
			if (interactive)
				fprintf(stderr, "[%d] %s\t%s\n", i + 1, job_state(&jobs[i]), jobs[i].text);
			jobs[i].used = 0;
		}
	}
}

/* Wait until job j has ended or stopped; the terminal is its meanwhile. */
static void job_wait(struct job *j, int foreground)
{
	int st;
	if (foreground && interactive)
		tcsetpgrp(0, j->pgid);
	j->stopped = 0;
	for (int k = 0; k < j->npids && !j->stopped; k++) {
		pid_t want = j->pids[k], pid;
		if (!want)
			continue;
		while ((pid = waitpid(want, &st, interactive ? WUNTRACED : 0)) < 0 && errno == EINTR)
			;
		if (pid == want) {
			job_note_in(j, pid, st);
		} else {           /* reaped elsewhere: gone all the same */
			j->pids[k] = 0;
			j->alive--;
		}
	}
	if (foreground && interactive)
		tcsetpgrp(0, shell_pgid);
}

static int shell_status(int st);
static void report_signal(int st);

/* A foreground job has ended: report a death by signal, give its status. */
static int job_ended(const struct job *j)
{
	if (interactive && WIFSIGNALED(j->status) && WTERMSIG(j->status) == SIGINT)
		fputs("\n", stderr);
	report_signal(j->status);
	return shell_status(j->status);
}

/* After a foreground wait: a stopped job is kept as %N, an ended one is done. */
static int job_foreground_over(struct job *j, int in_table)
{
	if (!j->stopped) {
		j->used = in_table ? 0 : j->used;
		return job_ended(j);
	}
	struct job *t = in_table ? j : job_add(j);
	if (t)
		fprintf(stderr, "\n[%d] Stopped\t%s\n", (int)(t - jobs) + 1, t->text);
	return 128 + SIGTSTP;
}

static int bi_jobs(int argc, char **argv)
{
	(void)argc, (void)argv;
	jobs_reap(0);
	for (int i = 0; i < MAXJOBS; i++) {
		if (!jobs[i].used)
			continue;
		dprintf(1, "[%d] %s\t%s\n", i + 1, job_state(&jobs[i]), jobs[i].text);
		if (!jobs[i].alive)
			jobs[i].used = 0;
	}
	return 0;
}

/* fg and bg: continue a job, in the foreground (waiting) or not. */
static int bi_fg(int argc, char **argv)
{
	struct job *j = job_find(argc > 1 ? argv[1] : NULL);
	if (!j) {
		fprintf(stderr, "sh: %s: %s: no such job\n", argv[0], argc > 1 ? argv[1] : "current");
		return 1;
	}
	int fg = !strcmp(argv[0], "fg");
	fprintf(stderr, "%s%s\n", j->text, fg ? "" : " &");
	if (fg && interactive)
		tcsetpgrp(0, j->pgid);	/* before SIGCONT, so a reader does not stop again */
	if (j->stopped)
		kill(-j->pgid, SIGCONT);
	j->stopped = 0;
	if (!fg)
		return 0;
	job_wait(j, 1);
	return job_foreground_over(j, 1);
}

static int bi_wait(int argc, char **argv)
{
	int st, status = 0;
	if (argc < 2) {
		pid_t pid;
		while ((pid = waitpid(-1, &st, 0)) > 0 || (pid < 0 && errno == EINTR))
			if (pid > 0)
				job_note(pid, st);
		for (int i = 0; i < MAXJOBS; i++)
			jobs[i].used = 0;
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		struct job *j = argv[i][0] == '%' ? job_find(argv[i]) : NULL;
		if (j) {
			job_wait(j, 0);
			status = shell_status(j->status);
			if (!j->alive)
				j->used = 0;
			continue;
		}
		pid_t pid = (pid_t)atoi(argv[i]);
		status = argv[i][0] != '%' && waitpid(pid, &st, 0) == pid ? shell_status(st) : 127;
		if (status != 127)
			job_note(pid, st);
	}
	for (int i = 0; i < MAXJOBS; i++)      /* what was waited for is no job */
		if (jobs[i].used && !jobs[i].alive)
			jobs[i].used = 0;
	return status;
}

static const struct { const char *name; int sig; } signames[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM },
	{ "TERM", SIGTERM }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
};

/* "-9", "-KILL" or "-SIGKILL": the signal, or -1. */
static int parse_signal(const char *arg)
{
	const char *name = arg + 1;
	if (isdigit((unsigned char)*name))
		return atoi(name);
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof signames / sizeof signames[0]; i++)
		if (!strcmp(signames[i].name, name))
			return signames[i].sig;
	return -1;
}

/* Signal job j: its group, or without job control (no groups of their
 * own) each of its processes. 0 or -1 with errno. */
static int job_kill(const struct job *j, int sig)
{
	if (interactive)
		return kill(-j->pgid, sig);
	int r = -1;
	for (int k = 0; k < j->npids; k++)
		if (j->pids[k] > 0 && kill(j->pids[k], sig) == 0)
			r = 0;
	return r;
}

/* kill [-SIG] %N|PID...: signal a job's group, or a process. */
static int bi_kill(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;
	if (argc > 1 && argv[1][0] == '-' && (sig = parse_signal(argv[1])) >= 0)
		i = 2;
	if (sig < 0 || i >= argc) {
		fprintf(stderr, "sh: kill: usage: kill [-SIG] %%N|PID...\n");
		return 2;
	}
	for (; i < argc; i++) {
		struct job *j = argv[i][0] == '%' ? job_find(argv[i]) : NULL;
		if (argv[i][0] == '%' && !j) {
			fprintf(stderr, "sh: kill: %s: no such job\n", argv[i]);
			status = 1;
		} else if ((j ? job_kill(j, sig) : kill((pid_t)atoi(argv[i]), sig)) < 0) {
			fprintf(stderr, "sh: kill: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}

/* true, false and ':' */
static int bi_status(int argc, char **argv)
{
	(void)argc;
	return !strcmp(argv[0], "false");
}

static int bi_help(int argc, char **argv);

static const struct builtin {
	const char *name;
	int (*fn)(int, char **);
} builtins[] = {
	{ "cd", bi_cd }, { "exit", bi_exit }, { "export", bi_export },
	{ "pwd", bi_pwd }, { "wait", bi_wait }, { "true", bi_status },
	{ "false", bi_status }, { ":", bi_status }, { "help", bi_help },
	{ "jobs", bi_jobs }, { "fg", bi_fg }, { "bg", bi_fg }, { "kill", bi_kill },
};

/* help: the builtins, and the programs in /bin (each takes --help). */
static int bi_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("builtins:");
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		printf(" %s", builtins[i].name);
	printf("\nprograms in /bin:");
	DIR *d = opendir("/bin");
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			printf(" %s", e->d_name);
	if (d)
		closedir(d);
	printf("\nEach program says how to use it with --help; `exit N` ends the shell\n"
	       "(and, for the first shell, the machine, with status N).\n");
	return 0;
}

static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

/* execve, falling back to running a file that is no program as a script. */
static void try_exec(const char *path, char **argv)
{
	execve(path, argv, environ);
	if (errno == ENOEXEC) {
		char *sargv[MAXARGS + 2] = { "sh", (char *)path };
		for (int i = 1; argv[i] && i < MAXARGS; i++)
			sargv[i + 1] = argv[i];
		execve("/bin/sh", sargv, environ);
		errno = ENOEXEC;
	}
}

/* In a child: run argv[0], searching $PATH when it has no '/'. */
static void exec_command(char **argv)
{
	const char *name = argv[0];
	if (strchr(name, '/')) {
		try_exec(name, argv);
		fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	const char *path = getenv("PATH");
	int denied = 0;
	if (!path)
		path = "/bin:/tests";
	while (*path) {
		size_t n = strcspn(path, ":");
		char full[4096];
		if (n == 0)        /* an empty PATH entry is the current directory */
			snprintf(full, sizeof full, "./%s", name);
		else
			snprintf(full, sizeof full, "%.*s/%s", (int)n, path, name);
		try_exec(full, argv);
		if (errno == EACCES)
			denied = 1;
		else if (errno != ENOENT && errno != ENOTDIR)
			break;
		path += n + (path[n] == ':');
	}
	if (denied || (errno != ENOENT && errno != ENOTDIR)) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(denied ? EACCES : errno));
		_exit(126);
	}
	fprintf(stderr, "sh: %s: command not found\n", name);
	_exit(127);
}

/* A builtin alone in the foreground runs in the shell, redirections undone after. */
static int run_builtin_here(const struct builtin *b, struct cmd *c)
{
	int saved[MAXREDIRS];
	for (int i = 0; i < c->nredir; i++)
		saved[i] = fcntl(c->redir[i].fd, F_DUPFD_CLOEXEC, 10);
	int status = apply_redirs(c) < 0 ? 1 : b->fn(c->argc, c->argv);
	for (int i = c->nredir - 1; i >= 0; i--) {
		if (saved[i] >= 0) {
			dup2(saved[i], c->redir[i].fd);
			close(saved[i]);
		} else {
			close(c->redir[i].fd);
		}
	}
	return status;
}

static const int job_signals[] = { SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU };

/* In a child of the pipeline: its process group (pgid 0: a new one, and
 * the terminal's if foreground), then descriptors, then the command. */
static void child(struct cmd *c, int in, int out, pid_t pgid, int foreground)
{
	if (interactive) {         /* the shell ignores them; programs must not */
		setpgid(0, pgid);
		if (foreground)
			tcsetpgrp(0, getpgrp());	/* SIGTTOU is still ignored here */
		for (size_t i = 0; i < sizeof job_signals / sizeof job_signals[0]; i++)
			signal(job_signals[i], SIG_DFL);
	}
	if (in >= 0)
		dup2(in, 0);
	if (out >= 0)
		dup2(out, 1);
	if (apply_redirs(c) < 0)
		_exit(1);
	if (c->argc == 0)
		_exit(0);
	const struct builtin *b = find_builtin(c->argv[0]);
	if (b)
		_exit(b->fn(c->argc, c->argv));
	exec_command(c->argv);
}

static void report_signal(int st)
{
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGINT && WTERMSIG(st) != SIGPIPE)
		fprintf(stderr, "%s\n", strsignal(WTERMSIG(st)));
}

/* The pipeline as jobs lists it: "a x | b &". */
static void pipeline_text(const struct pipeline *pl, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < pl->ncmds; i++)
		for (int k = 0; k < pl->cmds[i].argc && n < size; k++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? " " : i ? " | " : "",
					      pl->cmds[i].argv[k]);
	if (pl->background && n < size)
		snprintf(buf + n, size - n, " &");
}

static void run_pipeline(struct pipeline *pl)
{
	pid_t pids[MAXCMDS] = { 0 }, pgid = 0;
	int in = -1;
	const struct builtin *b = pl->cmds[0].argc ? find_builtin(pl->cmds[0].argv[0]) : NULL;
	if (pl->ncmds == 1 && !pl->background && b) {
		last_status = run_builtin_here(b, &pl->cmds[0]);
		return;
	}
	for (int i = 0; i < pl->ncmds; i++) {
		int p[2] = { -1, -1 };
		if (i + 1 < pl->ncmds && pipe2(p, O_CLOEXEC) < 0) {
			perror("sh: pipe");
			p[0] = p[1] = -1;
		}
		pids[i] = fork();
		if (pids[i] == 0)
			child(&pl->cmds[i], in, p[1], pgid, !pl->background);
		if (pids[i] < 0)
			perror("sh: fork");
		if (pids[i] > 0 && interactive) {
			if (!pgid)
				pgid = pids[i];
			setpgid(pids[i], pgid);	/* the child does it too: whoever is first */
		}
		if (in >= 0)
			close(in);
		if (p[1] >= 0)
			close(p[1]);
		in = p[0];
	}
	char text[80];
	pipeline_text(pl, text, sizeof text);
	struct job fg;
	job_init(&fg, pids, pl->ncmds, text);
	if (pl->background) {
		struct job *j = pids[0] > 0 ? job_add(&fg) : NULL;
		last_bg = pids[pl->ncmds - 1];
		if (interactive && j)
			fprintf(stderr, "[%d] %d\n", (int)(j - jobs) + 1, (int)last_bg);
		last_status = 0;
		return;
	}
	if (pids[0] > 0) {
		job_wait(&fg, 1);
		last_status = job_foreground_over(&fg, 0);
	}
	if (pids[pl->ncmds - 1] < 0)
		last_status = 126;
}

/* Run every pipeline in text; a syntax error skips to the next line. */
static void run_text(const char *text)
{
	struct lexer lx = { text };
	static struct pipeline pl;
	for (;;) {
		enum tok t = parse_pipeline(&lx, &pl);
		if (t == T_ERR) {
			free_pipeline(&pl);
			last_status = 2;
			if (!interactive)
				exit(2);
			while (*lx.p && *lx.p++ != '\n')
				;
			continue;
		}
		if (pl.ncmds > 0)
			run_pipeline(&pl);
		free_pipeline(&pl);
		if (t == T_EOF)
			return;
	}
}

/* One line from fd 0, a byte at a time so that commands see the rest. */
static char *read_line(void)
{
	struct str w = { 0 };
	char c;
	ssize_t n;
	while ((n = read(0, &c, 1)) == 1 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		str_putc(&w, c);
		if (c == '\n')
			break;
	}
	return w.s;
}

/* The whole of a script file; exits 127 if it cannot be read. */
static char *read_file(const char *path)
{
	struct str w = { 0 };
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
		exit(127);
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			str_putc(&w, buf[i]);
	close(fd);
	if (!w.s)
		str_putc(&w, '\0');      /* an empty script */
	return w.s;
}

static void usage(void)
{
	printf("usage: sh [FILE [ARG...]]\n"
	       "       sh -c STRING [ARG0 [ARG...]]\n"
	       "Runs commands from FILE, from STRING, or from standard input.\n"
	       "Supports quotes, ; & | < > >> N> N>&M, $? $$ $! $# $0-$9 $NAME,\n"
	       "and the builtins cd exit export pwd wait jobs fg bg kill true false help.\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-c")) {
		if (argc < 3) {
			fprintf(stderr, "sh: -c: needs a string\n");
			return 2;
		}
		static char *dflt[] = { "sh" };
		npos = argc > 3 ? argc - 3 : 1;
		pos = argc > 3 ? argv + 3 : dflt;
		run_text(argv[2]);
		return last_status;
	}
	if (argc > 1) {
		npos = argc - 1;
		pos = argv + 1;
		char *text = read_file(argv[1]);
		run_text(text);
		free(text);
		return last_status;
	}
	npos = 1;
	pos = argv;
	interactive = isatty(0);
	if (interactive) {
		for (size_t i = 0; i < sizeof job_signals / sizeof job_signals[0]; i++)
			signal(job_signals[i], SIG_IGN);
		setpgid(0, 0);     /* EPERM for a session leader: it leads its group already */
		shell_pgid = getpgrp();
		tcsetpgrp(0, shell_pgid);
	}
	for (;;) {
		if (interactive) {
			jobs_reap(1);
			fputs("$ ", stderr);
		}
		char *line = read_line();
		if (!line)
			return last_status;
		run_text(line);
		free(line);
	}
}
