#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes a stap script of exactly LINES lines (default 10000) to stdout, for the pass-1
# benchmark: globals, arrays and statistics, @define macros, %( %) conditions, script
# functions, probes on begin/end/timers/kernel functions and their returns, with if/else,
# while, for, foreach (sorted, limited), try/catch, printf formats and nested expressions.
# The same LINES gives the same script (a fixed pseudo-random sequence); it parses
# without errors in tapster -p1 and stap -p1.
#   gen-script.sh [LINES]
lines=${1:-10000}
exec awk -v lines="$lines" '
function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return int(seed / 65536) % n }
function pick(list,   n, a) { n = split(list, a, " "); return a[rnd(n) + 1] }
function emit(text) { out[nout++] = text }
function var() { return pick("x y z count total delta") }
function leaf(   r) {
	r = rnd(7)
	if (r == 0) return rnd(1000)
	if (r == 1) return "0x" sprintf("%x", rnd(65536))
	if (r == 2) return "pid()"
	if (r == 3) return "@SQUARE(" var() ")"
	if (r == 4) return "gettimeofday_ns() / 1000"
	return var()
}
# An expression of nesting depth at most d.
function expr(d,   r) {
	if (d <= 0) return leaf()
	r = rnd(9)
	if (r == 0) return "(" expr(d - 1) " + " expr(d - 1) ") * " leaf()
	if (r == 1) return expr(d - 1) " - " expr(d - 1)
	if (r == 2) return "(" expr(d - 1) " << " rnd(8) ") | " leaf()
	if (r == 3) return expr(d - 1) " > " expr(d - 1) " ? " expr(d - 1) " : " leaf()
	if (r == 4 && nfuncs) return "fn_" rnd(nfuncs) "(" expr(d - 1) ", " leaf() ")"
	if (r == 5) return "-" leaf() " % (" leaf() " + 1)"
	if (r == 6) return "(" expr(d - 1) " & 0xff) ^ ~" leaf()
	if (r == 7) return "!(" expr(d - 1) " == " leaf() ") && " leaf() " != 0"
	return "@MAX(" expr(d - 1) ", " leaf() ")"
}
function locals(ind) {
	emit(ind "x = " expr(1))
	emit(ind "y = " expr(2))
	emit(ind "z = x * 3 + y / (x | 1)")
	emit(ind "count = 0; total = 0; delta = " leaf())
}
# One statement group, a few lines, at indent ind (inside a probe or function body).
function stmt(ind, in_probe,   r, g) {
	g = "g_" rnd(nglobals)
	r = rnd(14)
	if (r == 0) {
		emit(ind "if (" expr(2) " > " rnd(100) ") {")
		emit(ind "\ttotal += " expr(2))
		emit(ind "} else if (x < y) {")
		emit(ind "\ttotal -= " leaf())
		emit(ind "} else")
		emit(ind "\ttotal = " expr(1))
	} else if (r == 1) {
		emit(ind "for (i = 0; i < " (rnd(20) + 1) "; i++) {")
		emit(ind "\tcount += i * " leaf())
		emit(ind "\tif (count > " rnd(5000) ") break")
		emit(ind "}")
	} else if (r == 2) {
		emit(ind "while (delta > 0 && count < 100) {")
		emit(ind "\tdelta = delta >> 1")
		emit(ind "\tcount++")
		emit(ind "}")
	} else if (r == 3) {
		emit(ind "printf(\"%s[%d]: %d %5d %-8s 0x%x %p\\n\", execname(), pid(), " expr(1) ", " leaf() ", \"f\" . sprint(" leaf() "), " leaf() ", " leaf() ")")
	} else if (r == 4) {
		emit(ind "arr_" rnd(narrays) "[execname(), " leaf() "] += " expr(2))
		emit(ind "names[pid()] = sprintf(\"%s-%d\", execname(), " leaf() ")")
	} else if (r == 5) {
		emit(ind "stat_" rnd(nstats) " <<< " expr(2))
	} else if (r == 6) {
		emit(ind "if ([execname(), " leaf() "] in arr_" rnd(narrays) ")")
		emit(ind "\tdelete arr_" rnd(narrays) "[execname(), " leaf() "]")
	} else if (r == 7) {
		emit(ind "try {")
		emit(ind "\ttotal = " expr(2) " / (y - " leaf() ")")
		emit(ind "} catch (msg) {")
		emit(ind "\tprintln(\"error: \", msg)")
		emit(ind "}")
	} else if (r == 8) {
		emit(ind "s = \"tag\" . sprint(" leaf() ") . \":\" . execname()")
		emit(ind "if (s =~ \"^tag[0-9]+:(sh|bash)$\")")
		emit(ind "\ts .= \" shell\"")
		emit(ind "println(s)")
	} else if (r == 9) {
		emit(ind g " = " g " + " expr(2) "; " g " <<= " rnd(3))
	} else if (r == 10) {
		emit(ind "%( kernel_v >= \"2.6.32\" %?")
		emit(ind "\ttotal = total + " leaf())
		emit(ind "%:")
		emit(ind "\ttotal = total - " leaf())
		emit(ind "%)")
	} else if (r == 11 && nfuncs) {
		emit(ind "total = fn_" rnd(nfuncs) "(" expr(2) ", " expr(1) ") + fn_" rnd(nfuncs) "(x, y)")
	} else if (r == 12 && in_probe) {
		emit(ind "if (" leaf() " == " rnd(50) ") next")
	} else {
		emit(ind "x = y = z = " leaf() "; ++x; y--; z *= 2; x %= 7; y |= x; z ^= y")
	}
}
function body(ind, in_probe, n,   i) {
	locals(ind)
	for (i = 0; i < n; i++)
		stmt(ind, in_probe)
}
function function_def(k) {
	emit("")
	emit("/* fn_" k ": a helper of the generated workload */")
	emit("function fn_" k ":long (a:long, b:long) {")
	emit("\tx = a; y = b")
	emit("\tz = " expr(2))
	emit("\tcount = 0; total = 0; delta = b")
	# Calls only go to lower-numbered helpers, as a real script grows.
	saved = nfuncs; nfuncs = k
	for (j = 0; j < rnd(4) + 1; j++)
		stmt("\t", 0)
	nfuncs = saved
	emit("\treturn " (k > 0 ? "fn_" rnd(k) "(z, a) + " : "") "total + z")
	emit("}")
}
function string_function(k) {
	emit("")
	emit("function label_" k ":string (name:string, n:long) {")
	emit("\tif (n < 0) return \"neg:\" . name")
	emit("\treturn sprintf(\"%s#%d/%s\", name, n, " (rnd(2) ? "\"lbl\"" : "execname()") ")")
	emit("}")
}
function probe_def(k,   r, kind) {
	r = rnd(7)
	emit("")
	if (r == 0) kind = "begin"
	else if (r == 1) kind = "timer.ms(" (rnd(5) + 1) * 100 ")"
	else if (r == 2) kind = "kernel.function(\"" pick("vfs_read vfs_write do_sys_open ksys_read ksys_write") "\")"
	else if (r == 3) kind = "kernel.function(\"" pick("kernel_clone do_exit do_sys_poll") "\").return"
	else if (r == 4) kind = "timer.s(" (rnd(3) + 1) ")"
	else if (r == 5) kind = "kernel.function(\"vfs_*\")?, kernel.function(\"ksys_read\")!"
	else kind = "begin, end"
	emit("probe " kind " {")
	body("\t", 1, rnd(5) + 2)
	if (r == 3)
		emit("\tstat_" rnd(nstats) " <<< gettimeofday_ns() - @entry(gettimeofday_ns())")
	emit("}")
}
function report_probe(   a, s) {
	a = "arr_" rnd(narrays)
	s = "stat_" rnd(nstats)
	emit("")
	emit("probe end {")
	emit("\tforeach ([name, n] in " a "- limit " (rnd(20) + 5) ")")
	emit("\t\tprintf(\"%-16s %6d %10d\\n\", name, n, " a "[name, n])")
	emit("\tforeach (v = [p] in names+)")
	emit("\t\tprintf(\"%d %s\\n\", p, v)")
	emit("\tif (@count(" s ")) {")
	emit("\t\tprintf(\"n=%d min=%d max=%d avg=%d sum=%d\\n\", @count(" s "), @min(" s "),")
	emit("\t\t       @max(" s "), @avg(" s "), @sum(" s "))")
	emit("\t\tprint(@hist_log(" s "))")
	emit("\t\tprint(@hist_linear(" s ", 0, 1000, 50))")
	emit("\t}")
	emit("\tdelete " a)
	emit("}")
}
function flush(   i) { for (i = 0; i < nout; i++) { print out[i]; printed++ } nout = 0 }
BEGIN {
	seed = 20240611
	nglobals = 40; narrays = 12; nstats = 8; nfuncs = 0
	emit("#! /usr/bin/env stap")
	emit("# Generated by bench/gen-script.sh for the pass-1 benchmark; not a useful script.")
	emit("@define SQUARE(v) %( ((@v) * (@v)) %)")
	emit("@define MAX(a, b) %( ((@a) > (@b) ? (@a) : (@b)) %)")
	emit("")
	for (k = 0; k < nglobals; k++)
		emit("global g_" k (k % 3 == 0 ? " = " k * 7 : ""))
	for (k = 0; k < narrays; k++)
		emit("global arr_" k (k % 2 ? "[" (k + 1) * 1000 "]" : ""))
	for (k = 0; k < nstats; k++)
		emit("global stat_" k)
	emit("global names%[5000]")
	flush()
	# Units until the next one might not fit; then comment lines up to the count.
	for (unit = 0; ; unit++) {
		r = unit % 9
		if (r == 0 || r == 4) { function_def(nfuncs); nfuncs++ }
		else if (r == 7) string_function(unit)
		else if (r == 8) report_probe()
		else probe_def(unit)
		if (printed + nout > lines) break
		flush()
	}
	nout = 0
	while (printed < lines) {
		print "# padding " printed
		printed++
	}
}'
