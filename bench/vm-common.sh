# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benches that run in the VM (run-vm-bench.sh, run-shards-bench.sh) after
# they set bench_name, srcdir and builddir: the tools they use from the build tree, and
# fail(), which names the bench.
tapster=$builddir/src/tapster
vmrun=$builddir/testsuite/tapster-vmrun
loader=$builddir/loader/tapster-run

fail() {
	echo "$bench_name: FAILED: $*" >&2
	exit 1
}
