# shellcheck shell=sh
# common.sh: what the scripts share, sourced by each (POSIX sh, checked with dash; not run on
# its own): scripts/boot-point.sh, bisect-step.sh, build-kernel.sh and cost.sh, and the test
# scripts through tests/lib/harness.sh. The sourcing script sets PROG (its name, as messages
# start) first. Inside:
#   messages     say, usage_error
#   options      opt_value (an option's value, checked), abs_path, make_dir
#   lifetime     lifetime_begin, run_child, start_child, wait_child, adopt, job_begin,
#                temp_file, temp_dir, temp_forget: whatever ends a script, even SIGKILL, what
#                it started stops and what it made goes
#   machines     host_arch, ARCHES, arch_set
#   the counter  COST_EVENTS
#   objects      objdir_moved
# Names that start with _ are this file's own.

# ---------------------------------------------------------------------------------------
# Messages.

# say MESSAGE: one stderr line, prefixed with the script's name (PROG).
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
# USAGE_EXIT: the exit code of a usage error: 2, unless the script must say it otherwise
# (bisect-step.sh: 128, as git bisect run reads 2 as "bad").
USAGE_EXIT=2
# usage_error MESSAGE: say it, with where help is, and exit USAGE_EXIT.
usage_error() {
	say "$* (try --help)"
	exit "$USAGE_EXIT"
}

# ---------------------------------------------------------------------------------------
# Options. Every script reads its options with read_options, its usage text a heredoc in
# usage(), its options in a table, a line an option (OPTION VAR CHECK: opt_value's CHECK, or
# `flag`, which sets VAR to 1 and takes no value), and what the table cannot say in its own
# option(), which also names a word that is no option:
#
#   option() {
#   	case $1 in
#   	--no-cost) cost=0 TOOK=1 ;;                  # a flag that sets something else
#   	*) usage_error "unknown argument '$1'" ;;
#   	esac
#   }
#   read_options '
#   --check   check   flag
#   --kernel  kernel  file
#   ' "$@"
#   shift "$OPTIONS_READ"                        # what follows `--`, if anything
#
# A path is made absolute as it is read, from the directory the script was started in, so a
# script may change directory later and every path still names what the user meant.

_nl='
'

# read_options TABLE "$@": the script's options, read in the one loop every script has: -h or
# --help prints usage() and exits 0, `--` ends them, an option of TABLE is read as its line
# says (opt_value VAR CHECK, or a flag), and every other word goes to the script's option()
# with the rest of the command line, which says how many words it took in TOOK (2 unless it
# says 1, a flag's). OPTIONS_READ: how many words were read (`--` among them), for the caller
# to shift.
read_options() {
	_ro_table=$1
	shift
	_ro_n=$#
	while [ $# -gt 0 ]; do
		case $1 in
		--)
			shift
			break
			;;
		-h | --help)
			usage
			exit 0
			;;
		esac
		_ro_var="" _ro_check=""
		while read -r _ro_opt _ro_v _ro_c; do
			if [ "$_ro_opt" = "$1" ]; then
				_ro_var=$_ro_v _ro_check=$_ro_c
				break
			fi
		done <<EOF
$_ro_table
EOF
		TOOK=2
		if [ -z "$_ro_var" ]; then
			option "$@"
		elif [ "$_ro_check" = flag ]; then
			set_var "$_ro_var" 1
			TOOK=1
		else
			opt_value "$_ro_var" "$_ro_check" "$@"
		fi
		shift "$TOOK"
	done
	# shellcheck disable=SC2034 # for the caller
	OPTIONS_READ=$((_ro_n - $#))
}

# opt_value VAR CHECK OPTION [VALUE]: OPTION's VALUE, checked, into the variable VAR; a usage
# error naming OPTION when the value is missing, holds a newline (a value is also a message,
# and a list item), or fails CHECK. Called with the option loop's "$@" (OPTION is its $1, the
# value its $2) or, for a default, with OPTION and the value. CHECK is one of:
#   text      any value
#   positive  a whole number from 1 to 999999999 (shell arithmetic stays exact)
#   path      a path, made absolute; it need not exist
#   file      a readable regular file, made absolute
#   exe       an executable regular file, made absolute
#   dir       an existing directory, made absolute
#   new_dir   a directory, made absolute, that exists or that make_dir can create (nothing in
#             the way is a file); it is not created here
#   new_file  made absolute: nothing there yet (never overwritten), in a directory that exists
opt_value() {
	_ov_var=$1 _ov_check=$2 _ov_opt=$3
	[ $# -ge 4 ] || usage_error "$_ov_opt: needs a value"
	_ov_v=$4
	case $_ov_v in *"$_nl"*) usage_error "$_ov_opt: a newline in a value" ;; esac
	case $_ov_check in
	text) ;;
	positive)
		case $_ov_v in
		'' | *[!0-9]* | 0* | ??????????*) usage_error "$_ov_opt: a positive number, not '$_ov_v'" ;;
		esac
		;;
	path | file | exe | dir | new_dir | new_file)
		[ -n "$_ov_v" ] || usage_error "$_ov_opt: an empty path"
		_ov_v=$(abs_path "$_ov_v")
		_opt_path "$_ov_check" "$_ov_opt" "$_ov_v"
		;;
	*)
		say "opt_value: no check '$_ov_check' (a bug in $PROG)"
		exit 70
		;;
	esac
	set_var "$_ov_var" "$_ov_v"
}

# set_var VAR VALUE: VALUE (one line) into the variable named VAR.
set_var() {
	IFS= read -r "$1" <<EOF
$2
EOF
}

# _opt_path CHECK OPTION PATH: PATH (absolute) as CHECK wants it, else a usage error.
_opt_path() {
	case $1 in
	file) { [ -f "$3" ] && [ -r "$3" ]; } || usage_error "$2: not a readable file: $3" ;;
	exe) { [ -f "$3" ] && [ -x "$3" ]; } || usage_error "$2: not an executable file: $3" ;;
	dir) [ -d "$3" ] || usage_error "$2: not a directory: $3" ;;
	new_dir)
		# The nearest part of PATH that exists must be a directory.
		_op_d=$3
		while [ ! -e "$_op_d" ] && [ ! -L "$_op_d" ]; do _op_d=$(dirname "$_op_d"); done
		[ -d "$_op_d" ] || usage_error "$2: not a directory: $_op_d"
		;;
	new_file)
		if [ -e "$3" ] || [ -L "$3" ]; then usage_error "$2: $3 exists (never overwritten)"; fi
		case $3 in */) usage_error "$2: a file name, not a directory: $3" ;; esac
		[ -d "$(dirname "$3")" ] || usage_error "$2: no such directory: $(dirname "$3")"
		;;
	esac
	return 0
}

# abs_path PATH: PATH from the current directory, as an absolute path (not resolved: a
# symlink stays one, and `..` is left to the kernel, which reads it as the relative path).
abs_path() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	.) printf '%s\n' "$PWD" ;;
	*) printf '%s/%s\n' "${PWD%/}" "${1#./}" ;;
	esac
}

# make_dir OPTION DIR: DIR (a new_dir option's value) created with its parents, or a usage
# error naming OPTION and why not.
make_dir() {
	_md_err=$(mkdir -p -- "$2" 2>&1) ||
		usage_error "$1: cannot create $2 (${_md_err##*: })"
	[ -w "$2" ] || usage_error "$1: $2 is not writable"
}

# ---------------------------------------------------------------------------------------
# Lifetime. Whatever ends a script (its end, a usage error, Ctrl-C, SIGTERM, SIGHUP, even
# SIGKILL), what it started stops and what it made for itself goes:
# - lifetime_begin makes SCRATCH, the script's own directory (under TMPDIR), and starts its
#   guardian: a small process that waits, and when the script is gone (it sends the
#   guardian SIGURG at its end; the kernel sends it when the script dies, whatever killed
#   it: setpriv --pdeathsig) stops the child and removes SCRATCH and every temp_file and
#   temp_dir.
#   SIGURG because its default action is to be ignored: one that comes before the guardian
#   is ready is lost, not fatal, and the guardian, once ready, looks for itself whether its
#   parent is still the script.
# - run_child runs the script's one long command (a build, a boot) in a process group of
#   its own under timeout(1), which dies with the script too (--pdeathsig TERM: timeout
#   then sends the group SIGTERM, and SIGKILL LIFETIME_GRACE seconds later), and the
#   command with timeout (--pdeathsig KILL, should timeout itself be killed). start_child
#   starts such a child in the background (several may run at once: scripts/ab.sh builds
#   and boots in parallel); wait_child collects it.
# - INT, TERM and HUP end the script with 130 and one line naming the signal, at once: the
#   script waits for its child with wait(1), which a trapped signal interrupts (a shell
#   runs a trap only once a foreground command has ended; a boot can take minutes).
# - But a shell cannot trap a signal that was ignored when it started (POSIX), and a
#   non-interactive shell starts its background jobs with SIGINT ignored: a script started
#   so (`boot-point.sh ... &` in another script, `nohup boot-point.sh ... &` from one) is
#   not stopped by Ctrl-C, and says so in one line as it begins when its stderr is a
#   terminal. SIGTERM and SIGHUP still end it, and stop everything it started.
# Nothing the user named is made through this: a file the user named is written beside
# itself as a temp_file and linked into place whole.

# Seconds a stopped child has between SIGTERM and SIGKILL (make deletes its half-written
# targets on SIGTERM, QEMU ends at once).
LIFETIME_GRACE=5
SCRATCH="" _lt_guardian="" _lt_children="" _lt_list="" _lt_inherited=""

# shellcheck disable=SC2016 # expanded by the guardian's sh -c
# The guardian, run by sh -c with SCRATCH, the grace and the script's pid. SIGURG: the
# script is gone (or done). It ignores the terminal's signals, which reach the script's
# whole process group, so it is there to clean up after them. .ready says the trap is set.
_LT_GUARDIAN='scratch=$1 grace=$2 owner=$3
# alive PID: running, not a zombie that its new parent has yet to reap.
alive() {
	state=$(cut -d " " -f 3 "/proc/$1/stat" 2>/dev/null) && [ "$state" != Z ] && [ "$state" != X ]
}
gone() {
	# Every shell of the script keeps a list: the script its own, each job it
	# runs in the background (a chain of steps) its own.
	cat "$scratch"/.children* >"$scratch/.all" 2>/dev/null || true
	if [ -s "$scratch/.all" ]; then
		while read -r child; do kill -TERM "$child" 2>/dev/null; done <"$scratch/.all"
		n=$((grace * 10 + 20))
		while [ "$n" -gt 0 ]; do
			left=0
			while read -r child; do alive "$child" && left=1; done <"$scratch/.all"
			[ "$left" = 1 ] || break
			sleep 0.1
			n=$((n - 1))
		done
	fi
	if [ -f "$scratch/.temps" ]; then
		while IFS= read -r f; do rm -rf -- "$f"; done <"$scratch/.temps"
	fi
	rm -rf -- "$scratch"
	# The nap: $!, set as soon as it is started (a trap may come before the next line);
	# SIGKILL, as it ignores what the guardian ignores; waited for, so that it has gone
	# when the guardian has.
	if [ -n "${!:-}" ]; then
		kill -KILL "$!" 2>/dev/null
		wait "$!"
	fi
	exit 0
}
trap gone URG
trap "" INT TERM HUP QUIT
: >"$scratch/.ready"
# Gone already, its signal lost: the parent is no longer the script.
[ "$(cut -d " " -f 4 "/proc/$$/stat")" = "$owner" ] || gone
while :; do
	sleep 1 &
	wait "$!"
done'

# lifetime_begin NAME: SCRATCH made (uring-repro-NAME.UUID), the guardian started, the
# traps set. Status 1 after a line saying why when it cannot be (no setpriv:
# the caller exits with its own code for a missing tool).
lifetime_begin() {
	command -v setpriv >/dev/null 2>&1 || {
		say "setpriv not found (util-linux 2.33 or later): it makes a boot or a build end with this script"
		return 1
	}
	# fd 9: the script's stderr, for the line a signal ends it with (a trap runs with the
	# redirections of the command it interrupts: run_child's, to a log).
	exec 9>&2
	# The traps first: a signal that comes while SCRATCH is made (a script stopped as it
	# starts) still removes it.
	trap _lifetime_end EXIT
	trap '_lifetime_signal INT' INT
	trap '_lifetime_signal TERM' TERM
	trap '_lifetime_signal HUP' HUP
	# Its name is known before it is made (a random one, read from the kernel without a
	# process): a signal to the process group that kills the making (mkdir; mktemp could
	# make it and die before it printed the name) leaves nothing the EXIT trap cannot find.
	if read -r _lt_id </proc/sys/kernel/random/uuid 2>/dev/null; then
		SCRATCH=${TMPDIR:-/tmp}/uring-repro-$1.$_lt_id
		mkdir -m 700 -- "$SCRATCH" 2>/dev/null || SCRATCH=""
	else
		SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/uring-repro-$1.XXXXXX") || SCRATCH=""
	fi
	[ -n "$SCRATCH" ] || {
		say "cannot make a directory in ${TMPDIR:-/tmp}"
		return 1
	}
	_lt_list=$SCRATCH/.children
	# The INT trap not taken (above, "Lifetime"): said on a terminal, where someone may press
	# Ctrl-C; a background run's log is left as it was.
	if [ -t 2 ] && _lifetime_sigint_ignored; then
		say "started with SIGINT ignored (a script's background job?): Ctrl-C will not stop it;" \
			"SIGTERM or SIGHUP will"
	fi
	setpriv --pdeathsig URG -- sh -c "$_LT_GUARDIAN" guardian "$SCRATCH" \
		"$LIFETIME_GRACE" "$$" </dev/null >/dev/null 2>&1 9>&- &
	_lt_guardian=$!
}

# _lifetime_begun NAME: NAME (a function of the lifetime) is called after lifetime_begin.
_lifetime_begun() {
	[ -n "$SCRATCH" ] || {
		say "$1 before lifetime_begin (a bug in $PROG)"
		exit 70
	}
}

# _lifetime_sigint_ignored: the shell ignores SIGINT still, its trap not taken (it was
# ignored when the shell started). SigIgn in /proc/PID/status is a mask in hex, SIGINT its
# bit 1: the last digit is one of 2 3 6 7 a b e f.
_lifetime_sigint_ignored() {
	_si_mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$$/status" 2>/dev/null) || return 1
	case $_si_mask in *[2367abefABEF]) return 0 ;; esac
	return 1
}

_lifetime_signal() {
	say "interrupted by SIG$1" 2>&9
	exit 130
}

# The EXIT trap: the child stopped, then the guardian (once ready) told to clean up, and
# waited for (so nothing of the script is left when it has ended). Signals are ignored
# meanwhile: the cleanup is short (LIFETIME_GRACE at most).
_lifetime_end() {
	trap '' INT TERM HUP
	_lifetime_stop_child
	if [ -z "$_lt_guardian" ]; then
		# Stopped before the guardian started: SCRATCH, if made, is all there is.
		[ -z "$SCRATCH" ] || rm -rf -- "$SCRATCH"
		return 0
	fi
	while [ ! -e "$SCRATCH/.ready" ] && kill -0 "$_lt_guardian" 2>/dev/null; do sleep 0.01; done
	kill -URG "$_lt_guardian" 2>/dev/null || true
	# Waited for until it has gone: a signal the script traps (ab.sh's jobs tell it they
	# ended with USR1) ends a wait early.
	while kill -0 "$_lt_guardian" 2>/dev/null; do wait "$_lt_guardian" 2>/dev/null || true; done
	# A guardian killed before it was ready (a signal to the whole process group, as
	# timeout(1) sends one, comes before its traps are set) cleaned nothing: the script does.
	[ ! -d "$SCRATCH" ] || _lifetime_clean
}

# _lifetime_clean: what the guardian removes, removed (every temp_file and temp_dir, then
# SCRATCH).
_lifetime_clean() {
	if [ -f "$SCRATCH/.temps" ]; then
		while IFS= read -r _lc_f; do rm -rf -- "$_lc_f"; done <"$SCRATCH/.temps"
	fi
	rm -rf -- "$SCRATCH"
}

# stop_children: every child start_child started and wait_child has not collected, stopped
# (SIGTERM to its timeout(1), which stops its process group) and collected.
stop_children() { _lifetime_stop_child; }

_lifetime_stop_child() {
	# The last child started, should a signal have come between its start and its adoption
	# (start_child): $! names it, unless it is the guardian or a job's inherited value.
	_sc_last=${!:-}
	if [ -n "$_sc_last" ] && [ "$_sc_last" != "$_lt_guardian" ] && [ "$_sc_last" != "$_lt_inherited" ]; then
		case " $_lt_children " in *" $_sc_last "*) ;; *) _lt_children="$_lt_children $_sc_last" ;; esac
	fi
	for _sc_pid in $_lt_children; do kill -TERM "$_sc_pid" 2>/dev/null || true; done
	for _sc_pid in $_lt_children; do wait "$_sc_pid" 2>/dev/null || true; done
	_lt_children=""
	rm -f -- "$_lt_list"
}

# run_child [--timeout S] COMMAND...: COMMAND run to its end (after lifetime_begin), its
# status returned: in a process group of its own under timeout(1) (S seconds, then SIGTERM,
# then SIGKILL LIFETIME_GRACE seconds later: timeout's 124 or 137; without --timeout, no
# limit). A signal to the script stops it and ends the script (130); the script's death
# stops it too. Redirections of the call apply to COMMAND; its stdin is /dev/null unless
# redirected.
run_child() {
	start_child "$@"
	wait_child "$CHILD"
}

# start_child [--timeout S] COMMAND...: run_child's COMMAND started in the background, its
# pid (timeout's) in CHILD; stopped as run_child's is, whatever ends the script. Collect it
# with wait_child once child_running says it has ended (or to wait for it).
start_child() {
	_lifetime_begun start_child
	_rc_limit=0
	if [ "$1" = --timeout ]; then
		_rc_limit=$2
		shift 2
	fi
	setpriv --pdeathsig TERM -- timeout -k "$LIFETIME_GRACE" "$_rc_limit" \
		setpriv --pdeathsig KILL -- "$@" 9>&- &
	CHILD=$!
	adopt "$CHILD"
}

# adopt PID: a job of the script's own (a subshell started with &, a chain of steps) stopped
# as start_child's children are, whatever ends the script: sent SIGTERM, which ends a shell
# job at once (a job's own children then stop too: their parent is gone). Collect it with
# wait_child.
adopt() {
	_lifetime_begun adopt
	_lt_children="$_lt_children $1"
	printf '%s\n' "$1" >>"$_lt_list"
}

# job_begin NAME: the start of a job's body (in the subshell): its children are its own,
# kept in a list of its own (the guardian reads every list), so that jobs that run at once
# never write one list. SIGTERM or SIGHUP (the script's, as it ends) stops the job's child
# and ends the job once the child has ended; should the job die otherwise, its child stops
# too (setpriv --pdeathsig: the job is its parent).
job_begin() {
	_lt_children="" _lt_inherited=${!:-}
	_lt_list=$SCRATCH/.children-$1
	: >"$_lt_list"
	trap - EXIT
	trap '_lifetime_stop_child; exit 143' TERM HUP
}

# wait_child PID: start_child's child PID waited for, its status returned.
wait_child() {
	_wc_status=0
	wait "$1" || _wc_status=$?
	_wc_left=""
	for _wc_pid in $_lt_children; do [ "$_wc_pid" = "$1" ] || _wc_left="$_wc_left $_wc_pid"; done
	_lt_children=$_wc_left
	for _wc_pid in $_lt_children; do printf '%s\n' "$_wc_pid"; done >"$_lt_list"
	return "$_wc_status"
}

# child_running PID: start_child's child PID has not ended yet (a child that has ended is a
# zombie until wait_child collects it, so kill -0 cannot tell).
child_running() {
	_cr_state=$(cut -d " " -f 3 "/proc/$1/stat" 2>/dev/null) && [ "$_cr_state" != Z ] &&
		[ "$_cr_state" != X ]
}

# temp_file VAR TEMPLATE: a new empty file made by mktemp(1) from TEMPLATE (a path ending in
# XXXXXX; its directory need not be SCRATCH), its path into VAR, removed when the script
# ends (temp_forget keeps it). Status 1 when it cannot be made (the caller says why).
temp_file() {
	_lifetime_begun temp_file
	_tf_path=$(mktemp "$2" 2>/dev/null) || return 1
	printf '%s\n' "$_tf_path" >>"$SCRATCH/.temps"
	set_var "$1" "$_tf_path"
}

# temp_dir VAR TEMPLATE: temp_file's directory: a new empty directory (mktemp -d), removed
# with what it holds when the script ends (temp_forget keeps it). A directory the user
# named is made in one beside it and renamed into place whole.
temp_dir() {
	_lifetime_begun temp_dir
	_tf_path=$(mktemp -d "$2" 2>/dev/null) || return 1
	printf '%s\n' "$_tf_path" >>"$SCRATCH/.temps"
	set_var "$1" "$_tf_path"
}

# temp_forget PATH: a temp_file or temp_dir kept after all (the script names it to the user).
temp_forget() {
	_tk_left=$(grep -vxF -- "$1" "$SCRATCH/.temps") || true
	printf '%s\n' "$_tk_left" | sed '/^$/d' >"$SCRATCH/.temps"
}

# ---------------------------------------------------------------------------------------
# Machines.

# host_arch: this machine's architecture, in the names --arch takes.
host_arch() {
	case $(uname -m) in
	x86_64 | amd64) echo x86_64 ;;
	aarch64 | arm64) echo aarch64 ;;
	riscv64) echo riscv64 ;;
	*) uname -m ;;
	esac
}

# The architectures --arch takes, as an error names them.
# shellcheck disable=SC2034 # for the sourcing script
ARCHES='x86_64, aarch64 or riscv64'

# arch_set ARCH: what ARCH is to the scripts, as variables; status 1 for one not in ARCHES.
#   triple   the Rust target of its uring-repro build (empty: this machine's own)
#   console  the guest's serial console under QEMU
#   machine  QEMU's -M (empty: QEMU's default); bios: its -bios (empty: none)
#   karch    the kernel's ARCH=; kimage: the image its build leaves, under the objdir
# shellcheck disable=SC2034 # for the sourcing script
arch_set() {
	case $1 in
	x86_64)
		triple="" console=ttyS0 machine="" bios=""
		karch=x86 kimage=arch/x86/boot/bzImage
		;;
	aarch64)
		triple=aarch64-unknown-linux-musl console=ttyAMA0 machine=virt bios=""
		karch=arm64 kimage=arch/arm64/boot/Image
		;;
	riscv64)
		# -bios default: QEMU's OpenSBI runs in M-mode and enters the kernel.
		triple=riscv64gc-unknown-linux-gnu console=ttyS0 machine=virt bios=default
		karch=riscv kimage=arch/riscv/boot/Image
		;;
	*) return 1 ;;
	esac
}

# ---------------------------------------------------------------------------------------
# The cost counter.

# COST_EVENTS: the kernel functions whose entries the counter counts unless told otherwise
# (cost.sh --events, boot-point.sh --events, ab.sh --events), colon-separated as the
# plugin's events= takes them; why each: docs/cost.md, "Events".
# shellcheck disable=SC2034 # for the sourcing script
COST_EVENTS=__schedule:try_to_wake_up:create_io_worker:do_exit:io_wq_worker_sleeping:task_work_run:native_smp_send_reschedule:native_send_call_func_single_ipi:__sysvec_apic_timer_interrupt:do_idle

# ---------------------------------------------------------------------------------------
# Kernel object directories.

# objdir_moved WAS OBJDIR: OBJDIR, a copy (cp -a) of the built object directory WAS, made to
# name its own tree. kbuild builds its host tools (objtool and its libsubcmd) with absolute
# paths, of their sources and of their objects, and their .cmd files keep the command that
# built each: naming WAS's tree, make would rebuild them for the new name alone, and relink
# vmlinux after them (15 s and more a copy). Only those names change, in OBJDIR/tools: the
# directory holding WAS becomes the one holding OBJDIR (each inside its kernel tree, as
# build-kernel.sh's default puts it), both as kbuild resolves them (pwd -P).
objdir_moved() {
	_om_was=$(cd -- "$1/.." 2>/dev/null && pwd -P) || return 0
	_om_now=$(cd -- "$2/.." && pwd -P) || return 1
	[ "$_om_was" != "$_om_now" ] && [ -d "$2/tools" ] || return 0
	grep -rlF --include='.*.cmd' -e "$_om_was/" -- "$2/tools" | while IFS= read -r _om_f; do
		awk -v a="$_om_was/" -v b="$_om_now/" '{
				out = ""; s = $0
				while ((i = index(s, a)) > 0) { out = out substr(s, 1, i - 1) b; s = substr(s, i + length(a)) }
				print out s
			}' "$_om_f" >"$_om_f.moved" && mv -f -- "$_om_f.moved" "$_om_f" || return 1
	done
}
