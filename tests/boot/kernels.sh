# Sourced by tests/boot/run.sh (bash; not run on its own): fetching the Debian kernels its
# cases boot. Uses its CACHE, SLOT_* and DEBARCH_* tables and tests/lib/harness.sh.

# Kernels. Each Debian architecture gets a private apt state under $CACHE/apt/ARCH, so the
# host's apt lists are neither needed nor touched, and arm64 works without
# `dpkg --add-architecture` (APT::Architecture makes arm64 the "native" arch for that call).
APT_OPTS=()
set_apt_opts() {
	local arch=$1 dir=$CACHE/apt/$1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	# An empty dpkg status: nothing is "installed" for this private view.
	[[ -e $dir/status ]] || : >"$dir/status"
	local -a sources=()
	if [[ -n ${DEBARCH_SUITE[$arch]:-} ]]; then
		write_sources "$arch" "$dir"
		sources=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d")
	fi
	APT_OPTS=(
		"${sources[@]}"
		-o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::State::status=$dir/status"
		-o "Dir::Cache=$dir/cache"
		# Only the Packages indices are needed: no translations, no AppStream metadata.
		-o Acquire::Languages=none
		-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
		-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
	)
}

# host_mirror SUITE: print the URI of the host's apt source (deb822 .sources or one-line
# .list) that serves SUITE, e.g. "bookworm" or "bookworm-security"; nothing if none does.
host_mirror() {
	local suite=$1 f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		awk -v want="$suite" '
			function hit(uri) { print uri; found = 1; exit }
			# One-line format: deb [options] URI SUITE COMPONENTS...
			/^[ \t]*deb[ \t]/ {
				n = split($0, w, /[ \t]+/); i = 2
				while (i <= n && w[i] == "") i++
				if (w[i] ~ /^\[/) { while (i <= n && w[i] !~ /\]$/) i++; i++ }
				if (w[i + 1] == want) hit(w[i])
				next
			}
			# deb822: stanzas separated by blank lines, fields Types/URIs/Suites.
			/^[ \t]*$/ { if (deb && uri != "" && suites ~ ("(^| )" want "( |$)")) hit(uri); deb = 0; uri = ""; suites = ""; next }
			tolower($1) == "types:" { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { $1 = ""; suites = $0; gsub(/^ +| +$/, "", suites) }
			END { if (!found && deb && uri != "" && suites ~ ("(^| )" want "( |$)")) print uri }
		' "$f" | head -n1 | grep . && return 0
	done
	return 0
}

# write_sources ARCH DIR: DIR/sources.list for ARCH's own suite and its security suite, on
# the host's mirrors for its own suite and security suite (URING_REPRO_DEBIAN_MIRROR and
# URING_REPRO_DEBIAN_SECURITY_MIRROR override them). A changed file drops the lists' stamp
# so they are refreshed. Without any mirror the file stays empty and the update fails.
write_sources() {
	local arch=$1 dir=$2 suite=${DEBARCH_SUITE[$1]} codename main security new
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
	main=${URING_REPRO_DEBIAN_MIRROR:-} security=${URING_REPRO_DEBIAN_SECURITY_MIRROR:-}
	if [[ -n $codename ]]; then
		[[ -n $main ]] || main=$(host_mirror "$codename")
		[[ -n $security ]] || security=$(host_mirror "$codename-security")
	fi
	new=""
	[[ -n $main ]] && new+="deb [signed-by=$keyring] $main $suite main"$'\n'
	[[ -n $security ]] && new+="deb [signed-by=$keyring] $security $suite-security main"$'\n'
	mkdir -p "$dir/sources.list.d"
	if [[ ! -e $dir/sources.list || $(cat "$dir/sources.list") != "${new%$'\n'}" ]]; then
		printf '%s' "$new" >"$dir/sources.list"
		rm -f "$dir/updated"
	fi
	[[ -n $main ]] || warn "no Debian mirror for $arch's $suite: the host's apt sources name none for '${codename:-?}' (set URING_REPRO_DEBIAN_MIRROR)"
}

# apt_update ARCH: refresh the private lists when missing, stale, or --refresh; at most
# once per run and arch (APT_LISTS remembers the outcome). A failed refresh with old lists
# present is a warning (the cached kernels may still be right); with none it is status 1.
declare -A APT_LISTS=()
apt_update() {
	local arch=$1 dir=$CACHE/apt/$1
	# APT_OPTS must be this arch's even when the lists were refreshed for an earlier slot.
	set_apt_opts "$arch"
	if [[ -z ${APT_LISTS[$arch]:-} ]]; then
		APT_LISTS[$arch]=ok
		if ((REFRESH)) || [[ -z $(find "$dir/updated" -mmin "-$LISTS_MAX_AGE_MIN" 2>/dev/null) ]]; then
			note "apt-get update (private state, $arch)"
			if apt-get -q "${APT_OPTS[@]}" update >"$dir/update.log" 2>&1 &&
				! grep -q '^[WE]: Failed to fetch' "$dir/update.log"; then
				touch "$dir/updated"
			elif [[ -e $dir/updated ]]; then
				warn "apt-get update for $arch failed; using lists from $(date -r "$dir/updated") ($dir/update.log)"
			else
				APT_LISTS[$arch]=none
			fi
		fi
	fi
	[[ ${APT_LISTS[$arch]} == ok ]]
}

# first_vmlinuz DIR: print DIR/vmlinuz-* (or DIR/vmlinux-*) if there is one (the dir may
# not exist yet).
first_vmlinuz() {
	local f
	for f in "$1"/vmlinuz-* "$1"/vmlinux-*; do
		[[ -f $f ]] && printf '%s\n' "$f" && return 0
	done
	return 1
}

# resolve_meta ARCH META: print "IMAGE-PACKAGE VERSION" for the meta package's candidate.
# Its "Depends: linux-image-6.12.117+deb12-cloud-amd64 (= 6.12.117-1~deb12u1)" pins one image
# package at one version; take exactly that. On failure print apt's complaint, status 1.
resolve_meta() {
	local arch=$1 meta=$2 dep err=$CACHE/apt/$1/show.log
	dep=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$meta" 2>"$err" |
		sed -n 's/^Depends: //p' | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[0-9][^ ]*\) *(= *\([^)]*\)).*/\1 \2/p' | head -n1) || true
	if [[ -z $dep ]]; then
		printf 'cannot resolve %s (%s) to an image package: %s' "$meta" "$arch" \
			"$(head -c 300 "$err" | tr '\n' ' ')"
		return 1
	fi
	printf '%s\n' "$dep"
}

# unpack_kernel ARCH IMG VER DIR: apt-get download IMG=VER and unpack only
# ./boot/vmlinuz-* (riscv64: ./boot/vmlinux-*) into DIR (never installs it; the .deb, tens
# of MB, is not kept). On failure print why, status 1.
unpack_kernel() {
	local arch=$1 img=$2 ver=$3 dir=$4 tmp rc=0 image=${DEBARCH_IMAGE[$1]:-vmlinuz}
	local -a deb
	note "downloading $img=$ver ($arch)"
	tmp=$(mktemp -d "$CACHE/kernels/.dl.XXXXXX")
	# apt drops privileges to _apt for downloads; let it write here (else it warns and
	# downloads as root anyway).
	if id _apt >/dev/null 2>&1; then chown _apt "$tmp" 2>/dev/null || true; fi
	if ! (cd "$tmp" && apt-get -q "${APT_OPTS[@]}" download "$img=$ver") >"$tmp/download.log" 2>&1; then
		printf 'apt-get download %s=%s (%s) failed: %s' "$img" "$ver" "$arch" \
			"$(grep -m1 '^E:' "$tmp/download.log" || echo 'no E: line')"
		rc=1
	else
		deb=("$tmp"/*.deb)
		mkdir -p "$tmp/x"
		if dpkg-deb --fsys-tarfile "${deb[0]}" | tar -x -C "$tmp/x" --wildcards "./boot/$image-*"; then
			rm -rf "$dir"
			mkdir -p "$dir"
			mv "$tmp"/x/boot/"$image"-* "$dir/"
		else
			printf 'no ./boot/%s-* in %s' "$image" "${deb[0]##*/}"
			rc=1
		fi
	fi
	rm -rf "$tmp"
	return "$rc"
}

# fetch_kernel SLOT: set SLOT_VMLINUZ[SLOT], or SLOT_SKIP[SLOT] to the reason there is none.
# When the current kernel cannot be had (offline, mirror moved on), fall back loudly to the
# last kernel this cache held for the slot ($CACHE/kernels/META_ARCH.resolved).
fetch_kernel() {
	local slot=$1 meta=${SLOT_META[$1]} arch=${SLOT_DEBARCH[$1]} series=${SLOT_SERIES[$1]}
	local img ver v="" why="" dep
	local last=$CACHE/kernels/${meta}_$arch.resolved
	mkdir -p "$CACHE/kernels"
	if ! apt_update "$arch"; then
		why="apt-get update for $arch failed, no lists cached (see $CACHE/apt/$arch/update.log)"
	elif ! dep=$(resolve_meta "$arch" "$meta"); then
		why=$dep
	else
		read -r img ver <<<"$dep"
		if [[ $img != "$series"* ]]; then
			# Not a fallback case: the archive changed, so the case itself needs a look.
			SLOT_SKIP[$slot]="$meta now resolves to $img, not a ${series#linux-image-}x kernel"
			return 0
		fi
		if ! v=$(first_vmlinuz "$CACHE/kernels/${img}_${ver}_$arch"); then
			if why=$(unpack_kernel "$arch" "$img" "$ver" "$CACHE/kernels/${img}_${ver}_$arch"); then
				v=$(first_vmlinuz "$CACHE/kernels/${img}_${ver}_$arch") || why="unpacked no vmlinuz"
			else
				v=""
			fi
		fi
	fi
	if [[ -z $v && -s $last ]]; then
		read -r img ver <"$last"
		if v=$(first_vmlinuz "$CACHE/kernels/${img}_${ver}_$arch"); then
			warn "$slot: $why; FALLING BACK to the cached $img $ver"
		fi
	fi
	if [[ -z $v ]]; then
		SLOT_SKIP[$slot]=$why
		return 0
	fi
	printf '%s %s\n' "$img" "$ver" >"$last"
	SLOT_VMLINUZ[$slot]=$v
	note "kernel $slot: $img $ver ($arch) -> $v"
}
