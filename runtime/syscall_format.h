/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tables and helpers of the syscall aliases' formatting functions (tapsets/syscall_fmt*.stp,
 * syscall_ptrace.stp): system call, errno and signal names, flag and value lookups, quoted
 * user strings, signal sets and actions. Each of those tapset files includes this header in
 * its top-level %{ %}, so that any one of their functions works alone (a tapset file's
 * top-level C comes only with its own functions).
 */
#ifndef TAP_SYSCALL_FORMAT_H
#define TAP_SYSCALL_FORMAT_H

#include <linux/uaccess.h>

struct tap_sc_name {
	unsigned long value;
	const char *name;
};

/* The x86_64 system call names by number (arch/x86/entry/syscalls/syscall_64.tbl). */
static const char *const tap_sc_names[] __maybe_unused = {
	[0] = "read",
	[1] = "write",
	[2] = "open",
	[3] = "close",
	[4] = "stat",
	[5] = "fstat",
	[6] = "lstat",
	[7] = "poll",
	[8] = "lseek",
	[9] = "mmap",
	[10] = "mprotect",
	[11] = "munmap",
	[12] = "brk",
	[13] = "rt_sigaction",
	[14] = "rt_sigprocmask",
	[15] = "rt_sigreturn",
	[16] = "ioctl",
	[17] = "pread64",
	[18] = "pwrite64",
	[19] = "readv",
	[20] = "writev",
	[21] = "access",
	[22] = "pipe",
	[23] = "select",
	[24] = "sched_yield",
	[25] = "mremap",
	[26] = "msync",
	[27] = "mincore",
	[28] = "madvise",
	[29] = "shmget",
	[30] = "shmat",
	[31] = "shmctl",
	[32] = "dup",
	[33] = "dup2",
	[34] = "pause",
	[35] = "nanosleep",
	[36] = "getitimer",
	[37] = "alarm",
	[38] = "setitimer",
	[39] = "getpid",
	[40] = "sendfile",
	[41] = "socket",
	[42] = "connect",
	[43] = "accept",
	[44] = "sendto",
	[45] = "recvfrom",
	[46] = "sendmsg",
	[47] = "recvmsg",
	[48] = "shutdown",
	[49] = "bind",
	[50] = "listen",
	[51] = "getsockname",
	[52] = "getpeername",
	[53] = "socketpair",
	[54] = "setsockopt",
	[55] = "getsockopt",
	[56] = "clone",
	[57] = "fork",
	[58] = "vfork",
	[59] = "execve",
	[60] = "exit",
	[61] = "wait4",
	[62] = "kill",
	[63] = "uname",
	[64] = "semget",
	[65] = "semop",
	[66] = "semctl",
	[67] = "shmdt",
	[68] = "msgget",
	[69] = "msgsnd",
	[70] = "msgrcv",
	[71] = "msgctl",
	[72] = "fcntl",
	[73] = "flock",
	[74] = "fsync",
	[75] = "fdatasync",
	[76] = "truncate",
	[77] = "ftruncate",
	[78] = "getdents",
	[79] = "getcwd",
	[80] = "chdir",
	[81] = "fchdir",
	[82] = "rename",
	[83] = "mkdir",
	[84] = "rmdir",
	[85] = "creat",
	[86] = "link",
	[87] = "unlink",
	[88] = "symlink",
	[89] = "readlink",
	[90] = "chmod",
	[91] = "fchmod",
	[92] = "chown",
	[93] = "fchown",
	[94] = "lchown",
	[95] = "umask",
	[96] = "gettimeofday",
	[97] = "getrlimit",
	[98] = "getrusage",
	[99] = "sysinfo",
	[100] = "times",
	[101] = "ptrace",
	[102] = "getuid",
	[103] = "syslog",
	[104] = "getgid",
	[105] = "setuid",
	[106] = "setgid",
	[107] = "geteuid",
	[108] = "getegid",
	[109] = "setpgid",
	[110] = "getppid",
	[111] = "getpgrp",
	[112] = "setsid",
	[113] = "setreuid",
	[114] = "setregid",
	[115] = "getgroups",
	[116] = "setgroups",
	[117] = "setresuid",
	[118] = "getresuid",
	[119] = "setresgid",
	[120] = "getresgid",
	[121] = "getpgid",
	[122] = "setfsuid",
	[123] = "setfsgid",
	[124] = "getsid",
	[125] = "capget",
	[126] = "capset",
	[127] = "rt_sigpending",
	[128] = "rt_sigtimedwait",
	[129] = "rt_sigqueueinfo",
	[130] = "rt_sigsuspend",
	[131] = "sigaltstack",
	[132] = "utime",
	[133] = "mknod",
	[134] = "uselib",
	[135] = "personality",
	[136] = "ustat",
	[137] = "statfs",
	[138] = "fstatfs",
	[139] = "sysfs",
	[140] = "getpriority",
	[141] = "setpriority",
	[142] = "sched_setparam",
	[143] = "sched_getparam",
	[144] = "sched_setscheduler",
	[145] = "sched_getscheduler",
	[146] = "sched_get_priority_max",
	[147] = "sched_get_priority_min",
	[148] = "sched_rr_get_interval",
	[149] = "mlock",
	[150] = "munlock",
	[151] = "mlockall",
	[152] = "munlockall",
	[153] = "vhangup",
	[154] = "modify_ldt",
	[155] = "pivot_root",
	[156] = "_sysctl",
	[157] = "prctl",
	[158] = "arch_prctl",
	[159] = "adjtimex",
	[160] = "setrlimit",
	[161] = "chroot",
	[162] = "sync",
	[163] = "acct",
	[164] = "settimeofday",
	[165] = "mount",
	[166] = "umount2",
	[167] = "swapon",
	[168] = "swapoff",
	[169] = "reboot",
	[170] = "sethostname",
	[171] = "setdomainname",
	[172] = "iopl",
	[173] = "ioperm",
	[174] = "create_module",
	[175] = "init_module",
	[176] = "delete_module",
	[177] = "get_kernel_syms",
	[178] = "query_module",
	[179] = "quotactl",
	[180] = "nfsservctl",
	[181] = "getpmsg",
	[182] = "putpmsg",
	[183] = "afs_syscall",
	[184] = "tuxcall",
	[185] = "security",
	[186] = "gettid",
	[187] = "readahead",
	[188] = "setxattr",
	[189] = "lsetxattr",
	[190] = "fsetxattr",
	[191] = "getxattr",
	[192] = "lgetxattr",
	[193] = "fgetxattr",
	[194] = "listxattr",
	[195] = "llistxattr",
	[196] = "flistxattr",
	[197] = "removexattr",
	[198] = "lremovexattr",
	[199] = "fremovexattr",
	[200] = "tkill",
	[201] = "time",
	[202] = "futex",
	[203] = "sched_setaffinity",
	[204] = "sched_getaffinity",
	[205] = "set_thread_area",
	[206] = "io_setup",
	[207] = "io_destroy",
	[208] = "io_getevents",
	[209] = "io_submit",
	[210] = "io_cancel",
	[211] = "get_thread_area",
	[212] = "lookup_dcookie",
	[213] = "epoll_create",
	[214] = "epoll_ctl_old",
	[215] = "epoll_wait_old",
	[216] = "remap_file_pages",
	[217] = "getdents64",
	[218] = "set_tid_address",
	[219] = "restart_syscall",
	[220] = "semtimedop",
	[221] = "fadvise64",
	[222] = "timer_create",
	[223] = "timer_settime",
	[224] = "timer_gettime",
	[225] = "timer_getoverrun",
	[226] = "timer_delete",
	[227] = "clock_settime",
	[228] = "clock_gettime",
	[229] = "clock_getres",
	[230] = "clock_nanosleep",
	[231] = "exit_group",
	[232] = "epoll_wait",
	[233] = "epoll_ctl",
	[234] = "tgkill",
	[235] = "utimes",
	[236] = "vserver",
	[237] = "mbind",
	[238] = "set_mempolicy",
	[239] = "get_mempolicy",
	[240] = "mq_open",
	[241] = "mq_unlink",
	[242] = "mq_timedsend",
	[243] = "mq_timedreceive",
	[244] = "mq_notify",
	[245] = "mq_getsetattr",
	[246] = "kexec_load",
	[247] = "waitid",
	[248] = "add_key",
	[249] = "request_key",
	[250] = "keyctl",
	[251] = "ioprio_set",
	[252] = "ioprio_get",
	[253] = "inotify_init",
	[254] = "inotify_add_watch",
	[255] = "inotify_rm_watch",
	[256] = "migrate_pages",
	[257] = "openat",
	[258] = "mkdirat",
	[259] = "mknodat",
	[260] = "fchownat",
	[261] = "futimesat",
	[262] = "newfstatat",
	[263] = "unlinkat",
	[264] = "renameat",
	[265] = "linkat",
	[266] = "symlinkat",
	[267] = "readlinkat",
	[268] = "fchmodat",
	[269] = "faccessat",
	[270] = "pselect6",
	[271] = "ppoll",
	[272] = "unshare",
	[273] = "set_robust_list",
	[274] = "get_robust_list",
	[275] = "splice",
	[276] = "tee",
	[277] = "sync_file_range",
	[278] = "vmsplice",
	[279] = "move_pages",
	[280] = "utimensat",
	[281] = "epoll_pwait",
	[282] = "signalfd",
	[283] = "timerfd_create",
	[284] = "eventfd",
	[285] = "fallocate",
	[286] = "timerfd_settime",
	[287] = "timerfd_gettime",
	[288] = "accept4",
	[289] = "signalfd4",
	[290] = "eventfd2",
	[291] = "epoll_create1",
	[292] = "dup3",
	[293] = "pipe2",
	[294] = "inotify_init1",
	[295] = "preadv",
	[296] = "pwritev",
	[297] = "rt_tgsigqueueinfo",
	[298] = "perf_event_open",
	[299] = "recvmmsg",
	[300] = "fanotify_init",
	[301] = "fanotify_mark",
	[302] = "prlimit64",
	[303] = "name_to_handle_at",
	[304] = "open_by_handle_at",
	[305] = "clock_adjtime",
	[306] = "syncfs",
	[307] = "sendmmsg",
	[308] = "setns",
	[309] = "getcpu",
	[310] = "process_vm_readv",
	[311] = "process_vm_writev",
	[312] = "kcmp",
	[313] = "finit_module",
	[314] = "sched_setattr",
	[315] = "sched_getattr",
	[316] = "renameat2",
	[317] = "seccomp",
	[318] = "getrandom",
	[319] = "memfd_create",
	[320] = "kexec_file_load",
	[321] = "bpf",
	[322] = "execveat",
	[323] = "userfaultfd",
	[324] = "membarrier",
	[325] = "mlock2",
	[326] = "copy_file_range",
	[327] = "preadv2",
	[328] = "pwritev2",
	[329] = "pkey_mprotect",
	[330] = "pkey_alloc",
	[331] = "pkey_free",
	[332] = "statx",
	[333] = "io_pgetevents",
	[334] = "rseq",
	[424] = "pidfd_send_signal",
	[425] = "io_uring_setup",
	[426] = "io_uring_enter",
	[427] = "io_uring_register",
	[428] = "open_tree",
	[429] = "move_mount",
	[430] = "fsopen",
	[431] = "fsconfig",
	[432] = "fsmount",
	[433] = "fspick",
	[434] = "pidfd_open",
	[435] = "clone3",
	[436] = "close_range",
	[437] = "openat2",
	[438] = "pidfd_getfd",
	[439] = "faccessat2",
	[440] = "process_madvise",
	[441] = "epoll_pwait2",
	[442] = "mount_setattr",
	[443] = "quotactl_fd",
	[444] = "landlock_create_ruleset",
	[445] = "landlock_add_rule",
	[446] = "landlock_restrict_self",
	[447] = "memfd_secret",
	[448] = "process_mrelease",
	[449] = "futex_waitv",
	[450] = "set_mempolicy_home_node",
	[451] = "cachestat",
	[452] = "fchmodat2",
	[453] = "map_shadow_stack",
	[454] = "futex_wake",
	[455] = "futex_wait",
	[456] = "futex_requeue",
	[457] = "statmount",
	[458] = "listmount",
	[459] = "lsm_get_self_attr",
	[460] = "lsm_set_self_attr",
	[461] = "lsm_list_modules",
	[462] = "mseal",
};

/* errno names, as the kernel's asm-generic/errno*.h define them. */
static const char *const tap_sc_errnos[] __maybe_unused = {
	[1] = "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC",
	"EBADF", "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY",
	"EEXIST", "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE",
	"ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE",
	"EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY",
	"ELOOP", [42] = "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC", "EL3HLT", "EL3RST",
	"ELNRNG", "EUNATCH", "ENOCSI", "EL2HLT", "EBADE", "EBADR", "EXFULL", "ENOANO",
	"EBADRQC", "EBADSLT", [59] = "EBFONT", "ENOSTR", "ENODATA", "ETIME", "ENOSR",
	"ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM", "EPROTO",
	"EMULTIHOP", "EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG",
	"ELIBACC", "ELIBBAD", "ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART",
	"ESTRPIPE", "EUSERS", "ENOTSOCK", "EDESTADDRREQ", "EMSGSIZE", "EPROTOTYPE",
	"ENOPROTOOPT", "EPROTONOSUPPORT", "ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT",
	"EAFNOSUPPORT", "EADDRINUSE", "EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH",
	"ENETRESET", "ECONNABORTED", "ECONNRESET", "ENOBUFS", "EISCONN", "ENOTCONN",
	"ESHUTDOWN", "ETOOMANYREFS", "ETIMEDOUT", "ECONNREFUSED", "EHOSTDOWN",
	"EHOSTUNREACH", "EALREADY", "EINPROGRESS", "ESTALE", "EUCLEAN", "ENOTNAM",
	"ENAVAIL", "EISNAM", "EREMOTEIO", "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE",
	"ECANCELED", "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED", "EKEYREJECTED",
	"EOWNERDEAD", "ENOTRECOVERABLE", "ERFKILL", "EHWPOISON",
	[512] = "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD",
	"ERESTART_RESTARTBLOCK", "EPROBE_DEFER", "EOPENSTALE", "ENOPARAM",
	[521] = "EBADHANDLE", "ENOTSYNC", "EBADCOOKIE", "ENOTSUPP", "ETOOSMALL",
	"ESERVERFAULT", "EBADTYPE", "EJUKEBOX", "EIOCBQUEUED", "ERECALLCONFLICT",
};

/* The signals stap names, in its order (SIGPIPE before SIGUSR2, which a signal set follows):
 * no SIGSTKFLT and no real-time signal (those are 0x10, 0x20...), SIGIO as SIGIO/SIGPOLL,
 * and ptrace's SIGTRAP|0x80 as TRACESYSGOOD. */
static const struct tap_sc_name tap_sc_signals[] __maybe_unused = {
	{ 0, "SIG_0" }, { 1, "SIGHUP" }, { 2, "SIGINT" }, { 3, "SIGQUIT" }, { 4, "SIGILL" },
	{ 5, "SIGTRAP" }, { 6, "SIGABRT" }, { 7, "SIGBUS" }, { 8, "SIGFPE" }, { 9, "SIGKILL" },
	{ 10, "SIGUSR1" }, { 11, "SIGSEGV" }, { 13, "SIGPIPE" }, { 12, "SIGUSR2" },
	{ 14, "SIGALRM" }, { 15, "SIGTERM" }, { 17, "SIGCHLD" }, { 18, "SIGCONT" },
	{ 19, "SIGSTOP" }, { 20, "SIGTSTP" }, { 21, "SIGTTIN" }, { 22, "SIGTTOU" },
	{ 23, "SIGURG" }, { 24, "SIGXCPU" }, { 25, "SIGXFSZ" }, { 26, "SIGVTALRM" },
	{ 27, "SIGPROF" }, { 28, "SIGWINCH" }, { 29, "SIGIO/SIGPOLL" }, { 30, "SIGPWR" },
	{ 31, "SIGSYS" }, { 0x85, "TRACESYSGOOD" },
};

static inline void tap_sc_lookup(char *buf, unsigned long v, const struct tap_sc_name *table,
				 size_t n);

/* A signal's name as stap shows one: its name, else its value in hex (0x10, 0x22). */
static inline void tap_sc_signal_name(char *buf, long sig)
{
	tap_sc_lookup(buf, (unsigned long)sig, tap_sc_signals, ARRAY_SIZE(tap_sc_signals));
}

/* The names of the bits of `v` in `table` joined by |, what no name covers as |0xN;
 * `zero` when v is 0. */
static inline void tap_sc_bits(char *buf, unsigned long v, const struct tap_sc_name *table,
			       size_t n, const char *zero)
{
	size_t len = 0;
	size_t i;

	buf[0] = '\0';
	if (!v) {
		strscpy(buf, zero, MAXSTRINGLEN);
		return;
	}
	for (i = 0; i < n; i++) {
		if ((v & table[i].value) != table[i].value)
			continue;
		len += scnprintf(buf + len, MAXSTRINGLEN - len, "%s%s", len ? "|" : "",
				 table[i].name);
		v &= ~table[i].value;
	}
	if (v)
		scnprintf(buf + len, MAXSTRINGLEN - len, "%s0x%lx", len ? "|" : "", v);
}

/* Appends byte `c` to buf at *len as stap quotes it; false when it would pass `limit`. */
static inline bool tap_sc_quote_char(char *buf, size_t *len, size_t limit, unsigned char c)
{
	char esc[5];
	size_t n;

	switch (c) {
	case '\n': strscpy(esc, "\\n", sizeof(esc)); break;
	case '\t': strscpy(esc, "\\t", sizeof(esc)); break;
	case '\r': strscpy(esc, "\\r", sizeof(esc)); break;
	case '\b': strscpy(esc, "\\b", sizeof(esc)); break;
	case '\f': strscpy(esc, "\\f", sizeof(esc)); break;
	case '\v': strscpy(esc, "\\v", sizeof(esc)); break;
	case '\a': strscpy(esc, "\\a", sizeof(esc)); break;
	case '\0': strscpy(esc, "\\0", sizeof(esc)); break;
	case '"': strscpy(esc, "\\\"", sizeof(esc)); break;
	case '\\': strscpy(esc, "\\\\", sizeof(esc)); break;
	default:
		if (c >= 32 && c < 127) {
			esc[0] = c;
			esc[1] = '\0';
		} else {
			snprintf(esc, sizeof(esc), "\\%03o", c);
		}
	}
	n = strlen(esc);
	if (*len + n > limit)
		return false;
	memcpy(buf + *len, esc, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/*
 * `count` bytes of user memory at `addr` (up to the first NUL when `count` < 0), quoted
 * with at most `limit` characters between the quotes, and "..." after the closing quote
 * when they don't all fit. NULL for address 0, the address in hex when it can't be read.
 */
static inline void tap_sc_quoted(char *buf, unsigned long addr, long count, size_t limit)
{
	size_t len = 1;
	long i;

	if (!addr) {
		strscpy(buf, "NULL", MAXSTRINGLEN);
		return;
	}
	if (limit > MAXSTRINGLEN - 6)
		limit = MAXSTRINGLEN - 6;
	buf[0] = '"';
	buf[1] = '\0';
	for (i = 0; count < 0 || i < count; i++) {
		unsigned char c;

		if (copy_from_user_nofault(&c, (const void __user *)(addr + i), 1)) {
			snprintf(buf, MAXSTRINGLEN, "0x%lx", addr);
			return;
		}
		if (count < 0 && !c)
			break;
		if (!tap_sc_quote_char(buf, &len, limit + 1, c)) {
			strscpy(buf + len, "\"...", MAXSTRINGLEN - len);
			return;
		}
	}
	strscpy(buf + len, "\"", MAXSTRINGLEN - len);
}

/* One value's name out of `names` (indexed by value), or 0xN for a value without one. */
static inline void tap_sc_enum(char *buf, unsigned long v, const char *const *names, size_t n)
{
	if (v < n && names[v])
		strscpy(buf, names[v], MAXSTRINGLEN);
	else
		snprintf(buf, MAXSTRINGLEN, "0x%lx", v);
}

/* A value's name out of a table of (value, name) pairs, or 0xN for one without a name. */
static inline void tap_sc_lookup(char *buf, unsigned long v, const struct tap_sc_name *table,
				 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (table[i].value == v) {
			strscpy(buf, table[i].name, MAXSTRINGLEN);
			return;
		}
	}
	snprintf(buf, MAXSTRINGLEN, "0x%lx", v);
}

/* A signal set as stap shows one: [SIGINT|SIGTERM] by the signals it names that the set
 * holds, in its order (SIGSTKFLT and the real-time ones left out), [EMPTY]. */
static inline void tap_sc_sigset(char *buf, unsigned long set)
{
	size_t len = 0;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(tap_sc_signals); i++) {
		unsigned long sig = tap_sc_signals[i].value;

		if (sig == 0 || sig > 64 || !(set & (1UL << (sig - 1))))
			continue;
		len += scnprintf(buf + len, MAXSTRINGLEN - len, "%s%s", len ? "|" : "[",
				 tap_sc_signals[i].name);
	}
	scnprintf(buf + len, MAXSTRINGLEN - len, "%s", len ? "]" : "[EMPTY]");
}

/* A struct sigaction as stap shows one, whatever its user layout (native, or a 32-bit
 * task's compat_sigaction and old_sigaction): SIG_DFL, SIG_IGN, or the handler, the SA_*
 * flags, the restorer and the mask. */
static inline void tap_sc_sigaction(char *buf, unsigned long handler, unsigned long flags,
				    unsigned long restorer, unsigned long mask)
{
	static const struct tap_sc_name bits[] = {
		{ 1, "SA_NOCLDSTOP" }, { 2, "SA_NOCLDWAIT" }, { 0x80000000UL, "SA_RESETHAND" },
		{ 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
		{ 0x40000000, "SA_NODEFER" }, { 4, "SA_SIGINFO" }, { 0x04000000, "SA_RESTORER" },
	};
	char part[MAXSTRINGLEN];
	size_t len;

	if (handler <= 1) {
		strscpy(buf, handler ? "SIG_IGN" : "SIG_DFL", MAXSTRINGLEN);
		return;
	}
	tap_sc_bits(part, flags, bits, ARRAY_SIZE(bits), "0x0");
	len = scnprintf(buf, MAXSTRINGLEN, "0x%lx, %s, 0x%lx, ", handler, part, restorer);
	tap_sc_sigset(buf + len, mask);
}

/* A NULL-terminated user array of strings (execve's argv, envp): ["a", "b"]; its pointers
 * `size` bytes wide (8, or 4 for a 32-bit task's). */
static inline void tap_sc_str_array(char *buf, unsigned long addr, size_t size)
{
	char one[MAXSTRINGLEN];
	size_t len = 1;
	int i;

	strscpy(buf, "[", MAXSTRINGLEN);
	for (i = 0; addr; i++) {
		unsigned long str = 0;

		if (copy_from_user_nofault(&str, (const void __user *)(addr + i * size), size) ||
		    !str)
			break;
		tap_sc_quoted(one, str, -1, MAXSTRINGLEN);
		if (len + strlen(one) + 4 >= MAXSTRINGLEN)
			break;
		len += scnprintf(buf + len, MAXSTRINGLEN - len, "%s%s", i ? ", " : "", one);
	}
	strscpy(buf + len, "]", MAXSTRINGLEN - len);
}

#endif /* TAP_SYSCALL_FORMAT_H */
