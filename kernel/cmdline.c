/* cmdline.c - split the command line into words once; look keys up later. */
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"

#define MAX_WORDS 128

extern const struct cmdline_key __cmdline_keys_start[], __cmdline_keys_end[];

static char raw_copy[CMDLINE_MAX];	/* [I] after cmdline_init */
static char words[CMDLINE_MAX];		/* [I] raw_copy with NULs between words */
static const char *keys[MAX_WORDS];	/* [I] */
static const char *values[MAX_WORDS];	/* [I] */
static int nwords;			/* [I] */
static int nunknown;			/* [I] */

CMDLINE_KEY(loglevel, "loglevel", "console level: 3 errors .. 7 debug (default 6)");

static bool known(const char *key)
{
	for (const struct cmdline_key *k = __cmdline_keys_start; k < __cmdline_keys_end; k++)
		if (strcmp(k->name, key) == 0)
			return true;
	return false;
}

void cmdline_init(const char *raw)
{
	size_t len = strlcpy(raw_copy, raw ? raw : "", sizeof(raw_copy));

	if (len >= sizeof(raw_copy))
		pr_warn("cmdline: longer than %d bytes, truncated", CMDLINE_MAX - 1);
	memcpy(words, raw_copy, sizeof(words));
	for (char *p = words; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (nwords == MAX_WORDS) {
			pr_warn("cmdline: more than %d words; the rest are ignored", MAX_WORDS);
			break;
		}
		keys[nwords] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		char *eq = strchr(keys[nwords], '=');
		if (eq && eq < p) {
			*eq = 0;
			values[nwords] = eq + 1;
		} else {
			values[nwords] = "";
		}
		nwords++;
	}
	for (int i = 0; i < nwords; i++) {
		if (!known(keys[i])) {
			nunknown++;
			pr_warn("cmdline: unknown key '%s' ignored (see README for the switches)",
				keys[i]);
		}
	}
	const char *lvl = cmdline_get("loglevel");
	if (lvl)
		printk_set_level((int)cmdline_get_u64("loglevel", KERN_INFO));
}

const char *cmdline_get(const char *key)
{
	const char *v = NULL;

	for (int i = 0; i < nwords; i++)
		if (strcmp(keys[i], key) == 0)
			v = values[i];
	return v;
}

u64 cmdline_get_u64(const char *key, u64 dflt)
{
	const char *v = cmdline_get(key);
	u64 n;

	if (!v)
		return dflt;
	if (!parse_u64(v, &n)) {
		pr_warn("cmdline: %s=%s is not a number; using %llu", key, v,
			(unsigned long long)dflt);
		return dflt;
	}
	return n;
}

const char *cmdline_raw(void)
{
	return raw_copy;
}

void cmdline_print_keys(void)
{
	for (const struct cmdline_key *k = __cmdline_keys_start; k < __cmdline_keys_end; k++)
		printk("  %-24s %s", k->name, k->help);
}

int cmdline_unknown_count(void)
{
	return nunknown;
}
