#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark of the probe hot path (`make bench`), in the VM under qemu's -icount shift=0:
# the guest's clock follows the instructions it executes (one ns each), so the figures repeat
# to the digit on a busy host.
#   run-vm-bench.sh SRCDIR BUILDDIR [--smoke]
# Everything is built on the host first: the workload (bench/vm/workload.c, static), the
# hand-written floor modules (bench/vm/floor_*.c, kbuild against the kit's headers) and
# tapster's modules of the cases (bench/vm/*.stp, tapster -p4). One boot then runs the
# workload (N getppid() calls timed with clock_gettime) alone, under each floor module and
# under each tapster module, and reads the memory the seed script and a 10,000-entry map take,
# and how long sessions of many probes take to start and to stop (bench/vm/many_*.stp).
# Cases:
#   (a) a kretprobe on the system call timing it with @entry(gettimeofday_ns()) into <<<
#   (b) an entry probe counting into a global, n++
#   (c) an entry probe counting into a map keyed by execname()
#   (d) an entry probe printing a line on every hit (tapster's output goes to a file in the
#       guest, -o; the floor's lines go into a relay channel, which bench/vm/floor_reader
#       reads and writes to a file in the guest while the workload runs), over more calls
#       than the others: what is still to be written when the workload ends (up to a
#       sub-buffer of the relay, up to 10 ms of tapster's output) is a small part of it
#   (e) timer.profile counting into a global (per sample, every millisecond of each CPU: the
#       workload's extra time over its milliseconds)
# and on a user-space function, the workload's bench_func() called N times in a loop
# (`workload -f N`, at its host path in the guest: process(@1) names it), against floors on
# the kernel's inode-based uprobes API:
#   (f) process(...).function("bench_func") counting into a global, n++
#   (g) its .return counting into a global
#   (h) its .return timing the call with @entry(gettimeofday_ns()) into <<<
# Prints a table: virtual ns per call with no probe, under the floor, under tapster's
# module; the probe costs (minus the no-probe time) and their ratio, ours/floor, against the
# goal (1.05 for (a) to (e), 1.10 for the uprobe cases (f), (g) and (h)). Exits 1 when a run
# fails or a ratio is over its goal (BENCH_VM_GOALS=0: report only).
# --smoke: a few hundred calls, cases (b) and (h) only, no goals: checks that the machinery
# runs (testsuite/tapster.run/bench.exp). BENCH_VM_WORK: the work directory (default
# BUILDDIR/bench/vm-work; its stdout is what the guest printed).
# BENCH_VM_CASES: the cases to run (default "a b c d e f g h"; the memory figures come with
# any). BENCH_VM_MANY: the sessions of many probes to time (default "one many_vfs
# many_syscall many_syscall_ret many_tcp"; set and empty: none); BENCH_VM_MANY_OPTS: tapster options for them
# (-DTAP_SYSCALL_DISPATCH=0: the syscall points on kprobes, as before the dispatch).
# BENCH_VM_CALLS sets N (default 50000), BENCH_VM_PRINT_CALLS the calls of (d) (default
# 500000), BENCH_VM_PROFILE_CALLS the calls of (e) (default 3000000: a second of virtual
# time, about 1000 samples) and BENCH_VM_PROFILE_RUNS how many times (e)'s workload runs
# under its floor and under tapster's module, each time after a run alone (default 5, each
# a module loaded again; the table has the mean of each run's time less that of the run
# alone before it): what else the guest does in a run (which drifts over the boot), and
# where its timer fires against the kernel's tick, moves a run's figure by some tens of ns a
# sample (the workload alone varied by 60 us over three runs of a third of a second, the
# floor's cost 927 to 957 ns a sample over three runs of a second). BENCH_VM_SHARED=1 gives cases (a)
# and (b) a second probe of their kind on __x64_sys_getpid, which the workload does not call:
# where the kernel has fprobe, both probes then run under the module's shared fprobe
# (runtime/kprobes.h) rather than a kprobe. BENCH_VM_SYSCALL=one makes case (b)
# syscall.getppid and case (a) syscall.getppid.return (the aliases, on their kprobes);
# BENCH_VM_SYSCALL=many adds seven syscall points of their kind the workload does not call,
# so that the syscall dispatch (runtime/sysdispatch.h) runs them (its return slots, in (a)).
# TCG with -icount runs the guest at some tens of millions of instructions a second: the
# whole run takes a few minutes.
set -u
srcdir=$1 builddir=$2
smoke=${3:-}
bench_name=bench-vm
. "$srcdir/bench/vm-common.sh"
work=${BENCH_VM_WORK:-$builddir/bench/vm-work}
calls=${BENCH_VM_CALLS:-50000}
profile_calls=${BENCH_VM_PROFILE_CALLS:-3000000}
profile_runs=${BENCH_VM_PROFILE_RUNS:-5}
print_calls=${BENCH_VM_PRINT_CALLS:-500000}
check_goals=${BENCH_VM_GOALS:-1}
cases=${BENCH_VM_CASES:-a b c d e f g h}
floors="$(case " $cases " in *" a "*) echo a0 ;; esac) $cases"
if [ "$smoke" = --smoke ]; then
	calls=300
	print_calls=300
	cases="b h"
	floors="b h"
	check_goals=0
fi

rm -rf "$work"
mkdir -p "$work/floors" || exit 1
work=$(cd "$work" && pwd) || exit 1	# absolute: the uprobe cases' workload is at its path
kit=$("$srcdir/scripts/tapster-vmkit") || fail "no VM kit"
kver=$(cat "$kit/kver")
files=""

# The workload, static for the guest's busybox system.
${CC:-gcc} -O2 -static -o "$work/workload" "$srcdir/bench/vm/workload.c" ||
	fail "cannot build the workload"
files="$work/workload $loader"
# Floor (d)'s reader of its relay files.
case " $floors " in
*" d "*)
	${CC:-gcc} -O2 -static -o "$work/floor_reader" "$srcdir/bench/vm/floor_reader.c" ||
		fail "cannot build the floor's reader"
	files="$files $work/floor_reader"
	;;
esac
# bench_func()'s offset in the file (in the LOAD segment that holds it), for the uprobe floors.
func_addr=0x$(nm "$work/workload" | awk '$3 == "bench_func" { print $1 }')
func_offset=$(readelf -lW "$work/workload" | while read -r type off vaddr _ fsize _; do
	[ "$type" = LOAD ] && [ $((func_addr >= vaddr && func_addr < vaddr + fsize)) = 1 ] &&
		echo $((func_addr - vaddr + off))
done)
[ -n "$func_offset" ] || fail "no bench_func in the workload"

# The floors.
for f in $floors; do
	cp "$srcdir/bench/vm/floor_$f.c" "$work/floors/"
done
cp "$srcdir/bench/vm/floor_common.h" "$srcdir/bench/vm/floor_uprobe.h" "$work/floors/"
echo "obj-m := $(for f in $floors; do printf 'floor_%s.o ' "$f"; done)" >"$work/floors/Kbuild"
make -s -C "$kit/build" M="$work/floors" modules >"$work/floors/build.log" 2>&1 ||
	{ cat "$work/floors/build.log" >&2; fail "cannot build the floor modules"; }
for f in $floors; do
	objcopy --strip-debug "$work/floors/floor_$f.ko"
	files="$files $work/floors/floor_$f.ko"
done

# tapster's modules, the two of the memory figures and those of many probes (with one
# probe, "one", for the time a session takes anyway).
mems="" many=""
[ "$smoke" = --smoke ] || { mems="seed map10000"; many=${BENCH_VM_MANY-one many_vfs many_syscall many_syscall_ret many_tcp}; }
: >"$work/nprobes"
: >"$work/sizes"
for c in $cases $mems $many; do
	opts=""
	case $c in
	seed) stp=$srcdir/testsuite/semok/seed.stp ;;
	map10000) stp=$srcdir/bench/vm/$c.stp opts=-DMAXACTION=100000 ;;
	one) stp=$srcdir/bench/vm/b.stp ;;
	*) stp=$srcdir/bench/vm/$c.stp ;;
	esac
	case $c in
	one|many_*) opts=${BENCH_VM_MANY_OPTS:-} ;;
	esac
	case $c in
	a|b)
		if [ -n "${BENCH_VM_SYSCALL:-}" ]; then
			case $c in
			a) echo 'global t probe syscall.getppid.return { t <<< gettimeofday_ns() - @entry(gettimeofday_ns()) }' ;;
			b) echo 'global n probe syscall.getppid { n++ }' ;;
			esac >"$work/syscall_$c.stp"
			[ "$BENCH_VM_SYSCALL" = many ] && case $c in
			a) echo 'probe syscall.getpid.return, syscall.getuid.return, syscall.getgid.return,
					syscall.geteuid.return, syscall.getegid.return, syscall.gettid.return,
					syscall.sched_yield.return { t <<< 0 }' ;;
			b) echo 'probe syscall.getpid, syscall.getuid, syscall.getgid, syscall.geteuid,
					syscall.getegid, syscall.gettid, syscall.sched_yield { n-- }' ;;
			esac >>"$work/syscall_$c.stp"
			stp=$work/syscall_$c.stp
		elif [ "${BENCH_VM_SHARED:-0}" = 1 ]; then
			cp "$stp" "$work/shared_$c.stp"
			case $c in
			a) echo 'probe kernel.function("__x64_sys_getpid").return { t <<< 0 }' ;;
			b) echo 'probe kernel.function("__x64_sys_getpid") { n-- }' ;;
			esac >>"$work/shared_$c.stp"
			stp=$work/shared_$c.stp
		fi
		;;
	one|many_*)
		"$tapster" --vm -p3 "$stp" 2>/dev/null |
			awk -v c="$c" '/^#define TAP_NUM_K(RET)?PROBES / { n += $3 } END { print c, n }' \
				>>"$work/nprobes"
		;;
	esac
	case $c in
	f|g|h) args=$work/workload ;;
	*) args="" ;;
	esac
	# shellcheck disable=SC2086 # the options and arguments
	(cd "$work" && "$tapster" --vm -p4 $opts -m "bench_$c" "$stp" $args >/dev/null 2>"bench_$c.err") ||
		{ cat "$work/bench_$c.err" >&2; fail "tapster -p4 $stp"; }
	objcopy --strip-debug "$work/bench_$c.ko"
	files="$files $work/bench_$c.ko"
	case $c in
	seed|map10000) size "$work/bench_$c.ko" | awk -v c="$c" 'NR == 2 { print c, $1, $2, $3 }' \
		>>"$work/sizes" ;;
	esac
done

# The guest's job: one line per measurement, "NAME TOTAL_NS NS_PER_CALL".
{
	echo "cd /job"
	echo "n=$calls; nd=$print_calls; ne=$profile_calls; re=$profile_runs; uwork=$work/workload; uoffset=$func_offset"
	cat <<'EOF'
# The workload's command line of a case.
run() {
	case $1 in
	d) echo "./workload $nd" ;;
	e) echo "./workload $ne" ;;
	f|g|h) echo "$uwork -f $n" ;;
	*) echo "./workload $n" ;;
	esac
}
# How many times a case runs (its figures are their mean): (e)'s re, the others' once.
runs() {
	case $1 in
	e) echo "$re" ;;
	*) echo 1 ;;
	esac
}
# Every measured workload's pid has three digits: case (d)'s lines ("workload PID") are as
# long under the floor as under tapster's module.
while [ "$(cut -d' ' -f5 /proc/loadavg)" -lt 100 ]; do sh -c :; done
# A first run that nobody counts: the workload's pages come in.
./workload 1000 >/dev/null
echo "none $(./workload $n)"
case " CASES " in *" d "*) echo "none_d $(./workload $nd)" ;; esac
case " CASES " in *" "[fgh]" "*) $uwork -f 1000 >/dev/null; echo "none_f $($uwork -f $n)" ;; esac
for f in FLOORS; do
	c=${f%0}
	params=""
	case $c in f|g|h) params="path=$uwork offset=$uoffset" ;; esac
	k=0
	while [ $k -lt "$(runs $c)" ]; do
		k=$((k + 1))
		# (e)'s time alone is taken before each of its runs: what the guest does besides
		# moves slowly over the boot, and the mean of these is as near each run's as can be.
		if [ "$c" = e ]; then echo "none_e $(./workload $ne)"; fi
		insmod floor_$f.ko $params || echo "floor_$f failed"
		if [ "$f" = d ]; then
			# The reader runs beside the workload, as tapster's loader does; it has its
			# files open (it said so) before the workload starts.
			mkfifo /tmp/floor_ready
			./floor_reader /tmp/floor_out_d /sys/kernel/debug/floor_d/cpu* >/tmp/floor_ready &
			reader=$!
			read -r ready </tmp/floor_ready
		fi
		echo "floor_$f $($(run $c))"
		if [ "$f" = d ]; then
			kill "$reader"
			wait "$reader" || echo "floor_reader failed"
			echo "output_floor_d $(wc -l </tmp/floor_out_d)"
		fi
		rmmod floor_$f
	done
done
for c in CASES; do
	k=0
	while [ $k -lt "$(runs $c)" ]; do
		k=$((k + 1))
		if [ "$c" = e ]; then echo "none_e $(./workload $ne)"; fi
		./tapster-run -o /tmp/out_$c -c "$(run $c) >/tmp/w_$c" bench_$c.ko ||
			echo "bench_$c failed"
		echo "bench_$c $(cat /tmp/w_$c)"
		echo "output_$c $(wc -l </tmp/out_$c) $(head -c 60 /tmp/out_$c | head -1)"
	done
done
meminfo() {
	awk '/^(VmallocUsed|Percpu|SUnreclaim):/ { kb += $2 } END { print kb }' /proc/meminfo
}
for m in MEMS; do
	before=$(meminfo)
	./tapster-run -c "awk '/^(VmallocUsed|Percpu|SUnreclaim):/ { kb += \$2 } END { print kb }' /proc/meminfo >/tmp/m; grep '^bench_$m ' /proc/modules | cut -d' ' -f2 >/tmp/s" bench_$m.ko >/dev/null ||
		echo "mem_$m failed"
	echo "mem_$m $(($(cat /tmp/m) - before)) $(cat /tmp/s)"
done
# Many probes: stamps before the session, once its probes are armed (-c runs then) and
# after it ended (they are unregistered); the memory while they are armed.
for m in MANY; do
	before=$(meminfo)
	t0=$(./workload -t)
	./tapster-run -c "./workload -t >/tmp/t_$m; awk '/^(VmallocUsed|Percpu|SUnreclaim):/ { kb += \$2 } END { print kb }' /proc/meminfo >/tmp/m_$m" bench_$m.ko >/dev/null ||
		echo "many_$m failed"
	t2=$(./workload -t)
	echo "many_$m $t0 $(cat /tmp/t_$m) $t2 $(($(cat /tmp/m_$m) - before))"
done
dmesg | grep 'floor_'
EOF
} | sed -e "s/CASES/$cases/" -e "s/FLOORS/$floors/" -e "s/MEMS/$mems/" -e "s/MANY/$many/" \
	>"$work/run.sh"

echo "bench-vm: one boot under -icount shift=0 ($kver, 1 CPU, $calls calls per run)..." >&2
# shellcheck disable=SC2086 # the file list
"$vmrun" -i -c 1 -t 1200 -P "$work/workload" -s "$work/run.sh" -o "$work/stdout" -e "$work/stderr" \
	$files ||
	{ cat "$work/stderr" >&2; fail "the VM run (see $work/stdout)"; }
grep -qE '^[a-z0-9_]+ failed$' "$work/stdout" && { cat "$work/stdout" "$work/stderr" >&2; fail "a run in the VM"; }

# The table.
awk -v check="$check_goals" -v kver="$kver" -v calls="$calls" \
	-v pcalls="$profile_calls" -v pruns="$profile_runs" -v dcalls="$print_calls" -v cases="$cases" -v floors="$floors" '
$1 ~ /^(none|none_[def]|floor_.*|bench_.*)$/ { total[$1] += $2; per[$1] += $3; runs[$1]++ }
# (e): each run against the run alone just before it
$1 == "none_e" { last_none_e = $2 }
$1 ~ /^(floor|bench)_e$/ { extra[$1] += $2 - last_none_e; extra_runs[$1]++ }
FILENAME ~ /nprobes$/ { nprobes[$1] = $2; next }
FILENAME ~ /sizes$/ { sizes[$1] = sprintf("text %d, data %d, bss %d bytes", $2, $3, $4); next }
$1 ~ /^many_/ { m = substr($1, 6); start[m] = ($3 - $2) / 1e6; stop[m] = ($4 - $3) / 1e6; kb[m] = $5 }
$1 ~ /^mem_/ { mem[substr($1, 5)] = $2; modsize[substr($1, 5)] = $3 }
$1 ~ /^output_/ { lines[substr($1, 8)] = $2 }
END {
	for (r in runs) {	# a case run more than once: the mean
		total[r] /= runs[r]
		per[r] /= runs[r]
	}
	name["a"] = "(a) kretprobe, @entry time <<< s"
	name["b"] = "(b) kprobe, n++"
	name["c"] = "(c) kprobe, m[execname()]++"
	name["d"] = "(d) kprobe, printf per hit"
	name["e"] = "(e) timer.profile, n++ (per sample)"
	name["f"] = "(f) uprobe, n++"
	name["g"] = "(g) uretprobe, n++"
	name["h"] = "(h) uretprobe, @entry time <<< s"
	printf "\nProbe hot path in the VM (%s, 1 CPU, qemu -icount shift=0): virtual ns per getppid() call\n", kver
	printf "((f) to (h): per bench_func() call), %d calls a run (%d for (d); %d for (e), whose figures are\n", calls, dcalls, pcalls
	printf "per sample, 1000 Hz, the mean of %d runs). cost = time - no probe.\n", pruns
	printf "%-34s %9s %9s %9s %10s %10s %10s %6s\n", "case", "no probe", "floor", "ours", "floor cost", "ours cost", "ours/floor", "goal"
	n = split(floors, fl, " ")
	for (i = 1; i <= n; i++)
		if (fl[i] == "a0")
			printf "%-34s %9.1f %9.1f %9s %10.1f\n", "    empty kretprobe (mechanism)", per["none"], per["floor_a0"], "-", per["floor_a0"] - per["none"]
	n = split(cases, cs, " ")
	bad = 0
	for (i = 1; i <= n; i++) {
		c = cs[i]
		none = per[c ~ /^[fgh]$/ ? "none_f" : c == "d" ? "none_d" : "none"]
		floor = per["floor_" c]; ours = per["bench_" c]
		if (c == "e") {
			# per sample: the extra time over the milliseconds of the run
			samples = total["none_e"] / 1e6
			none = 0
			floor = extra["floor_e"] / extra_runs["floor_e"] / samples
			ours = extra["bench_e"] / extra_runs["bench_e"] / samples
		}
		fc = floor - none; oc = ours - none
		ratio = fc > 0 ? oc / fc : 0
		goal = c ~ /^[fgh]$/ ? 1.10 : 1.05
		met = ratio <= goal ? "met" : "MISSED"
		if (ratio > goal)
			bad = 1
		if (c == "e")
			printf "%-34s %9s %9.1f %9.1f %10.1f %10.1f %10.2f %6.2f %s\n", name[c], "-", floor, ours, fc, oc, ratio, goal, met
		else
			printf "%-34s %9.1f %9.1f %9.1f %10.1f %10.1f %10.2f %6.2f %s\n", name[c], none, floor, ours, fc, oc, ratio, goal, met
	}
	if ("d" in lines)
		printf "(d) wrote %d lines, its floor %d\n", lines["d"], lines["floor_d"]
	if ("one" in start) {
		printf "\nMany probes: virtual ms from the loader'\''s start until -c runs (the probes armed), and from\n"
		printf "then until the loader has ended (the probes unregistered, in batches), and the memory taken while\n"
		printf "they are armed (vmalloc + percpu + unreclaimable slab); \"one\" is bench/vm/b.stp:\n"
		printf "%-40s %7s %10s %10s %10s\n", "probe point", "probes", "start ms", "stop ms", "memory kB"
		split("one many_vfs many_syscall many_syscall_ret many_tcp", order, " ")
		text["one"] = "kernel.function(\"__x64_sys_getppid\")"
		text["many_vfs"] = "kernel.function(\"vfs_*\").return"
		text["many_syscall"] = "syscall.*"
		text["many_syscall_ret"] = "syscall.*, syscall.*.return"
		text["many_tcp"] = "kernel.function(\"tcp_*\")"
		for (i = 1; i <= 5; i++)
			if (order[i] in start)
				printf "%-40s %7d %10.1f %10.1f %10d\n", text[order[i]], nprobes[order[i]], start[order[i]], stop[order[i]], kb[order[i]]
		printf "\n"
	}
	for (m in mem)
		printf "memory of %s: module %d bytes (/proc/modules; .ko %s), runtime %d kB (vmalloc + percpu + unreclaimable slab while it runs)\n", m == "seed" ? "testsuite/semok/seed.stp" : "a 10,000-entry map (bench/vm/map10000.stp)", modsize[m], sizes[m], mem[m]
	exit (check && bad)
}' "$work/nprobes" "$work/sizes" "$work/stdout" || fail "a goal is missed (see the table)"
