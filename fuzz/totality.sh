#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Translator totality: every generated script that passes pass 2 must build in pass 4
# (tapster -p4, against the VM kit's kernel headers; nothing is loaded) with no gcc error
# and no gcc warning.
#   totality.sh BUILDDIR FIRST_SEED COUNT WORKDIR
# For each seed from FIRST_SEED on, fuzz/gen_script writes a script; a script that pass 1
# or 2 refuses is counted and left; any other failure, or a "warning:" or "error:" line in
# the module's build log, fails the run, and its script and messages are kept in WORKDIR
# as SEED.stp and SEED.log. The last line: "N generated, N past pass 2, N built, N failed";
# the exit status is 1 when one failed.
set -u
# Or, for the regression cases of testsuite/tapster.fuzz/totality (each must pass pass 2):
#   totality.sh BUILDDIR --files WORKDIR SCRIPT...
builddir=$1
gen=$builddir/fuzz/gen_script
tapster=$builddir/src/tapster
generated=0 past2=0 built=0 failed=0 refused=0
run=$$_$(date +%s)

# Builds SCRIPT (named NAME in WORKDIR's files) and counts what came of it.
check_script() {
	script=$1 name=$2
	# -k keeps the build directory, whose build.log has gcc's messages. A -D of this run
	# is in the module cache's key: every module is built (with the kernel tree's cached
	# recipe), none is taken from an earlier run.
	"$tapster" -p4 -k -D "TAP_TOTALITY_RUN=$run" -w "$script" >"$name.out" 2>"$name.log"
	status=$?
	tmpdir=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$name.log")
	if grep -q '^Pass [12]: .* failed' "$name.log"; then
		refused=$((refused + 1))
		[ -n "$files" ] && { failed=$((failed + 1)); echo "$script: refused in pass 1 or 2"; }
		[ -n "$files" ] || rm -f "$name.out" "$name.log"
	else
		past2=$((past2 + 1))
		problems=
		[ "$status" = 0 ] || problems="exit status $status"
		if [ -n "$tmpdir" ] && [ -f "$tmpdir/build.log" ] &&
		   grep -E -q '(warning|error):' "$tmpdir/build.log"; then
			problems="$problems gcc said:"
			grep -E -A3 '(warning|error):' "$tmpdir/build.log" >>"$name.log"
		fi
		if [ -z "$problems" ]; then
			built=$((built + 1))
			rm -f "$name.out" "$name.log"
		else
			failed=$((failed + 1))
			echo "$script: $problems (kept $workdir/$name.log)"
		fi
	fi
	[ -n "$tmpdir" ] && case $tmpdir in /tmp/*|"${TMPDIR:-/tmp}"/*) rm -rf "$tmpdir" ;; esac
	rm -f ./*.ko
}

if [ "${2:-}" = --files ]; then
	files=1 workdir=$3
	shift 3
	mkdir -p "$workdir" && cd "$workdir" || exit 2
	for script in "$@"; do
		check_script "$script" "$(basename "$script" .stp)"
	done
	echo "$# scripts, $built built, $failed failed"
	[ "$failed" = 0 ]
	exit
fi

files= first=$2 count=$3 workdir=$4
mkdir -p "$workdir" && cd "$workdir" || exit 2
seed=$first
while [ "$seed" -lt $((first + count)) ]; do
	"$gen" "$seed" >"$seed.stp" || { echo "gen_script $seed failed" >&2; exit 2; }
	generated=$((generated + 1))
	check_script "$seed.stp" "$seed"
	[ -f "$seed.log" ] || rm -f "$seed.stp"
	seed=$((seed + 1))
done
echo "$generated generated, $past2 past pass 2, $built built, $failed failed"
[ "$failed" = 0 ]
