// SPDX-License-Identifier: MIT
/*
 * pipe_token_ring: Linus Torvalds' token-passing test from the exclusive
 * pipe waits commit ("pass a single token around between 64 processes"),
 * scaled down. All processes read one pipe and write the token back
 * incremented; every other transfer also writes an ignored -1 token to
 * exercise the "wake up next reader" logic. With directed (exclusive)
 * wakeups a transfer costs about one context switch; a writer that wakes
 * every reader costs many more.
 *
 * Metrics: context switches per transfer (getrusage over the whole process
 * tree) and transfers per second. A ring that stops moving is a lost wakeup:
 * the verdict is "hang".
 *
 * Arguments: [forks (processes = 2^forks, default 3)] [transfers (default 20000)]
 */
#include <sys/resource.h>
#include "autosel_test.h"

static void ring(int fd[2], int transfers, int forks)
{
	int counters[2] = { 0, -1 }, i;

	for (i = 0; i < forks; i++)
		if (fork() < 0)
			_exit(2);
	do {
		int v;

		if (read(fd[0], &v, sizeof(v)) != sizeof(v))
			_exit(3);
		if (v < 0)
			continue;
		counters[0] = v + 1;
		if (write(fd[1], counters, (1 + (v & 1)) * sizeof(int)) < 0)
			_exit(4);
	} while (counters[0] < transfers);
	/* Reap our own children so their rusage adds up in the test. */
	while (wait(NULL) > 0)
		;
	_exit(0);
}

int main(int argc, char **argv)
{
	int forks = argc > 1 ? atoi(argv[1]) : 3;
	int transfers = argc > 2 ? atoi(argv[2]) : 20000;
	int fd[2], counters[2] = { 0, -1 }, st, scale = time_scale();
	int64_t start, limit;
	struct rusage ru;
	pid_t leader;
	double secs, csw;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (forks < 0 || forks > 6 || transfers < 1)
		emit_result("fail", "bad arguments");
	if (pipe(fd) < 0)
		emit_result("fail", "pipe: %s", strerror(errno));
	if (write(fd[1], counters, sizeof(counters)) != sizeof(counters))
		emit_result("fail", "write: %s", strerror(errno));
	start = now_ns();
	leader = fork();
	if (leader < 0)
		emit_result("fail", "fork: %s", strerror(errno));
	if (leader == 0) {
		setpgid(0, 0);
		ring(fd, transfers, forks);
	}
	setpgid(leader, leader);
	close(fd[0]);
	close(fd[1]);
	limit = start + (int64_t)10 * scale * 1000000000LL;
	for (;;) {
		pid_t r = waitpid(leader, &st, WNOHANG);

		if (r == leader)
			break;
		if (now_ns() > limit) {
			kill(-leader, SIGKILL);
			waitpid(leader, &st, 0);
			emit_result("hang", "token ring with %d processes stalled: not done after %d s",
				    1 << forks, 10 * scale);
		}
		sleep_ms(5);
	}
	secs = (now_ns() - start) / 1e9;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		emit_result("fail", "ring leader exited with status %#x", st);
	getrusage(RUSAGE_CHILDREN, &ru);
	csw = (double)(ru.ru_nvcsw + ru.ru_nivcsw);
	emit_log("%d processes, %d transfers in %.3f s, %.0f context switches (%ld voluntary)",
		 1 << forks, transfers, secs, csw, ru.ru_nvcsw);
	emit_metric("ctxsw_per_transfer", csw / transfers, "switches", "lower");
	emit_metric("transfers_per_sec", transfers / secs, "1/s", "higher");
	emit_result("pass", NULL);
	return 0;
}
