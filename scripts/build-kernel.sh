#!/bin/sh
# build-kernel.sh: a kernel tree -> the smallest x86_64 image that boots uring-repro's
# initramfs and runs every profile. `make tinyconfig`, then the fragment
# (kernel/uring-repro.config, each option with what needs it) merged with the tree's own
# scripts/kconfig/merge_config.sh, then `make olddefconfig`; every option the fragment asks
# for must have survived, else it fails naming the option. Then `make bzImage`.
#
# The object directory is kept (--objdir): the next build in it, from the next commit of a
# bisect or from a patched copy of the tree, only recompiles what changed. By default it is
# a subdirectory of the tree, so kbuild writes every path relative to the tree ("..") and a
# copy of tree and objdir together still builds incrementally.
#
# The image is reproducible: kbuild stamps the build's number, time, user and host into the
# kernel (uname -v, /proc/version), and they are fixed here unless the caller sets them, so
# two builds of one source are the same image byte for byte. Under QEMU's instruction clock
# that matters: another image is another boot (its decompression alone), so the ticks fall
# elsewhere in the rounds and a rebuild's point moved by up to 0.01 instructions per pair.
#
# Prints the image's path on stdout; make's own output goes to stderr. As a bisect step:
#   bisect-step.sh --build '/path/to/build-kernel.sh' --image .uring-repro-obj/arch/x86/boot/bzImage
#
# Ctrl-C, SIGTERM or SIGHUP stop make at once (it removes what it was writing) and end the
# script with 130; make does not outlive the script, even one killed by SIGKILL
# (scripts/common.sh, "Lifetime").
# Ctrl-C does not reach one started with SIGINT ignored (a script's background job): it
# says so on a terminal; SIGTERM or SIGHUP then.
#
# POSIX sh (checked with dash). Needs make, gcc, flex, bison, bc, and the headers of
# libelf and libssl (Debian: build-essential flex bison bc libelf-dev libssl-dev), and
# util-linux's setpriv(1).
set -eu

PROG=build-kernel.sh
# Defaults, named so --help and the code agree.
DEFAULT_OBJDIR=.uring-repro-obj # inside the tree: kbuild then uses relative paths
DEFAULT_FRAGMENT=kernel/uring-repro.config # in this checkout
# Exit codes: the build failed for this tree (a bisect skips the commit) or cannot start.
FAILED=1 USAGE=2

usage() {
	cat <<EOF
usage: $PROG [--src DIR] [--objdir DIR] [--fragment FILE] [--arch x86_64] [--jobs N]

Builds the kernel in DIR for uring-repro: tinyconfig + FILE, olddefconfig, a check that
every option of FILE survived, then the image. Prints the image's path on stdout. The
objdir's configuration is kept when nothing it was made from changed (FILE, the tree's
Kconfig files and scripts, the compiler and linker) and its .config is as it was made.

  --src DIR        the kernel tree (default: the current directory, as in git bisect run)
  --objdir DIR     the object directory, kept for the next build (default:
                   DIR/$DEFAULT_OBJDIR; a subdirectory of the tree keeps kbuild's paths
                   relative, so a copy of tree and objdir rebuilds incrementally)
  --fragment FILE  the config fragment merged on top of tinyconfig (default: this
                   checkout's $DEFAULT_FRAGMENT)
  --arch A         the image's architecture; only x86_64 (bzImage) for now
  --jobs N         make -jN (default: the number of online CPUs, $(ncpus))
  -h, --help       this text

Paths are taken from the directory it is started in.

exit: 0 built (the path on stdout); $FAILED the configuration or the build failed (the
      reason on stderr: a fragment option the tree does not know or that did not survive
      olddefconfig, or make's error); $USAGE a usage error, DIR is not a kernel tree, a
      build tool is missing, or the objdir cannot be made or cleared of the last image;
      130 interrupted (SIGINT, SIGTERM, SIGHUP: make stopped).
EOF
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, read_options, the lifetime, arch_set: what the scripts share.
# shellcheck source=common.sh
. "$HERE/common.sh"
ncpus() { getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }

src=$PWD objdir="" fragment=$REPO/$DEFAULT_FRAGMENT arch=x86_64 jobs=$(ncpus)
option() { usage_error "unknown argument '$1'"; }
read_options '
--src       src       dir
--objdir    objdir    new_dir
--fragment  fragment  file
--arch      arch      text
--jobs      jobs      positive
' "$@"
shift "$OPTIONS_READ"
[ $# -eq 0 ] || usage_error "unknown argument '$1'"

case $arch in
x86_64) ;;
aarch64 | riscv64)
	usage_error "--arch $arch: not supported yet (it needs a cross compiler and a fragment with that arch's console and power-off); x86_64 only"
	;;
*) usage_error "--arch: x86_64, not '$arch'" ;;
esac
arch_set "$arch"
image=$kimage target=${kimage##*/}
# A kernel tree: the top Makefile names the version, and the tree has kbuild's merge tool.
if ! grep -q '^VERSION = [0-9]' "$src/Makefile" 2>/dev/null ||
	! grep -q '^PATCHLEVEL = [0-9]' "$src/Makefile" ||
	[ ! -f "$src/scripts/kconfig/merge_config.sh" ] || [ ! -d "$src/arch/$karch" ]; then
	say "$src is not a kernel tree (no top Makefile with VERSION and PATCHLEVEL, scripts/kconfig/merge_config.sh or arch/$karch)"
	exit $USAGE
fi
for tool in make gcc flex bison bc; do
	command -v "$tool" >/dev/null 2>&1 || {
		say "$tool not found (Debian: build-essential flex bison bc libelf-dev libssl-dev)"
		exit $USAGE
	}
done
objdir=${objdir:-$src/$DEFAULT_OBJDIR}
make_dir --objdir "$objdir"
# A failed configuration or build must not leave the previous build's image where the
# caller looks: one that cannot go stops the build before it starts.
if ! err=$(rm -f -- "$objdir/$image" 2>&1); then
	say "--objdir: cannot remove the last build's image $objdir/$image (${err##*: }): it would be taken for this build's; nothing built"
	exit $USAGE
fi
# From here on, whatever ends the script (Ctrl-C and SIGKILL too) stops make.
lifetime_begin build-kernel || exit $USAGE

# The build's stamps, fixed (a caller's own values win).
: "${KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970}" "${KBUILD_BUILD_VERSION=1}"
: "${KBUILD_BUILD_USER=uring-repro}" "${KBUILD_BUILD_HOST=uring-repro}"
export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_VERSION KBUILD_BUILD_USER KBUILD_BUILD_HOST
kmake() { run_child make -C "$src" O="$objdir" ARCH="$karch" "$@" >&2; }

# The configuration, from scratch: the same tree and fragment always give the same .config,
# and kbuild recompiles only what a changed option touches. Kconfig reads only the tree's
# Kconfig files, its *.config fragments (tinyconfig's), its scripts (the $(shell,...) probes
# of the compiler and linker), the top and arch Makefiles, the tools those probes run and
# the environment kbuild takes them from. When all of that and the fragment are the same as
# at the last configuration in this objdir, and its .config is still the one that
# configuration wrote, configuring again gives the same .config: it is kept, which saves
# three runs of the top Makefile (15 s or more) on every step of a series or a bisect.
# config_inputs: one hash of everything the configuration reads.
config_inputs() {
	(
		printf 'fragment %s\narch %s\n' "$(sha256sum <"$fragment")" "$karch"
		env | LC_ALL=C grep -E '^(ARCH|SRCARCH|SUBARCH|CROSS_COMPILE|CC|HOSTCC|HOSTCXX|LD|HOSTLD|AS|AR|NM|OBJCOPY|OBJDUMP|READELF|STRIP|LLVM[A-Z_]*|LLVM|CLANG[A-Z_]*|RUSTC|BINDGEN|PAHOLE|KCONFIG_[A-Z_]*)=' |
			LC_ALL=C sort
		for t in make gcc ld as pahole rustc bindgen clang; do
			if p=$(command -v "$t"); then
				printf 'tool %s %s %s\n' "$t" "$p" "$("$t" --version 2>&1 | head -n 1)"
			fi
		done
		# Not a .config: an objdir's own (this one's may be inside the tree), not an input.
		cd "$src" &&
			find . -type f ! -name .config \( -name 'Kconfig*' -o -name '*.config' -o -path './scripts/*' \
				-o -path ./Makefile -o -path "./arch/$karch/Makefile" \) -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum
	) | sha256sum | cut -d' ' -f1
}
config_sum() { sha256sum <"$objdir/.config" | cut -d' ' -f1; }
stamp=$objdir/.uring-repro-config # the inputs' hash, then the .config's it gave
made_config=""
start=$(date +%s)
inputs=$(config_inputs)
if [ -f "$stamp" ] && [ -f "$objdir/.config" ] &&
	[ "$(cat "$stamp")" = "$(printf '%s\n%s' "$inputs" "$(config_sum)")" ]; then
	say "configuration of $objdir kept: the same Kconfig files, scripts, tools and $fragment as when it was made"
else
	rm -f "$stamp"
	say "configuring $src in $objdir: tinyconfig + $fragment"
	kmake -s tinyconfig || {
		say "make tinyconfig failed in $src"
		exit $FAILED
	}
	(cd "$objdir" && sh "$src/scripts/kconfig/merge_config.sh" -m -O "$objdir" "$objdir/.config" "$fragment") >"$objdir/merge_config.log" 2>&1 || {
		say "merge_config.sh failed (its log: $objdir/merge_config.log)"
		exit $FAILED
	}
	kmake -s olddefconfig || {
		say "make olddefconfig failed in $src"
		exit $FAILED
	}
	made_config=1
fi

# Every option of the fragment must be in .config as asked. One that is not was either
# unknown to this tree (no Kconfig symbol: olddefconfig drops it) or not allowed by its
# dependencies (olddefconfig leaves it unset, or out when it is not even offered).
# known SYMBOL: a Kconfig file of the tree (not the objdir's copies) defines it.
known() {
	grep -rqsE --include='Kconfig*' --exclude-dir="$(basename "$objdir")" \
		"^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*\$" "$src"
}
bad=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	CONFIG_*=*) sym=${line%%=*} want=$line ;;
	'# CONFIG_'*' is not set') sym=${line#\# } sym=${sym%% *} want=$line ;;
	*) continue ;;
	esac
	grep -qxF -- "$want" "$objdir/.config" && continue
	bad=$((bad + 1))
	if ! known "${sym#CONFIG_}"; then
		say "$sym: $src does not know this option (no Kconfig defines ${sym#CONFIG_}); asked by $fragment"
	else
		got=$(grep -E "^($sym=|# $sym is not set)" "$objdir/.config") || got="no line for it"
		say "$sym: asked '$want', olddefconfig left '$got' (its dependencies do not allow it: see its Kconfig entry)"
	fi
done <"$fragment"
[ "$bad" -eq 0 ] || {
	say "$bad option(s) of $fragment did not survive olddefconfig; nothing built"
	exit $FAILED
}
# Written only now, whole: a configuration cut short or refused leaves no stamp.
[ -z "$made_config" ] || printf '%s\n%s\n' "$inputs" "$(config_sum)" >"$stamp"

say "building $target with -j$jobs"
kmake -j"$jobs" "$target" || {
	say "make $target failed (make's output above)"
	exit $FAILED
}
[ -f "$objdir/$image" ] || {
	say "make $target succeeded but left no $objdir/$image"
	exit $FAILED
}
say "$objdir/$image: $(wc -c <"$objdir/$image") bytes, $(($(date +%s) - start)) s"
printf '%s\n' "$objdir/$image"
