cd /job
for v in shards locked; do
	i=0
	while [ $i -lt 3 ]; do
		./tapster-run -o /tmp/out -c "./hot2 3 >/tmp/calls" hot2_$v.ko 2>/tmp/err
		s=$?
		echo "$v $s $(cat /tmp/calls) $(grep '^counted' /tmp/out | cut -d' ' -f2)" 			"$(sed -n 's/.*skipped probes: \([0-9]*\).*/\1/p' /tmp/err | head -1)"
		i=$((i + 1))
	done
done
dmesg | grep -E 'Oops|WARNING|BUG|lockdep|stall|soft lockup' || true
