// SPDX-License-Identifier: MIT
/*
 * syscall_exercise: drives the syscall paths the suite's kernels are most
 * often patched in (pipes, FIFOs, splice, epoll, eventfd, signalfd,
 * timerfd, futex, poll/select, fcntl pipe resizing, notification pipes,
 * fork/exit/wait, tmpfs files and locks), each in its blocking and
 * non-blocking variants. The program itself only checks return values; its
 * real job is to make a patched kernel hit its own debug checks
 * (DEBUG_ATOMIC_SLEEP, lockdep, RCU checks): the host attributes any splat
 * printed while it runs to this test and gives it the "crash" verdict.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include "autosel_test.h"

#ifndef O_NOTIFICATION_PIPE
#define O_NOTIFICATION_PIPE O_EXCL
#endif
#define IOC_WATCH_QUEUE_SET_SIZE _IO('W', 0x60)

static int steps;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		steps++;                                                     \
		if (!(cond))                                                 \
			emit_result("fail", __VA_ARGS__);                    \
	} while (0)

static void pipes(void)
{
	int p[2], q[2], n, sz, i;
	char buf[8192];
	struct pollfd pfd;
	fd_set rfds;
	struct timeval tv = { 0, 0 };
	pid_t pid;

	memset(buf, 'a', sizeof(buf));
	CHECK(pipe2(p, O_NONBLOCK) == 0, "pipe2: %s", strerror(errno));
	CHECK(read(p[0], buf, 1) < 0 && errno == EAGAIN, "empty nonblocking read did not EAGAIN");
	CHECK(write(p[1], buf, 100) == 100, "pipe write: %s", strerror(errno));
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 100, "FIONREAD gave %d", n);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN), "poll on readable pipe");
	FD_ZERO(&rfds);
	FD_SET(p[0], &rfds);
	CHECK(select(p[0] + 1, &rfds, NULL, NULL, &tv) == 1, "select on readable pipe");
	/* pipe_resize_ring: grow, shrink below the contents (EBUSY), grow. */
	sz = fcntl(p[1], F_GETPIPE_SZ);
	CHECK(sz > 0, "F_GETPIPE_SZ: %s", strerror(errno));
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) >= (1 << 20), "F_SETPIPE_SZ 1M: %s", strerror(errno));
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 4096) >= 4096, "F_SETPIPE_SZ 4K: %s", strerror(errno));
	CHECK(fcntl(p[1], F_SETPIPE_SZ, sz) >= sz, "F_SETPIPE_SZ back: %s", strerror(errno));
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	CHECK(errno == EAGAIN, "full nonblocking write: %s", strerror(errno));
	pfd.fd = p[1];
	pfd.events = POLLOUT;
	CHECK(poll(&pfd, 1, 0) == 0, "poll says a full pipe is writable");
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	/* splice and tee between two pipes, vmsplice in. */
	CHECK(pipe(q) == 0, "pipe: %s", strerror(errno));
	{
		struct iovec iov = { buf, 4096 };

		CHECK(vmsplice(p[1], &iov, 1, 0) == 4096, "vmsplice: %s", strerror(errno));
	}
	CHECK(tee(p[0], q[1], 4096, 0) == 4096, "tee: %s", strerror(errno));
	CHECK(splice(p[0], NULL, q[1], NULL, 4096, 0) == 4096, "splice: %s", strerror(errno));
	CHECK(read(q[0], buf, sizeof(buf)) == 8192, "read after tee+splice");
	/* O_DIRECT packet pipe. */
	close(q[0]);
	close(q[1]);
	CHECK(pipe2(q, O_DIRECT) == 0, "pipe2 O_DIRECT: %s", strerror(errno));
	CHECK(write(q[1], buf, 10) == 10 && write(q[1], buf, 20) == 20, "packet writes");
	CHECK(read(q[0], buf, sizeof(buf)) == 10, "packet read kept boundaries");
	close(q[0]);
	close(q[1]);
	/* Blocking reader woken by a writer in another process, many times. */
	close(p[0]);
	close(p[1]);
	CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		for (i = 0; i < 200; i++) {
			if (write(p[1], buf, 1 + i) != 1 + i)
				_exit(1);
			if (i % 16 == 0)
				sched_yield();
		}
		_exit(0);
	}
	close(p[1]);
	n = 0;
	for (;;) {
		ssize_t r = read(p[0], buf, sizeof(buf));

		CHECK(r >= 0, "blocking pipe read: %s", strerror(errno));
		if (r == 0)
			break;
		n += r;
	}
	CHECK(n == 200 * 201 / 2, "pipe carried %d bytes, want %d", n, 200 * 201 / 2);
	close(p[0]);
	waitpid(pid, &i, 0);
	CHECK(WIFEXITED(i) && WEXITSTATUS(i) == 0, "pipe writer child failed");
	/* Notification pipe (watch_queue): setup and teardown paths. */
	if (pipe2(p, O_NOTIFICATION_PIPE) == 0) {
		CHECK(ioctl(p[0], IOC_WATCH_QUEUE_SET_SIZE, 16) == 0,
		      "IOC_WATCH_QUEUE_SET_SIZE: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
	} else {
		emit_log("notification pipes unavailable: %s", strerror(errno));
	}
}

static void fifos(void)
{
	int r, w, st;
	char c = 'x';
	pid_t pid;

	mkdir("/tmp", 0755);
	unlink("/tmp/autosel.fifo");
	CHECK(mkfifo("/tmp/autosel.fifo", 0600) == 0, "mkfifo: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		w = open("/tmp/autosel.fifo", O_WRONLY);	/* blocks for the reader */
		_exit(w >= 0 && write(w, &c, 1) == 1 ? 0 : 1);
	}
	r = open("/tmp/autosel.fifo", O_RDONLY);
	CHECK(r >= 0, "fifo open: %s", strerror(errno));
	CHECK(read(r, &c, 1) == 1, "fifo read");
	CHECK(read(r, &c, 1) == 0, "fifo EOF");
	close(r);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fifo writer failed");
	unlink("/tmp/autosel.fifo");
}

static void epolls(void)
{
	int ep, ep2, efd, p[2];
	struct epoll_event e = { .events = EPOLLIN }, out[4];
	uint64_t v = 3;

	ep = epoll_create1(EPOLL_CLOEXEC);
	ep2 = epoll_create1(0);
	efd = eventfd(0, EFD_NONBLOCK | EFD_SEMAPHORE);
	CHECK(ep >= 0 && ep2 >= 0 && efd >= 0, "epoll/eventfd create: %s", strerror(errno));
	CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	e.data.fd = efd;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &e) == 0, "EPOLL_CTL_ADD eventfd: %s", strerror(errno));
	e.data.fd = p[0];
	e.events = EPOLLIN | EPOLLET;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &e) == 0, "EPOLL_CTL_ADD pipe: %s", strerror(errno));
	e.data.fd = ep;
	e.events = EPOLLIN;
	CHECK(epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &e) == 0, "nested epoll: %s", strerror(errno));
	CHECK(epoll_wait(ep, out, 4, 0) == 0, "epoll_wait on idle set");
	CHECK(write(efd, &v, sizeof(v)) == sizeof(v), "eventfd write");
	CHECK(write(p[1], "x", 1) == 1, "pipe write");
	CHECK(epoll_wait(ep2, out, 4, 100) == 1, "nested epoll_wait");
	CHECK(epoll_wait(ep, out, 4, 100) == 2, "epoll_wait with two ready");
	CHECK(read(efd, &v, sizeof(v)) == sizeof(v) && v == 1, "eventfd semaphore read");
	e.events = EPOLLOUT;
	e.data.fd = p[0];
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &e) == 0, "EPOLL_CTL_MOD: %s", strerror(errno));
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0, "EPOLL_CTL_DEL: %s", strerror(errno));
	close(p[1]);	/* release with an epoll watcher on the read side */
	close(p[0]);
	close(efd);
	close(ep);
	close(ep2);
}

static void fds(void)
{
	sigset_t set;
	int sfd, tfd, fd;
	struct itimerspec its = { { 0, 0 }, { 0, 2000000 } };
	uint64_t ticks;
	struct signalfd_siginfo si;
	char buf[4096];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, 0);
	CHECK(sfd >= 0, "signalfd: %s", strerror(errno));
	kill(getpid(), SIGUSR1);
	CHECK(read(sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo == SIGUSR1, "signalfd read");
	close(sfd);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	CHECK(tfd >= 0, "timerfd_create: %s", strerror(errno));
	CHECK(timerfd_settime(tfd, 0, &its, NULL) == 0, "timerfd_settime: %s", strerror(errno));
	CHECK(read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks) && ticks >= 1, "timerfd read");
	close(tfd);
	fd = open("/tmp/autosel.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0, "tmp file: %s", strerror(errno));
	memset(buf, 'b', sizeof(buf));
	CHECK(write(fd, buf, sizeof(buf)) == sizeof(buf), "file write");
	CHECK(pread(fd, buf, 100, 10) == 100, "file pread");
	CHECK(ftruncate(fd, 100) == 0, "ftruncate: %s", strerror(errno));
	CHECK(flock(fd, LOCK_EX) == 0 && flock(fd, LOCK_UN) == 0, "flock: %s", strerror(errno));
	CHECK(fcntl(fd, F_SETLK, &fl) == 0, "F_SETLK: %s", strerror(errno));
	CHECK(rename("/tmp/autosel.file", "/tmp/autosel.file2") == 0, "rename: %s", strerror(errno));
	close(fd);
	CHECK(unlink("/tmp/autosel.file2") == 0, "unlink: %s", strerror(errno));
}

static int futex_word;

static void *futex_waker(void *arg)
{
	(void)arg;
	sleep_ms(5);
	__atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static void futexes(void)
{
	pthread_t t;
	struct timespec ts = { 2, 0 };
	void *p;

	CHECK(pthread_create(&t, NULL, futex_waker, NULL) == 0, "pthread_create");
	while (__atomic_load_n(&futex_word, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	pthread_join(t, NULL);
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(p, 1, 1 << 20);
	CHECK(mprotect(p, 4096, PROT_READ) == 0, "mprotect: %s", strerror(errno));
	CHECK(munmap(p, 1 << 20) == 0, "munmap: %s", strerror(errno));
}

int main(void)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < 3; i++) {
		pipes();
		fifos();
		epolls();
		fds();
		futexes();
	}
	emit_log("%d checks done", steps);
	emit_result("pass", NULL);
	return 0;
}
