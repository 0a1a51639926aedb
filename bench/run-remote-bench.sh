#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The wall time to start a --remote session on 1, 2 and 3 hosts (issue 23): three guests of
# the bundled VM with an ssh server (testsuite/ssh-guest.sh, as tapster.run/remote.exp
# boots them), two on the 6.1 kit and one on the newest flavour's. For each set of hosts,
# `tapster --remote=... -e 'probe begin { exit() }'` from its start to its end: the control
# masters, uname, the module (from the cache: the first, cold run of each set builds once
# per release, which -v's "Pass 4: compiled" lines count), the copy, the load and unload.
#
#   bench/run-remote-bench.sh SRCDIR BUILDDIR
#
# Skipped (exit 0) without ssh, ssh-keygen, dropbear and dropbearkey.
set -u
src=$1
build=$2
tapster=$build/src/tapster
vmrun=$build/testsuite/tapster-vmrun
work=$build/bench/remote-work
runs=${BENCH_REMOTE_RUNS:-5}

for tool in ssh ssh-keygen dropbearkey python3; do
	command -v $tool >/dev/null || { echo "remote bench: skipped (no $tool)"; exit 0; }
done
[ -x /usr/sbin/dropbear ] || { echo "remote bench: skipped (no dropbear)"; exit 0; }
newest=$(apt-cache pkgnames linux-image- 2>/dev/null |
	sed -n 's/^linux-image-\([0-9]*\.[0-9]*-cloud-amd64\)$/\1/p' | sort -V | tail -n1)
kit0=$("$src/scripts/tapster-vmkit" | tail -n1) || exit 1
kit2=$kit0
[ -n "$newest" ] && { kit2=$(TAPSTER_VM_FLAVOUR=$newest "$src/scripts/tapster-vmkit" | tail -n1) || exit 1; }

rm -rf "$work"
mkdir -p "$work"
ssh-keygen -q -t ed25519 -N "" -f "$work/key"
dropbearkey -t ed25519 -f "$work/host_key" >/dev/null 2>&1
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
placed="-P /usr/sbin/dropbear"
for lib in $(ldd /usr/sbin/dropbear | grep -o '/[^ ]*'); do
	placed="$placed -P $lib"
done
: >"$work/ssh_config"
# boot NAME KIT FLAVOUR
boot() {
	port=$(free_port)
	printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n' "$1" "$port" >>"$work/ssh_config"
	mkdir -p "$work/$1"
	cp "$work/host_key" "$build/loader/tapster-run" "$work/$1/"
	cp "$work/key.pub" "$work/$1/authorized_keys"
	echo "$1" >"$work/$1/hostname"
	modules="-m virtio_net"
	grep -q 'virtio_pci\.ko[^:]*:' "$2"/root/lib/modules/*/modules.dep && modules="$modules -m virtio_pci"
	# shellcheck disable=SC2086 # word lists
	(cd "$work/$1" && env TAPSTER_VM_FLAVOUR="$3" TAPSTER_VMKIT="$src/scripts/tapster-vmkit" \
		TAPSTER_QEMU="$src/testsuite/ssh-guest-qemu" TAPSTER_GUEST_SSH_PORT="$port" \
		"$vmrun" -k "$2" -t 900 $modules $placed -s "$src/testsuite/ssh-guest.sh" \
		-o "$work/$1.out" -e "$work/$1.err" authorized_keys host_key hostname tapster-run
	 echo $? >"$work/$1.status") &
}
boot g0 "$kit0" ""
boot g1 "$kit0" ""
boot g2 "$kit2" "$newest"
printf 'Host *\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' \
	"$work/key" >>"$work/ssh_config"
TAPSTER_SSH_COMMAND="ssh -F $work/ssh_config"
export TAPSTER_SSH_COMMAND
i=0
while [ "$(cat "$work"/g?.out 2>/dev/null | grep -c 'ssh-guest: up')" -lt 3 ] && [ $i -lt 1800 ]; do
	sleep 0.1
	i=$((i + 1))
done
stop() {
	for g in g0 g1 g2; do
		$TAPSTER_SSH_COMMAND $g 'touch /tmp/stop' 2>/dev/null
	done
	wait
}
if [ $i -ge 1800 ]; then
	echo "remote bench: the guests did not come up" >&2
	stop
	exit 1
fi

now() { date +%s%N; }
script='probe begin { exit() }'
rc=0
printf '%-28s %10s %12s %10s\n' "hosts" "builds" "cold (s)" "warm (s)"
for hosts in "g0" "g0 g1" "g0 g1 g2"; do
	remotes=
	for h in $hosts; do remotes="$remotes --remote=$h"; done
	t0=$(now)
	# shellcheck disable=SC2086
	"$tapster" -v --poison-cache $remotes -e "$script" >"$work/out" 2>"$work/err" || rc=1
	t1=$(now)
	builds=$(grep -c '^Pass 4: compiled' "$work/err")
	best=
	n=0
	while [ $n -lt "$runs" ]; do
		t2=$(now)
		# shellcheck disable=SC2086
		"$tapster" $remotes -e "$script" >"$work/out" 2>"$work/err" || rc=1
		t3=$(now)
		d=$((t3 - t2))
		[ -z "$best" ] || [ $d -lt "$best" ] && best=$d
		n=$((n + 1))
	done
	label=$(echo "$hosts" | sed 's/g2/g2(new)/')
	printf '%-28s %10s %12s %10s\n' "$label" "$builds" \
		"$(echo "scale=2; ($t1 - $t0) / 1000000000" | bc)" \
		"$(echo "scale=2; $best / 1000000000" | bc)"
done
echo "(g0, g1: $(cat "$kit0/kver"); g2: $(cat "$kit2/kver"); warm: the best of $runs)"
stop
exit $rc
