// SPDX-License-Identifier: MIT
/*
 * pipe_splice_throughput: pipe bandwidth through read()/write() and through
 * vmsplice() + splice() to /dev/null, for a fixed time each. The read/write
 * phase checks every byte it receives (a position pattern), so lost or
 * reordered pipe buffers are a failure, not just a slow number.
 *
 * Metrics: pipe_rw_mbps, splice_mbps (MiB/s, higher is better).
 * Arguments: [milliseconds per phase (default 300)]
 */
#define _GNU_SOURCE
#include <sys/uio.h>
#include "autosel_test.h"

#define CHUNK (64 * 1024)

static unsigned char pattern_at(uint64_t off)
{
	return (unsigned char)(off ^ (off >> 8) ^ (off >> 16));
}

static void writer_rw(int fd)
{
	static unsigned char buf[CHUNK];
	uint64_t off = 0;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		ssize_t i, n;

		for (i = 0; i < CHUNK; i++)
			buf[i] = pattern_at(off + i);
		n = write(fd, buf, CHUNK);
		if (n < 0)
			_exit(errno == EPIPE ? 0 : 2);
		if (n != CHUNK) {
			/* short write on a blocking pipe only at the end */
			_exit(0);
		}
		off += n;
	}
}

static void writer_splice(int fd)
{
	static unsigned char buf[CHUNK];

	signal(SIGPIPE, SIG_IGN);
	memset(buf, 0x5a, sizeof(buf));
	for (;;) {
		struct iovec iov = { buf, CHUNK };

		if (vmsplice(fd, &iov, 1, 0) < 0)
			_exit(errno == EPIPE ? 0 : 2);
	}
}

/* phase runs one writer against the parent's reader; returns MiB/s. */
static double phase(int splice_mode, int ms, char *why, size_t whylen)
{
	static unsigned char buf[CHUNK];
	int p[2], null = -1, st;
	uint64_t total = 0;
	int64_t start, end;
	pid_t pid;

	if (pipe(p) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (splice_mode) {
		null = open("/dev/null", O_WRONLY);
		if (null < 0) {
			snprintf(why, whylen, "/dev/null: %s", strerror(errno));
			return -1;
		}
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		if (splice_mode)
			writer_splice(p[1]);
		writer_rw(p[1]);
	}
	close(p[1]);
	start = now_ns();
	end = start + (int64_t)ms * 1000000LL;
	while (now_ns() < end) {
		ssize_t n, i;

		if (splice_mode)
			n = splice(p[0], NULL, null, NULL, CHUNK, SPLICE_F_MOVE);
		else
			n = read(p[0], buf, sizeof(buf));
		if (n <= 0) {
			snprintf(why, whylen, "%s returned %zd (%s) after %llu bytes",
				 splice_mode ? "splice" : "read", n, n < 0 ? strerror(errno) : "EOF",
				 (unsigned long long)total);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		if (!splice_mode) {
			for (i = 0; i < n; i++) {
				if (buf[i] != pattern_at(total + i)) {
					snprintf(why, whylen, "corrupt pipe data at byte %llu",
						 (unsigned long long)(total + i));
					kill(pid, SIGKILL);
					waitpid(pid, &st, 0);
					return -2;
				}
			}
		}
		total += n;
	}
	close(p[0]);
	if (null >= 0)
		close(null);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, whylen, "writer exited with status %#x", st);
		return -1;
	}
	return total / 1048576.0 / ((now_ns() - start) / 1e9);
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 300;
	double rw, sp;
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ms < 10)
		emit_result("fail", "bad arguments");
	rw = phase(0, ms, why, sizeof(why));
	if (rw < 0)
		emit_result("fail", "read/write phase: %s", why);
	sp = phase(1, ms, why, sizeof(why));
	if (sp < 0)
		emit_result("fail", "splice phase: %s", why);
	emit_log("read/write %.1f MiB/s, vmsplice+splice %.1f MiB/s", rw, sp);
	emit_metric("pipe_rw_mibps", rw, "MiB/s", "higher");
	emit_metric("splice_mibps", sp, "MiB/s", "higher");
	emit_result("pass", NULL);
	return 0;
}
