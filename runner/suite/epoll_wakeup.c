// SPDX-License-Identifier: MIT
/*
 * epoll_wakeup: N threads block in epoll_wait(maxevents=1) on one epoll
 * instance watching N edge-triggered eventfds; all N eventfds are signalled
 * at once, so every thread must wake and harvest one event. A thread left
 * asleep is a lost wakeup (the bug epoll60 in the kernel's selftests was
 * written for, fixed by "epoll: atomically remove wait entry on wake up").
 *
 * Unlike epoll60 this version does not busy-wait (the guest may run under
 * an emulator with two vCPUs): it checks /proc/self/task/<tid>/stat to know
 * the waiters are asleep in the kernel.
 *
 * Metric: time from signalling to the last thread awake (median of rounds).
 * Arguments: [threads (default 8)] [rounds (default 30)]
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include "autosel_test.h"

#define MAXT 32

static int epfd, nthreads;
static pid_t tids[MAXT];
static volatile int stop;
static int waiters;		/* threads inside (or about to enter) epoll_wait */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int round_no;		/* bumped by main to start a round */
static int errors;

static void *waiter(void *arg)
{
	int idx = (int)(long)arg, seen = 0;
	struct epoll_event e;
	uint64_t v;

	tids[idx] = (pid_t)syscall(SYS_gettid);
	for (;;) {
		pthread_mutex_lock(&mu);
		while (round_no == seen && !stop)
			pthread_cond_wait(&cv, &mu);
		seen = round_no;
		pthread_mutex_unlock(&mu);
		if (stop)
			break;
		if (epoll_wait(epfd, &e, 1, -1) != 1) {
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
		} else if (read(e.data.fd, &v, sizeof(v)) != sizeof(v)) {
			/* ET: each wakeup must come with its own ready eventfd. */
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_sub(&waiters, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int task_asleep(pid_t tid)
{
	return task_state(tid) == 'S';
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 30, evfd[MAXT], i, r, scale = time_scale();
	pthread_t th[MAXT];
	double lat[1000];

	setvbuf(stdout, NULL, _IOLBF, 0);
	nthreads = argc > 1 ? atoi(argv[1]) : 8;
	if (nthreads < 2 || nthreads > MAXT || rounds < 1 || rounds > 1000)
		emit_result("fail", "bad arguments");
	epfd = epoll_create1(0);
	if (epfd < 0)
		emit_result("fail", "epoll_create1: %s", strerror(errno));
	for (i = 0; i < nthreads; i++) {
		struct epoll_event e = { .events = EPOLLIN | EPOLLET };

		evfd[i] = eventfd(0, EFD_NONBLOCK);
		if (evfd[i] < 0)
			emit_result("fail", "eventfd: %s", strerror(errno));
		e.data.fd = evfd[i];
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, evfd[i], &e) < 0)
			emit_result("fail", "epoll_ctl: %s", strerror(errno));
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, waiter, (void *)(long)i))
			emit_result("fail", "pthread_create failed");
	for (r = 0; r < rounds; r++) {
		uint64_t one = 1;
		int64_t t0, end;
		int asleep = 0;

		__atomic_store_n(&waiters, nthreads, __ATOMIC_RELEASE);
		pthread_mutex_lock(&mu);
		round_no++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		/* Wait until every waiter sleeps in epoll_wait. */
		end = now_ns() + 2000LL * scale * 1000000LL;
		while (now_ns() < end) {
			asleep = 0;
			for (i = 0; i < nthreads; i++)
				asleep += tids[i] && task_asleep(tids[i]);
			if (asleep == nthreads)
				break;
			sleep_ms(1);
		}
		sleep_ms(1);
		t0 = now_ns();
		for (i = 0; i < nthreads; i++)
			if (write(evfd[i], &one, sizeof(one)) != sizeof(one))
				emit_result("fail", "eventfd write: %s", strerror(errno));
		end = t0 + 1000LL * scale * 1000000LL;
		while (__atomic_load_n(&waiters, __ATOMIC_ACQUIRE) > 0 && now_ns() < end)
			sched_yield();
		if (__atomic_load_n(&waiters, __ATOMIC_ACQUIRE) > 0)
			emit_result("hang", "Lost wakeup! round %d: %d of %d epoll waiters still asleep %d ms after all %d eventfds were signalled",
				    r, waiters, nthreads, 1000 * scale, nthreads);
		lat[r] = (now_ns() - t0) / 1e6;
		if (errors)
			emit_result("fail", "%d waiters woke without their event", errors);
	}
	qsort(lat, rounds, sizeof(lat[0]), cmp_double);
	emit_log("%d threads x %d rounds, wake-all latency median %.3f ms, max %.3f ms",
		 nthreads, rounds, lat[rounds / 2], lat[rounds - 1]);
	emit_metric("wake_all_ms", lat[rounds / 2], "ms", "lower");
	emit_result("pass", "all waiters woke in every round");
	return 0;
}
