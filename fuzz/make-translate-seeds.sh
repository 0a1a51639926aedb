#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the seed corpus of fuzz/translate_fuzz into OUTDIR (emptied first):
#   make-translate-seeds.sh SRCDIR OUTDIR [GEN_SCRIPT]
# Every testsuite/parseok, semok and runok script is a seed, in the target's input form when
# its case has options or arguments: SCRIPT NUL FLAGS ARG1 NUL ARG2 ..., FLAGS 1 for -g and
# 16 for -u (see fuzz/translate_fuzz.c). With GEN_SCRIPT (fuzz/gen_script), 40 random valid
# scripts of it too (seeds 1001-1040), for inputs that get far into pass 2 and 3.
set -e
srcdir=$1 outdir=$2 gen=${3:-}
[ -n "$srcdir" ] && [ -n "$outdir" ] || { echo "usage: $0 SRCDIR OUTDIR" >&2; exit 2; }
rm -rf "$outdir"
mkdir -p "$outdir"

for dir in parseok semok runok; do
	for stp in "$srcdir/testsuite/$dir"/*.stp; do
		[ -f "$stp" ] || continue
		base=${stp%.stp}
		name=${dir}_$(basename "$base")
		# Not the scripts that probe every function of the kernel or of every module:
		# seconds each under the sanitizers, which a loaded machine can make a timeout.
		grep -q -e 'function("\*")' -e 'module("\*")' "$stp" && continue
		flags=0
		if [ -f "$base.opts" ]; then
			grep -q -- '-g' "$base.opts" && flags=$((flags | 1))
			grep -q -- '-u' "$base.opts" && flags=$((flags | 16))
		fi
		if [ "$flags" = 0 ] && [ ! -f "$base.args" ]; then
			cp "$stp" "$outdir/$name"
			continue
		fi
		set --
		if [ -f "$base.args" ]; then
			while IFS= read -r arg || [ -n "$arg" ]; do
				set -- "$@" "$arg"
			done <"$base.args"
		fi
		{
			cat "$stp"
			printf '\000'
			printf "\\$(printf '%o' "$flags")"
			first=1
			for arg in "$@"; do
				[ "$first" = 1 ] || printf '\000'
				first=0
				printf '%s' "$arg"
			done
		} >"$outdir/$name"
	done
done
if [ -n "$gen" ]; then
	seed=1001
	while [ "$seed" -le 1040 ]; do
		"$gen" "$seed" >"$outdir/gen_script_$seed"
		seed=$((seed + 1))
	done
fi
