/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the autosel-bot regression suite programs.
 *
 * Every program writes JSON lines on stdout, one object per line:
 *   {"log":"text"}                                      free text
 *   {"metric":"name","value":1.5,"unit":"u","better":"lower|higher"}
 *   {"result":"pass|fail|hang","reason":"text"}         exactly once, last
 * The guest init frames this output on the results channel; the host side
 * (runner/results.go) parses it.
 *
 * AUTOSEL_SCALE (environment, integer >= 1) multiplies every internal wait:
 * the host sets it under TCG, where the guest is several times slower.
 */
#ifndef AUTOSEL_TEST_H
#define AUTOSEL_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static inline int time_scale(void)
{
	const char *s = getenv("AUTOSEL_SCALE");
	int v = s ? atoi(s) : 1;

	return v < 1 ? 1 : v;
}

/* json_str writes s as a JSON string body (without quotes). */
static inline void json_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static inline void emit_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("{\"log\":\"");
	json_str(stdout, buf);
	printf("\"}\n");
	fflush(stdout);
}

static inline void emit_metric(const char *name, double value, const char *unit,
			       const char *better)
{
	printf("{\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"better\":\"%s\"}\n",
	       name, value, unit, better);
	fflush(stdout);
}

/* emit_result prints the final verdict and exits (0 for pass, 1 otherwise). */
static inline void emit_result(const char *result, const char *fmt, ...)
{
	char buf[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	printf("{\"result\":\"%s\",\"reason\":\"", result);
	json_str(stdout, buf);
	printf("\"}\n");
	fflush(stdout);
	exit(strcmp(result, "pass") == 0 ? 0 : 1);
}

/*
 * stat_state returns the state letter (S, R, D, Z...) of a /proc stat file,
 * or 0 when it cannot be read (the task is gone).
 */
static inline char stat_state(const char *path)
{
	char buf[512], *p;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	return p[2];
}

/* proc_state is stat_state of /proc/<pid>/stat. */
static inline char proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return stat_state(path);
}

/* task_state is stat_state of a thread of this process. */
static inline char task_state(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return stat_state(path);
}

/*
 * wait_sleeping waits until every pid is in interruptible sleep ('S'), for
 * at most timeout_ms. Returns 1 when they all are.
 */
static inline int wait_sleeping(const pid_t *pids, int n, int timeout_ms)
{
	int64_t end = now_ns() + (int64_t)timeout_ms * 1000000LL;

	for (;;) {
		int i, all = 1;

		for (i = 0; i < n; i++)
			if (proc_state(pids[i]) != 'S')
				all = 0;
		if (all)
			return 1;
		if (now_ns() > end)
			return 0;
		sleep_ms(5);
	}
}

/*
 * reap_all waits up to timeout_ms for every pid to exit. It returns the
 * number that exited; *bad counts those whose exit status was not 0.
 * Survivors are killed and reaped.
 */
static inline int reap_all(pid_t *pids, int n, int timeout_ms, int *bad)
{
	int64_t end = now_ns() + (int64_t)timeout_ms * 1000000LL;
	int done = 0, i, st;

	*bad = 0;
	while (done < n && now_ns() < end) {
		for (i = 0; i < n; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					(*bad)++;
				pids[i] = 0;
				done++;
			}
		}
		if (done < n)
			sleep_ms(2);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &st, 0);
		}
	}
	return done;
}

#endif /* AUTOSEL_TEST_H */
