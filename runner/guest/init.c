// SPDX-License-Identifier: MIT
/*
 * init: PID 1 of the autosel-bot test initramfs.
 *
 * Mounts proc, sysfs, devtmpfs and a tmpfs on /tmp, then runs the tests
 * listed in /autosel/manifest, each in its own process group with its
 * stdout/stderr captured and a deadline, and reports on /dev/ttyS1, a UART
 * the kernel never prints to (its console is ttyS0). Each report is a frame:
 *
 *   @@AUTOSEL-BEGIN <name> <run>
 *   o <a line the test printed>
 *   k <kernel log line read from /dev/kmsg while the test ran>
 *   @@AUTOSEL-END <name> <run> exit=<n> sig=<n> timeout=<0|1> unreaped=<0|1> ms=<n> len=<n> crc=<crc32>
 *
 * len and crc (CRC-32/IEEE) cover the body lines, so the host can tell a
 * frame that arrived whole from a damaged one. The first frame is "boot"
 * (the kernel log up to init), the last line is "@@AUTOSEL-DONE". Begin and
 * end markers also go into the kernel log, so the console (ttyS0) shows
 * which test was running when something went wrong. Finally init reboots:
 * QEMU runs with -no-reboot and exits.
 *
 * Manifest: first line "scale <n>", then "<name> <runs> <timeout_ms> <path> [args...]".
 *
 * With autosel.results=console on the kernel command line (a lab such as
 * LAVA records only the console), the frames go to /dev/ttyS0 between the
 * kernel's own console lines; init waits for each write to leave the UART
 * before it logs the next marker, so the kernel's console output of the
 * marker cannot land inside a frame line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAXBODY (256 * 1024)
#define MAXLINE 1024
#define MAXARGS 16

static int out = -1;		/* results channel */
static int on_console;		/* results channel is the console UART */
static int kmsg_r = -1, kmsg_w = -1;
static char body[MAXBODY];
static size_t body_len;
static int body_trunc;
static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c;
	int n, k;

	for (n = 0; n < 256; n++) {
		c = (uint32_t)n;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

static uint32_t crc32(const char *p, size_t n)
{
	uint32_t c = 0xffffffffU;

	while (n--)
		c = crc_table[(c ^ (unsigned char)*p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffU;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void chan(const char *fmt, ...)
{
	char buf[MAXLINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	write_all(out, buf, (size_t)n);
}

static void klog(const char *fmt, ...)
{
	char buf[MAXLINE];
	va_list ap;
	int n;

	if (kmsg_w < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	write_all(kmsg_w, buf, (size_t)n);
}

/* body_add appends "<tag> <line>\n", without control characters. */
static void body_add(char tag, const char *s, size_t n)
{
	size_t i;

	if (n > MAXLINE)
		n = MAXLINE;
	if (body_len + n + 3 > MAXBODY) {
		body_trunc = 1;
		return;
	}
	body[body_len++] = tag;
	body[body_len++] = ' ';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		body[body_len++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
	}
	body[body_len++] = '\n';
}

/* drain_kmsg appends every kernel log record not read yet. */
static void drain_kmsg(void)
{
	char rec[8192];

	if (kmsg_r < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_r, rec, sizeof(rec) - 1);
		char *semi, *nl, *ts;
		char line[MAXLINE + 32];
		int m;

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return;
		rec[n] = 0;
		/* "prio,seq,usec,flags;text\n key=value\n..." */
		semi = strchr(rec, ';');
		if (!semi)
			continue;
		nl = strchr(semi, '\n');
		if (nl)
			*nl = 0;
		ts = strchr(rec, ',');
		ts = ts ? strchr(ts + 1, ',') : NULL;
		m = snprintf(line, sizeof(line), "%lld %s",
			     ts ? atoll(ts + 1) : 0LL, semi + 1);
		if (m > (int)sizeof(line) - 1)
			m = sizeof(line) - 1;
		body_add('k', line, (size_t)m);
	}
}

static void frame(const char *name, int run, int status, int timeout, int unreaped, long ms)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (body_trunc)
		body_add('x', "truncated", 9);
	chan("@@AUTOSEL-BEGIN %s %d\n", name, run);
	write_all(out, body, body_len);
	chan("@@AUTOSEL-END %s %d exit=%d sig=%d timeout=%d unreaped=%d ms=%ld len=%zu crc=%08x\n",
	     name, run, code, sig, timeout, unreaped, ms, body_len, crc32(body, body_len));
	body_len = 0;
	body_trunc = 0;
	if (on_console)
		tcdrain(out);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* collect splits the child's output into 'o' lines. */
static void collect(char *pend, size_t *plen, const char *p, size_t n, int flush)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || *plen == MAXLINE) {
			body_add('o', pend, *plen);
			*plen = 0;
			if (p[i] == '\n')
				continue;
		}
		pend[(*plen)++] = p[i];
	}
	if (flush && *plen) {
		body_add('o', pend, *plen);
		*plen = 0;
	}
}

static void run_test(const char *name, int run, long timeout_ms, char **argv, const char *scale)
{
	char pend[MAXLINE], buf[4096];
	size_t plen = 0;
	int p[2], status = 0, timeout = 0, unreaped = 0, done = 0;
	long start, deadline;
	pid_t pid;

	drain_kmsg();	/* anything between tests goes with the next one */
	klog("autosel: begin %s %d\n", name, run);
	if (pipe2(p, O_CLOEXEC) < 0) {
		body_add('e', "pipe failed", 11);
		frame(name, run, 0xff00, 0, 0, 0);
		return;
	}
	start = now_ms();
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		setenv("AUTOSEL_SCALE", scale, 1);
		setenv("PATH", "/bin:/autosel", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		body_add('e', "fork failed", 11);
		frame(name, run, 0xff00, 0, 0, 0);
		return;
	}
	setpgid(pid, pid);
	deadline = start + timeout_ms;
	for (;;) {
		struct pollfd pfd = { p[0], POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t n;

		if (!done && waitpid(pid, &status, WNOHANG) == pid)
			done = 1;
		if (left <= 0) {
			if (!done)
				timeout = 1;
			break;
		}
		if (poll(&pfd, 1, left < 50 ? (int)left : 50) > 0) {
			n = read(p[0], buf, sizeof(buf));
			if (n > 0) {
				collect(pend, &plen, buf, (size_t)n, 0);
				continue;
			}
			if (n == 0 && done)
				break;	/* EOF and the test has exited */
			if (n == 0) {
				/* EOF but not exited yet: wait for it */
				while (waitpid(pid, &status, WNOHANG) != pid && now_ms() < deadline)
					usleep(10000);
				if (now_ms() >= deadline)
					timeout = 1;
				else
					done = 1;
				break;
			}
		} else if (done) {
			break;	/* exited, and its leftovers are quiet */
		}
	}
	/* Kill the test's process group: stragglers and a timed-out test. */
	kill(-pid, SIGKILL);
	if (!done) {
		long end = now_ms() + 3000;

		while (waitpid(pid, &status, WNOHANG) != pid) {
			if (now_ms() > end) {
				unreaped = 1;
				break;
			}
			usleep(10000);
		}
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = read(p[0], buf, sizeof(buf));

		if (n <= 0)
			break;
		collect(pend, &plen, buf, (size_t)n, 0);
	}
	collect(pend, &plen, NULL, 0, 1);
	close(p[0]);
	klog("autosel: end %s %d\n", name, run);
	drain_kmsg();
	frame(name, run, status, timeout, unreaped, now_ms() - start);
}

static void finish(void)
{
	chan("@@AUTOSEL-DONE\n");
	if (out >= 0)
		tcdrain(out);
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* cmdline_has reports whether the kernel command line has the word w. */
static int cmdline_has(const char *w)
{
	char buf[4096], *tok, *save;
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, w))
			return 1;
	return 0;
}

int main(void)
{
	char line[2048], scale[16] = "1";
	struct termios t;
	FILE *m;

	crc_init();
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	on_console = cmdline_has("autosel.results=console");
	out = open(on_console ? "/dev/ttyS0" : "/dev/ttyS1", O_RDWR | O_NOCTTY);
	if (out < 0) {
		/* no results channel: say so on the console and stop */
		int c = open("/dev/console", O_WRONLY);

		if (c >= 0)
			write_all(c, "autosel-init: cannot open the results UART\n", 43);
		reboot(RB_AUTOBOOT);
		return 1;
	}
	if (tcgetattr(out, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		tcsetattr(out, TCSANOW, &t);
	}
	kmsg_r = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	kmsg_w = open("/dev/kmsg", O_WRONLY);
	signal(SIGPIPE, SIG_IGN);
	chan("@@AUTOSEL-HELLO 1\n");
	if (on_console)
		tcdrain(out);
	drain_kmsg();
	frame("boot", 0, 0, 0, 0, 0);

	m = fopen("/autosel/manifest", "r");
	if (!m) {
		chan("@@AUTOSEL-ERROR no manifest\n");
		finish();
	}
	while (fgets(line, sizeof(line), m)) {
		char *argv[MAXARGS + 1], *name, *tok, *save;
		int runs, i, argc = 0;
		long timeout_ms;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "scale ", 6)) {
			snprintf(scale, sizeof(scale), "%.15s", line + 6);
			continue;
		}
		name = strtok_r(line, " ", &save);
		tok = strtok_r(NULL, " ", &save);
		runs = tok ? atoi(tok) : 0;
		tok = strtok_r(NULL, " ", &save);
		timeout_ms = tok ? atol(tok) : 0;
		while (argc < MAXARGS && (tok = strtok_r(NULL, " ", &save)))
			argv[argc++] = tok;
		argv[argc] = NULL;
		if (!name || runs < 1 || timeout_ms < 1 || argc < 1) {
			chan("@@AUTOSEL-ERROR bad manifest line\n");
			continue;
		}
		for (i = 0; i < runs; i++)
			run_test(name, i, timeout_ms, argv, scale);
	}
	fclose(m);
	finish();
	return 0;
}
