#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the seed corpus of fuzz/parse_fuzz into OUTDIR (emptied first):
#   make-seeds.sh SRCDIR OUTDIR
# Every testsuite/parseok, testsuite/parseko, tapsets and examples script is a seed as it is.
# A case with options or arguments (NAME.opts with -g or -I, NAME.args) gets a second seed
# in the fuzz target's input form: SCRIPT NUL FLAGS ARG1 NUL ARG2 ...; a tapset gets one read
# as a tapset (flag 8).
set -e
srcdir=$1 outdir=$2
[ -n "$srcdir" ] && [ -n "$outdir" ] || { echo "usage: $0 SRCDIR OUTDIR" >&2; exit 2; }
rm -rf "$outdir"
mkdir -p "$outdir"

# The tail of an input: NUL, the flags byte (given in octal), the arguments NUL-separated.
tail_bytes() {
	flags=$1
	shift
	printf '\000'
	printf "\\$flags"
	first=1
	for arg in "$@"; do
		[ "$first" = 1 ] || printf '\000'
		first=0
		printf '%s' "$arg"
	done
}

for dir in testsuite/parseok testsuite/parseko tapsets examples; do
	for stp in "$srcdir/$dir"/*.stp; do
		[ -f "$stp" ] || continue
		base=${stp%.stp}
		name=$(echo "$dir" | tr / _)_$(basename "$base")
		cp "$stp" "$outdir/$name"
		flags=0
		if [ -f "$base.opts" ]; then
			grep -q -- '-g' "$base.opts" && flags=$((flags | 1))
			grep -q -- '-I' "$base.opts" && flags=$((flags | 2))
		fi
		[ "$dir" = tapsets ] && flags=$((flags | 8))
		if [ "$flags" != 0 ] || [ -f "$base.args" ]; then
			# The arguments are the lines of NAME.args, as parse.exp passes them.
			set --
			if [ -f "$base.args" ]; then
				while IFS= read -r arg || [ -n "$arg" ]; do
					set -- "$@" "$arg"
				done <"$base.args"
			fi
			{ cat "$stp"; tail_bytes "$(printf '%o' "$flags")" "$@"; } \
				>"$outdir/$name.tail"
		fi
	done
done
# A few of each flag on a script that uses everything they change.
script='%( guru_mode == 1 %? function g() %{ /* pragma:unprivileged */ %} %)
%( CONFIG_SMP == "y" && kernel_vr >= "6.1" %? global a[$#] %: global b %)
probe begin { x = @fz_nested($1); y = @1 . @fz_str; printf("%d %s\n", x, y); exit() }'
for flags in 0 1 2 3 4 5 6 7 10 17; do
	{ printf '%s' "$script"; tail_bytes "$flags" 42 "text arg" '$2' '@3'; } \
		>"$outdir/mixed_flags_$flags"
done
