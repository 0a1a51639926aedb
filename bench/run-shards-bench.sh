#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Counting from a hot probe on two CPUs (`make bench-shards`): bench/vm/hot2.stp (a getppid
# return probe with an @entry timing aggregate and m[execname(), cpu()]++, a timer printing
# now and then) for SESSIONS sessions of SECONDS s each while bench/vm/hot2 calls getppid on
# every vCPU and counts its calls, once as tapster builds it (the updates of m in per-CPU
# shards, runtime/shards.h) and once with -DTAP_SHARDS_OFF (every update under m's lock,
# held around the update alone: stap holds it for the whole body, so the comparison favours
# the lock). Prints per variant the sessions that ended in an error (MAXSKIPPED), the skipped
# probes, and the sessions whose count differs from the workload's.
#   run-shards-bench.sh SRCDIR BUILDDIR
# BENCH_SHARDS_SESSIONS (default 20), BENCH_SHARDS_SECONDS (default 3), BENCH_SHARDS_CPUS
# (default 2). The guest runs under TCG (one host thread for all vCPUs, as the testsuite's).
set -u
srcdir=$1 builddir=$2
bench_name=bench-shards
. "$srcdir/bench/vm-common.sh"
work=${BENCH_SHARDS_WORK:-$builddir/bench/shards-work}
sessions=${BENCH_SHARDS_SESSIONS:-20}
seconds=${BENCH_SHARDS_SECONDS:-3}
cpus=${BENCH_SHARDS_CPUS:-2}

rm -rf "$work"
mkdir -p "$work" || exit 1
${CC:-gcc} -O2 -static -o "$work/hot2" "$srcdir/bench/vm/hot2.c" || fail "cannot build hot2"
for v in shards locked; do
	opts=""
	[ $v = locked ] && opts=-DTAP_SHARDS_OFF
	(cd "$work" && "$tapster" --vm -p4 $opts -m "hot2_$v" "$srcdir/bench/vm/hot2.stp" \
		>/dev/null 2>"hot2_$v.err") || { cat "$work/hot2_$v.err" >&2; fail "tapster -p4"; }
	objcopy --strip-debug "$work/hot2_$v.ko"
done
cat >"$work/run.sh" <<JOB
cd /job
for v in shards locked; do
	i=0
	while [ \$i -lt $sessions ]; do
		./tapster-run -o /tmp/out -c "./hot2 $seconds >/tmp/calls" hot2_\$v.ko 2>/tmp/err
		s=\$?
		echo "\$v \$s \$(cat /tmp/calls) \$(grep '^counted' /tmp/out | cut -d' ' -f2)" \
			"\$(sed -n 's/.*skipped probes: \([0-9]*\).*/\1/p' /tmp/err | head -1)"
		i=\$((i + 1))
	done
done
dmesg | grep -E 'Oops|WARNING|BUG|lockdep|stall|soft lockup' || true
JOB
echo "bench-shards: one boot ($cpus vCPUs, $sessions sessions of $seconds s per variant)..." >&2
"$vmrun" -c "$cpus" -t $((120 + 2 * sessions * (seconds + 6))) -s "$work/run.sh" \
	-o "$work/stdout" -e "$work/stderr" "$work/hot2" "$loader" "$work/hot2_shards.ko" \
	"$work/hot2_locked.ko" || { cat "$work/stderr" >&2; fail "the VM run (see $work/stdout)"; }
awk '
$1 == "shards" || $1 == "locked" {
	n[$1]++
	if ($2 != 0) failed[$1]++
	skipped[$1] += $5 == "" ? 0 : $5
	if ($2 == 0 && $3 != $4) wrong[$1]++
	calls[$1] += $3
	next
}
{ print "kernel log: " $0; bad = 1 }
END {
	printf "%-8s %9s %9s %9s %12s\n", "", "sessions", "failed", "skipped", "wrong count"
	for (v in n)
		printf "%-8s %9d %9d %9d %12d   (%d calls)\n", v, n[v], failed[v], skipped[v], wrong[v], calls[v]
	exit (failed["shards"] || skipped["shards"] || wrong["shards"] || bad)
}' "$work/stdout"
