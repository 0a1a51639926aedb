# SPDX-License-Identifier: GPL-2.0-or-later
#
# /job/run.sh of a test guest that runs an ssh server (tapster.run/remote.exp; the guest's
# qemu is testsuite/ssh-guest-qemu). Its /job/ holds:
#   authorized_keys  the test run's public key, for root
#   host_key         dropbear's host key (made on the host: the guest has no time to spare)
#   tapster-run      the loader, put in /usr/sbin: on root's PATH (dropbear's for root),
#                    not on the PATH of the other user, tracer (a host without tapster-run)
#   hostname         the guest's host name
# dropbear and its libraries are placed at their host paths (tapster-vmrun -P). The guest
# says "ssh-guest: up" on stdout once the server listens, and powers off when /tmp/stop
# appears (made over ssh), or after 20 minutes.
say() { echo "ssh-guest: $*"; }

modprobe virtio_pci 2>/dev/null	# built in on 6.12
modprobe virtio_net || say "no virtio_net"
hostname "$(cat /job/hostname)"
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
ip route add default via 10.0.2.2

mkdir -p /dev/pts /var/log
mount -t devpts devpts /dev/pts
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'tracer:x:1000:1000::/home/tracer:/bin/sh' \
	>/etc/passwd
printf '%s\n' 'root:x:0:' 'tracer:x:1000:' >/etc/group
echo /bin/sh >/etc/shells
for home in /root /home/tracer; do
	mkdir -p $home/.ssh
	cp /job/authorized_keys $home/.ssh/authorized_keys
	chmod 700 $home $home/.ssh
	chmod 600 $home/.ssh/authorized_keys
done
chown -R 1000:1000 /home/tracer
[ -f /job/tapster-run ] && cp /job/tapster-run /usr/sbin/tapster-run

# -F: foreground (here a background job of this script), -E: log to stderr, -s: keys only.
dropbear -F -E -s -p 22 -r /job/host_key 2>/tmp/dropbear.log &
i=0
while ! netstat -ltn 2>/dev/null | grep -q ':22 ' && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
say up
i=0
while [ ! -e /tmp/stop ] && [ $i -lt 6000 ]; do
	sleep 0.2
	i=$((i + 1))
done
cat /tmp/dropbear.log >&2
say down
