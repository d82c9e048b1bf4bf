#!/bin/sh
# install-deps.sh - install the Debian packages Roundabout's build and tests need.
# Idempotent: does nothing when every tool is already present.
# Usage: tools/install-deps.sh [--bench] [--help]
set -e
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
case "${1:-}" in
-h|--help) echo "usage: tools/install-deps.sh [--bench]   (installs gcc nasm grub xorriso mtools qemu gdb tmux socat musl e2fsprogs python3 clang spin valgrind busybox-static;"
	echo "  --bench: what only make bench needs: Debian's kernel (linux-image-amd64, the peer"
	echo "  that tools/bench-linux boots), zstd for its modules, gnuplot-nox for the plots)"; exit 0;;
--bench)
	# The kernel lands in /boot and /lib/modules; no boot loader is touched.
	pkgs=""
	ls /boot/vmlinuz-* >/dev/null 2>&1 || pkgs="linux-image-amd64"
	command -v zstd >/dev/null 2>&1 || pkgs="$pkgs zstd"
	command -v gnuplot >/dev/null 2>&1 || pkgs="$pkgs gnuplot-nox"
	[ -n "$pkgs" ] || exit 0
	echo "install-deps: installing:$pkgs"
	$SUDO apt-get update -q
	$SUDO apt-get install -y -q --no-install-recommends $pkgs
	exit 0;;
esac

# tool -> package that provides it
need="gcc:gcc nasm:nasm grub-mkrescue:grub-common xorriso:xorriso mformat:mtools
qemu-system-x86_64:qemu-system-x86 gdb:gdb tmux:tmux socat:socat musl-gcc:musl-tools mkfs.ext2:e2fsprogs
e2fsck:e2fsprogs python3:python3 make:make clang:clang spin:spin valgrind:valgrind"
missing=""
for pair in $need; do
	tool=${pair%%:*}; pkg=${pair#*:}
	PATH="$PATH:/sbin:/usr/sbin" command -v "$tool" >/dev/null 2>&1 || missing="$missing $pkg"
done
# grub-mkrescue needs the BIOS platform files to make a bootable ISO.
[ -d /usr/lib/grub/i386-pc ] || missing="$missing grub-pc-bin"
# The host tests run under ThreadSanitizer, whose runtime comes apart from clang.
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.tsan-x86_64.a >/dev/null 2>&1 ||
	missing="$missing libclang-rt-14-dev"
# tools/gen-unistd reads the system-call numbers from Linux's own header.
[ -f /usr/include/x86_64-linux-gnu/asm/unistd_64.h ] || missing="$missing linux-libc-dev"
# The busybox comparison test runs Debian's static busybox (/bin/busybox)
# on the host and in the guest; the dynamic 'busybox' package will not do.
dpkg -s busybox-static >/dev/null 2>&1 || missing="$missing busybox-static"
[ -n "$missing" ] || exit 0

echo "install-deps: installing:$missing"
$SUDO apt-get update -q
# grub-pc-bin only ships the i386-pc files; it does not touch the host's boot loader.
$SUDO apt-get install -y -q --no-install-recommends $missing
