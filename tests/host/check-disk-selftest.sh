#!/bin/sh
# check-disk-selftest.sh - the test of tools/check-disk, the judge of the
# disks the kernel leaves behind: a small image built by tools/mkimage with
# a matching manifest passes; a wrong hash, a missing file, an extra entry,
# a truncated or absent manifest, and a superblock whose free count is wrong
# (e2fsck -n exits 0 on that) each fail. Prints "host: check_disk ok" or
# "host: check_disk FAILED (...)" with check-disk's output; exits 1 then.
top=$(cd "$(dirname "$0")/../.." && pwd)
PATH="$PATH:/sbin:/usr/sbin"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "host: check_disk FAILED ($1)"
	[ -f "$tmp/out" ] && sed 's/^/    /' "$tmp/out"
	exit 1
}

# expect NAME STATUS TEXT IMAGE LOG [OPTION]: check-disk must exit STATUS
# and say TEXT, so that each bad case fails for its own reason.
expect() {
	name=$1; want=$2; text=$3; shift 3
	python3 "$top/tools/check-disk" "$@" >"$tmp/out" 2>&1
	got=$?
	[ "$got" = "$want" ] || fail "$name: status $got, wanted $want"
	grep -q -- "$text" "$tmp/out" || fail "$name: no line says '$text'"
}

# Contents whose FNV-1a 64 hashes are the published test vectors.
mkdir -p "$tmp/add/sub" "$tmp/extra/sub"
printf a >"$tmp/add/a"
printf foobar >"$tmp/add/sub/foobar"
: >"$tmp/add/sub/empty"
: >"$tmp/extra/sub/stray"
"$top/tools/mkimage" --free 1 --add "$tmp/add" "$tmp/disk.img" ||
	fail "mkimage"
"$top/tools/mkimage" --free 1 --add "$tmp/add" --add "$tmp/extra" \
	"$tmp/stray.img" || fail "mkimage with a second --add"

# The kernel prints its manifest through printk, after a prefix.
manifest() {
	echo "[    1.000000] cpu0: ktest: running ext2_workload"
	echo "[    1.100000] cpu0: manifest file /a 1 af63dc4c8601ec8c"
	echo "manifest file /sub/foobar 6 ${1:-85944171f73967e8}"
	echo "[    1.200000] cpu3: manifest file /sub/empty 0 cbf29ce484222325"
	echo "[    1.200001] cpu3: manifest dir /sub"
}
{ manifest; echo "manifest end 3 1"; } >"$tmp/good.log"
{ manifest 85944171f73967e9; echo "manifest end 3 1"; } >"$tmp/hash.log"
{ manifest; echo "manifest file /missing 3 a2f7ebc5a1e2b31c"
  echo "manifest end 4 1"; } >"$tmp/missing.log"
manifest >"$tmp/truncated.log"
echo "ok 1 something_else" >"$tmp/none.log"

expect good 0 "ok (e2fsck clean, 3 files and 1 dirs" \
	"$tmp/disk.img" "$tmp/good.log"
expect no_manifest_allowed 0 "manifest not checked" \
	"$tmp/disk.img" "$tmp/none.log" --no-manifest
expect wrong_hash 1 "file /sub/foobar: hash" "$tmp/disk.img" "$tmp/hash.log"
expect missing_file 1 "file /missing: missing" \
	"$tmp/disk.img" "$tmp/missing.log"
expect extra_entry 1 "dir /sub: entries not in the manifest: stray" \
	"$tmp/stray.img" "$tmp/good.log"
expect truncated_log 1 "no end line" "$tmp/disk.img" "$tmp/truncated.log"
expect no_manifest 1 "no manifest" "$tmp/disk.img" "$tmp/none.log"

# A wrong free count alone: e2fsck -n reports it yet exits 0.
cp "$tmp/disk.img" "$tmp/count.img"
debugfs -w -R "ssv free_blocks_count 7" "$tmp/count.img" >/dev/null 2>&1 ||
	fail "debugfs -w"
expect free_count_wrong 1 "count wrong" "$tmp/count.img" "$tmp/good.log"

echo "host: check_disk ok"
