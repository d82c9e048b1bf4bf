#!/bin/sh
# selftest.sh - test of the damaged ext2 images of tests/corrupt/corrupt.mk.
# Usage: tests/corrupt/selftest.sh [-v]     (make corrupt-selftest runs it)
# Builds every image with the fragment's own recipes, but in a temporary
# directory, then checks: e2fsck -fn passes the base image and it holds the
# staged files; e2fsck flags every damaged image, each of which differs from
# the base in a few bytes only; tools/corrupt-image refuses an unknown kind
# and an image that is not the base; its fuzz mode gives one image per
# (region, seed). -v shows e2fsck's first complaint per kind. Prints
# "host: corrupt images: N kinds, each caught by e2fsck ok", or a FAILED
# line per problem and exits 1.
case "${1:-}" in
-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0;;
-v) verbose=1;;
*) verbose=;;
esac
cd "$(dirname "$0")/../.." || exit 1
PATH="$PATH:/sbin:/usr/sbin"
for t in mkfs.ext2 e2fsck debugfs python3; do
	command -v $t >/dev/null 2>&1 ||
		{ echo "host: corrupt images FAILED ($t not found; Debian: e2fsprogs)"; exit 1; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/corrupt
log=$tmp/log
failed=0

fail() {
	echo "host: corrupt images FAILED ($*)"
	failed=1
}

# show_log: the end of the last command's output, indented.
show_log() {
	tail -n 15 "$log" | sed 's/^/    /'
}

# B= puts the fragment's output under $tmp, so build/ is left alone.
build_images() {
	${MAKE:-make} -s --no-print-directory -f tests/corrupt/corrupt.mk \
		B="$tmp" Q=@ corrupt-images >"$log" 2>&1 && return 0
	fail "make -f tests/corrupt/corrupt.mk corrupt-images"
	show_log
	exit 1
}

check_base() {
	e2fsck -fn "$dir/base.img" >"$log" 2>&1 || { fail "e2fsck -fn base.img: status $?"; show_log; }
	grep -Eq 'count wrong|differences' "$log" && { fail "e2fsck -fn base.img complains"; show_log; }
	for f in ok small big sparse dir/a dir/b dir/c; do
		debugfs -R "cat /$f" "$dir/base.img" 2>/dev/null | cmp -s - "$dir/stage/$f" ||
			fail "base.img: /$f differs from the staged file"
	done
	# mkfs -d must have kept the hole: a double-indirect block, 3 blocks in all.
	debugfs -R 'stat /sparse' "$dir/base.img" >"$log" 2>&1
	grep -q '(DIND)' "$log" && grep -q 'TOTAL: 3$' "$log" ||
		{ fail "base.img: /sparse is not sparse with a double-indirect block"; show_log; }
}

# check_kind KIND: e2fsck flags it; a feature kind must be refused as such.
check_kind() {
	img=$dir/$1.img
	[ -f "$img" ] || { fail "$1: no image"; return; }
	changed=$(cmp -l "$dir/base.img" "$img" | wc -l)
	[ "$changed" -ge 1 ] && [ "$changed" -le 4 ] || fail "$1: $changed bytes differ from base.img"
	e2fsck -fn "$img" >"$log" 2>&1
	status=$?
	[ $status -ne 0 ] || { fail "$1: e2fsck -fn finds nothing"; show_log; }
	case $1 in
	unknown-*) grep -q 'unsupported feature' "$log" ||
		{ fail "$1: e2fsck does not refuse the feature"; show_log; };;
	esac
	[ -n "$verbose" ] && echo "  $1: e2fsck status $status: $(first_complaint)"
}

# The first line of e2fsck's output that is neither its banner nor a pass name.
first_complaint() {
	grep -Ev '^(e2fsck [0-9]|Pass [0-9A-Z]+:|$|Running additional)' "$log" | head -n 1
}

# check_refused WHAT IN KIND: the tool exits 2 with a message, writes nothing.
check_refused() {
	tools/corrupt-image "$2" "$tmp/out.img" "$3" >"$log" 2>&1
	status=$?
	[ $status -eq 2 ] && grep -q '^corrupt-image: ' "$log" && [ ! -e "$tmp/out.img" ] ||
		{ fail "corrupt-image on $1: status $status, wanted 2 and no image"; show_log; }
}

check_tool() {
	check_refused "an unknown kind" "$dir/base.img" no-such-kind
	mkfs.ext2 -q -F -b 4096 -I 256 "$tmp/empty.img" 4M >/dev/null 2>&1
	check_refused "an empty file system" "$tmp/empty.img" rec-len-zero
	check_refused "a damaged image" "$dir/rec-len-zero.img" rec-len-overrun
	check_refused "a non-ext2 file" tests/corrupt/corrupt.mk bad-magic
}

# check_fuzz: the same (region, seed) gives the same bytes, another seed
# others; every region changes its image; a bad region or seed is refused.
check_fuzz() {
	base=$dir/fuzz-base.img
	for r in $(tools/corrupt-image --regions); do
		tools/corrupt-image fuzz "$base" "$tmp/f1.img" "$r" 7 >"$log" 2>&1 &&
			tools/corrupt-image fuzz "$base" "$tmp/f2.img" "$r" 7 >>"$log" 2>&1 &&
			tools/corrupt-image fuzz "$base" "$tmp/f3.img" "$r" 8 >>"$log" 2>&1 ||
			{ fail "fuzz $r: the tool failed"; show_log; continue; }
		cmp -s "$tmp/f1.img" "$tmp/f2.img" || fail "fuzz $r 7: two runs differ"
		cmp -s "$base" "$tmp/f1.img" && fail "fuzz $r 7: nothing changed"
		cmp -s "$tmp/f1.img" "$tmp/f3.img" && fail "fuzz $r: seeds 7 and 8 give one image"
	done
	tools/corrupt-image fuzz "$base" "$tmp/f4.img" no-such-region 1 >"$log" 2>&1
	[ $? -eq 2 ] && [ ! -e "$tmp/f4.img" ] || fail "fuzz: an unknown region was not refused"
}

build_images
kinds=$(tools/corrupt-image --list)
n=0
check_base
for kind in $kinds; do
	check_kind "$kind"
	n=$((n + 1))
done
# corrupt.mk's list and the tool's must agree: every image made is a kind
# (besides the two bases).
made=$(ls "$dir" | grep -c '\.img$')
[ "$made" -eq $((n + 2)) ] || fail "corrupt.mk made $((made - 2)) images, the tool has $n kinds"
check_fuzz
check_tool
[ $failed -eq 0 ] || exit 1
echo "host: corrupt images: $n kinds, each caught by e2fsck ok"
