// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_signal_more: a handler for SIGUSR1 (with SIGUSR2 in its
// mask), SIGUSR2 blocked and sent by kill(2) (it stays pending), SIGUSR1 sent by tkill(2)
// and tgkill(2), then sigpending(2). The calls go straight to the kernel (no raise()).
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled += sig == SIGUSR1;
}

int main(void)
{
	struct sigaction sa;
	sigset_t set;
	pid_t pid = getpid();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR1, &sa, NULL);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);

	syscall(SYS_kill, pid, SIGUSR2);
	syscall(SYS_tkill, pid, SIGUSR1);
	syscall(SYS_tgkill, pid, pid, SIGUSR1);
	sigpending(&set);
	return handled == 2 && sigismember(&set, SIGUSR2) ? 0 : 1;
}
