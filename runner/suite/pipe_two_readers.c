// SPDX-License-Identifier: MIT
/*
 * pipe_two_readers: every reader blocked on an empty pipe must see EOF when
 * the last writer closes, and every writer blocked on a full pipe must see
 * EPIPE when the last reader closes.
 *
 * This is Andrei Vagin's CRIU reproducer for the exclusive-wait pipe change
 * (two readers, only one woken on the last close), generalised to N readers
 * and to the writer side. A reader still blocked after the close is a lost
 * wakeup: the verdict is "hang".
 */
#include "autosel_test.h"

#define MAXN 8

/* readers_round: n readers block in read(); the last writer closes. */
static int readers_round(int n, char *why, size_t whylen)
{
	pid_t pids[MAXN];
	int p[2], i, bad, done, scale = time_scale();

	if (pipe(p) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			snprintf(why, whylen, "fork: %s", strerror(errno));
			return -1;
		}
		if (pids[i] == 0) {
			int v;

			close(p[1]);
			/* EOF (0) is the only right answer: nobody writes. */
			_exit(read(p[0], &v, sizeof(v)) == 0 ? 0 : 3);
		}
	}
	close(p[0]);
	if (!wait_sleeping(pids, n, 2000 * scale))
		emit_log("readers=%d: not all readers asleep before close", n);
	sleep_ms(20);
	close(p[1]);
	done = reap_all(pids, n, 2000 * scale, &bad);
	if (done < n) {
		snprintf(why, whylen,
			 "%d of %d readers still blocked in read() %d ms after the last writer closed (lost wakeup)",
			 n - done, n, 2000 * scale);
		return 1;
	}
	if (bad) {
		snprintf(why, whylen, "%d of %d readers got data or an error instead of EOF", bad, n);
		return 2;
	}
	return 0;
}

/* writers_round: n writers block on a full pipe; the last reader closes. */
static int writers_round(int n, char *why, size_t whylen)
{
	pid_t pids[MAXN];
	int p[2], i, bad, done, fl, scale = time_scale();
	char buf[4096];

	memset(buf, 'x', sizeof(buf));
	if (pipe(p) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	fcntl(p[1], F_SETFL, fl);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			snprintf(why, whylen, "fork: %s", strerror(errno));
			return -1;
		}
		if (pids[i] == 0) {
			signal(SIGPIPE, SIG_IGN);
			close(p[0]);
			_exit(write(p[1], buf, sizeof(buf)) < 0 && errno == EPIPE ? 0 : 3);
		}
	}
	close(p[1]);
	if (!wait_sleeping(pids, n, 2000 * scale))
		emit_log("writers=%d: not all writers asleep before close", n);
	sleep_ms(20);
	close(p[0]);
	done = reap_all(pids, n, 2000 * scale, &bad);
	if (done < n) {
		snprintf(why, whylen,
			 "%d of %d writers still blocked in write() %d ms after the last reader closed (lost wakeup)",
			 n - done, n, 2000 * scale);
		return 1;
	}
	if (bad) {
		snprintf(why, whylen, "%d of %d writers did not get EPIPE", bad, n);
		return 2;
	}
	return 0;
}

int main(void)
{
	static const struct {
		int readers;	/* 1: readers round, 0: writers round */
		int n;
	} rounds[] = { { 1, 2 }, { 1, 4 }, { 0, 2 }, { 0, 4 } };
	char why[256];
	unsigned i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		int r = rounds[i].readers ? readers_round(rounds[i].n, why, sizeof(why))
					  : writers_round(rounds[i].n, why, sizeof(why));

		if (r < 0)
			emit_result("fail", "setup: %s", why);
		if (r == 1)
			emit_result("hang", "%s", why);
		if (r == 2)
			emit_result("fail", "%s", why);
		emit_log("%s=%d: all woken", rounds[i].readers ? "readers" : "writers", rounds[i].n);
	}
	emit_result("pass", "every blocked reader saw EOF and every blocked writer saw EPIPE");
	return 0;
}
