#!/usr/bin/env bash
# mkinitramfs.sh BINARY OUTPUT — write a one-program initramfs (newc cpio, uncompressed):
#   /dev  /dev/console (char 5:1)  /proc  /sys  /init (mode 0755, a copy of BINARY)
#
# Why write the format here instead of calling cpio(1): cpio would need a staging tree with
# a real /dev/console node (mknod, so root), and one more package. newc is tiny: per entry a
# 110-byte ASCII header ("070701" + 13 eight-digit hex fields), the NUL-terminated name
# padded so header+name is a multiple of 4, then the data padded to a multiple of 4; the
# archive ends with an entry named "TRAILER!!!". Timestamps and owners are 0 so the same
# binary always gives the same bytes.
#
# Usable on its own for bare test boxes: boot any kernel with `initrd=` pointing at OUTPUT
# and pass the program's arguments after `--` on the kernel command line.
set -euo pipefail

die() { printf 'mkinitramfs.sh: %s\n' "$*" >&2; exit 2; }

# newc_pad N: write N NUL bytes (N < 4).
newc_pad() {
	local n=$1
	while ((n-- > 0)); do printf '\0'; done
}

# newc_entry INO MODE RDEV_MAJOR RDEV_MINOR SIZE NAME: header + name + name padding.
# The caller writes SIZE data bytes and newc_pad $(((4 - SIZE % 4) % 4)) after it.
newc_entry() {
	local ino=$1 mode=$2 rmaj=$3 rmin=$4 size=$5 name=$6
	local namesize=$((${#name} + 1)) nlink=1
	# A directory has nlink 2 ("." and its entry in the parent), as cpio writes it.
	(((mode & 0170000) == 0040000)) && nlink=2
	# Fields: magic ino mode uid gid nlink mtime filesize devmajor devminor
	#         rdevmajor rdevminor namesize check
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$ino" "$mode" 0 0 "$nlink" 0 "$size" 0 0 "$rmaj" "$rmin" "$namesize" 0
	printf '%s\0' "$name"
	newc_pad $(((4 - (110 + namesize) % 4) % 4))
}

# mkinitramfs BINARY OUTPUT: the archive described at the top of this file.
mkinitramfs() {
	local bin=$1 out=$2 size
	[[ -f $bin && -r $bin ]] || die "not a readable file: $bin"
	size=$(stat -L -c %s -- "$bin")
	{
		newc_entry 1 $((0040755)) 0 0 0 dev
		newc_entry 2 $((0020600)) 5 1 0 dev/console
		newc_entry 3 $((0040755)) 0 0 0 proc
		newc_entry 4 $((0040755)) 0 0 0 sys
		newc_entry 5 $((0100755)) 0 0 "$size" init
		cat -- "$bin"
		newc_pad $(((4 - size % 4) % 4))
		newc_entry 0 0 0 0 0 'TRAILER!!!'
	} >"$out.tmp.$$"
	# Rename into place so a reader never sees a half-written archive.
	mv -f -- "$out.tmp.$$" "$out"
}

# Run only when executed, so run.sh can source this file for the function.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	[[ $# -eq 2 ]] || die "usage: mkinitramfs.sh BINARY OUTPUT"
	mkinitramfs "$1" "$2"
fi
