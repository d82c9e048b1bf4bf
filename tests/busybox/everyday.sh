# everyday.sh - everyday applets of Debian's busybox, run by its own shell
# (user/tests/t_busybox.c starts it: busybox sh everyday.sh BUSYBOX, with
# TZ=UTC and LC_ALL=C). Each line an applet prints becomes a result line
# "ok N - NAME: LINE", and its exit status one more, so that the same
# binary's lines on Linux and on Roundabout can be compared line for line
# (tests/user.txt, '| linux'). What differs by machine (uname, nproc, df's
# figures, ps, inode numbers) is checked against the machine's own values
# instead.
# File times are set (touch -d), and output in directory order is sorted.

BB=$1
n=0
failed=0

# out NAME CMD...: run CMD; a result line for each line of its output and
# one for its status.
out() {
	name=$1
	shift
	text=$("$@" 2>&1)
	status=$?
	while IFS= read -r line; do
		n=$((n + 1))
		echo "ok $n - $name: $line"
	done <<EOF
$text
EOF
	n=$((n + 1))
	echo "ok $n - $name: status $status"
}

# check NAME CMD...: one result line, ok if CMD succeeds.
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
	fi
}

bb() {
	"$BB" "$@"
}

# bbsh SCRIPT: busybox's shell runs SCRIPT ($BB is in its environment).
bbsh() {
	"$BB" sh -c "$1"
}
export BB

# The scratch tree: a few files with fixed contents and times.
setup() {
	umask 022	# the modes ls shows, whatever umask started the run
	# A fresh directory of its own under $TMPDIR (or /tmp), so that two
	# runs side by side, or a run on the host, leave nothing behind.
	scratch=$(bb mktemp -d "${TMPDIR:-/tmp}/everyday.XXXXXX") || exit 1
	trap 'cd / && bb rm -rf "$scratch"' EXIT
	bb mkdir -p "$scratch/w/d/e" "$scratch/w/src"
	cd "$scratch/w" || exit 1
	bb seq 1 20 > src/numbers
	printf 'pear\napple\nfig\napple\nbanana\npear\npear\n' > src/fruit
	printf 'a:b:c\nd:e:f\n1:2:3\n' > src/colons
	printf 'hello world\n' > d/hello
	printf 'deep\n' > d/e/deep
	bb touch -d '2024-01-02 03:04:05' src/numbers src/fruit src/colons d/hello d/e/deep
	bb touch -d '2023-06-07 08:09:10' d/e d src
}

# ls -l without the owner and group (names on the host, numbers here),
# a directory's size and link count and the total of blocks (the file
# system's choices: btrfs counts no subdirectory links).
ls_l() {
	bb ls -l "$@" | bb awk '/^total/ { next } $1 ~ /^d/ { $2 = "-"; $5 = "-" } { $3 = ""; $4 = ""; print }'
}

shell_pipes() {
	bb seq 1 100 | bb awk '$1 % 7 == 0 { print $1 * 2 }' | bb sort -rn | bb head -3
	echo "$(echo nested $(echo substitution))"
	for i in 1 2 3; do printf '%s-' "$i"; done; echo
	x=5; while [ "$x" -gt 0 ]; do x=$((x - 2)); done; echo "x=$x"
	case "apple" in a*) echo "case matched";; *) echo "case missed";; esac
	false || echo "or after false"; true && echo "and after true"
	{ echo grouped; echo lines; } | bb wc -l
	echo "$((6 * 7)) $((17 % 5)) $((1 << 4))"
	(cd d && pwd | bb sed 's|.*/||')
	set -- one two three; echo "$# args, second $2"
	read -r a b <<X
first second
X
	echo "read: $b $a"
}

files() {
	ls_l src
	ls_l -d d
	bb cp src/fruit copy
	bb mv copy moved
	bb cat moved | bb head -1
	bb test -e copy || echo "copy is gone"
	bb cp -p src/fruit kept
	ls_l kept
	bb cp -r d dcopy
	bb find dcopy | bb sort
	bb ln src/numbers hardlink
	bb stat -c '%n %s %a %F %h %Y' src/numbers hardlink
	bb stat -c '%n %a %F %Y' d
	bb rm -r dcopy moved kept hardlink
	bb ls
}

text() {
	bb sort src/fruit | bb uniq -c
	bb sort -u src/fruit | bb tr 'a-z' 'A-Z'
	bb cut -d: -f2,3 src/colons
	bb awk -F: '{ s = s $3 } END { print s, NR }' src/colons
	bb sed -n '/apple/=' src/fruit
	bb sed 's/p\(.*\)r/P[\1]R/' src/fruit | bb head -2
	bb grep -c pear src/fruit
	bb grep -n -v -e pear -e apple src/fruit
	bb wc src/numbers src/fruit
	bb head -n 3 src/numbers
	bb tail -n 2 src/numbers
	bb tail -c 6 src/fruit
	bb seq 5 -2 -3 | bb xargs "$BB" echo
	bb seq -s, 1 4
	bb expr 3 + 4 \* 2
	bb expr length "roundabout"
	bb expr "abc123" : '[a-z]*'
	bb printf '%05d|%-4s|%x\n' 42 ab 255
	bb echo -n "no newline"; echo
	bb basename /a/b/c.txt .txt
	bb dirname /a/b/c.txt
}

tests() {
	bb test 3 -lt 5 && echo "3 < 5"
	bb test -d d && echo "d is a directory"
	bb test -f src/fruit -a -s src/fruit && echo "fruit is a non-empty file"
	[ src/fruit -nt d/e/deep ] || echo "fruit is not newer than deep"
	bb test "abc" = "abd" || echo "strings differ"
	bb test -e nothing-here || echo "nothing-here does not exist"
}

archives() {
	bb tar cf t.tar src d
	bb tar tf t.tar | bb sort
	bb mkdir x
	bb tar xf t.tar -C x
	bb find x -type f | bb sort
	bb md5sum x/src/fruit src/fruit
	bb gzip -n -c src/numbers > n.gz
	bb md5sum n.gz
	bb gzip -d -c n.gz | bb md5sum
	bb gzip -n -9 -c src/fruit | bb gzip -t && echo "gzip -t: ok"
	bb rm -r x t.tar n.gz
}

blocks() {
	bb dd if=/dev/zero of=zeros bs=512 count=5 2>/dev/null
	bb wc -c zeros
	bb dd if=src/numbers bs=1 skip=3 count=6 2>/dev/null
	echo
	bb dd if=/dev/zero bs=1024 count=3 2>&1 | bb grep records
	bb md5sum zeros
	bb rm zeros
}

dates() {
	bb date -d @0
	bb date -u -d '2024-02-29 12:34:56' '+%Y-%m-%d %H:%M:%S %j %a %s'
	bb date -r src/fruit '+%F %T'
	bb sleep 0.1 && echo "slept"
	bb date +%Y | bb grep -c '^20[0-9][0-9]$'
}

# The machine's own values: the answer differs by machine, so check each
# applet against what this machine says elsewhere.
machine() {
	cpus=$(bb grep -c '^processor' /proc/cpuinfo)
	check "nproc equals /proc/cpuinfo's processor count" [ "$(bb nproc)" = "$cpus" ]
	check "uname -s is the kernel's name, uname -m x86_64" \
		[ "$(bb uname -m)" = x86_64 -a -n "$(bb uname -s)" ]
	check "ps lists pid 1" bbsh '"$BB" ps -o pid | "$BB" grep -q "^ *1$"'
	check "ps lists the shell running this script" \
		bbsh '"$BB" ps -o pid,comm | "$BB" grep -q "^ *'$$' "'
	check "id -G begins with id -g" bbsh '"$BB" id -G | "$BB" grep -q "^$("$BB" id -g)"'
	check "stat's inode equals ls -i's" \
		[ "$(bb stat -c %i src/fruit)" = "$(bb ls -i src/fruit | bb awk '{print $1}')" ]
	check "uptime prints the load averages" bbsh '"$BB" uptime | "$BB" grep -q "load average"'
	check "top -b -n 1 prints its table" bbsh '"$BB" top -b -n 1 | "$BB" grep -q "^ *PID "'
	check "df -P -k's 1K-blocks, Used and Available are stat -f's (statfs) figures" df_is_statfs
}

# df -P -k . against statfs, as stat -f reports it: blocks, blocks less
# free, and available, each times the fragment size in KiB, rounded as
# busybox rounds. Another writer on the file system (the host's builds,
# say) moves the free counts at any moment, so df's own call is bracketed
# by two of stat -f: its size must be theirs exactly, and its Used and
# Available must lie between the two samples', give or take a thousandth
# of the size (a writer may free and take again inside one bracket; a
# wrong unit or a swapped column is still far outside).
statfs_kib() {
	set -- $(bb stat -f -c '%b %f %a %S' .)
	echo "$((($1 * $4 + 512) / 1024)) $(((($1 - $2) * $4 + 512) / 1024)) $((($3 * $4 + 512) / 1024))"
}

near() {	# near X A B SLACK: X lies between A and B, give or take SLACK
	lo=$(($2 < $3 ? $2 : $3)) hi=$(($2 > $3 ? $2 : $3))
	[ "$1" -ge $((lo - $4)) ] && [ "$1" -le $((hi + $4)) ]
}

df_is_statfs() {
	for try in 1 2 3 4 5; do
		before=$(statfs_kib)
		got=$(bb df -P -k . | bb awk 'NR == 2 { print $2, $3, $4 }')
		after=$(statfs_kib)
		set -- $got $before $after
		slack=$(($1 / 1000))
		[ "$1" = "$4" ] && [ "$1" = "$7" ] && near "$2" "$5" "$8" $slack &&
			near "$3" "$6" "$9" $slack && return 0
	done
	echo "df -P -k: $got, statfs before: $before, after: $after" >&2
	return 1
}

setup
out "sh" shell_pipes
out "files" files
out "text" text
out "test" tests
out "tar+gzip" archives
out "dd" blocks
out "date+sleep" dates
machine

# Once missing on Roundabout, now the same: statfs (df), ext2 symbolic
# links (ln -s, readlink), signal masks, sigsuspend and SIGCHLD (trap,
# kill, a background job and wait), chmod.
out "df" bbsh '"$BB" df -k . >/dev/null && echo df ok'
out "symlinks" bbsh '"$BB" ln -s src/fruit link && "$BB" readlink link && "$BB" cat link'
out "trap" bbsh 'trap "echo got USR1" USR1; kill -USR1 $$; echo after'
out "jobs" bbsh '"$BB" sleep 0.2 & wait $!; echo waited $?'
# The kill applet itself (not the shell's builtin): SIGTERM ends a
# background sleep, which wait reports as 128 + 15. ash prints
# "Terminated" only if wait itself reaps the sleep; if the sleep dies
# before the kill applet exits, the wait for kill reaps it, in silence.
# Which comes first is the scheduler's choice on any kernel, so wait's
# stderr is left out.
out "kill" bbsh '"$BB" kill -l 15; "$BB" sleep 100 & p=$!; "$BB" kill -TERM $p; wait $p 2>/dev/null; echo "wait gave $?"'
out "chmod" bbsh '"$BB" chmod 640 src/colons && "$BB" chmod u+s,g+w d && "$BB" stat -c "%a %A %n" src/colons d'
