// SPDX-License-Identifier: MIT
/*
 * watch_queue_keys: key change notifications through a notification pipe
 * (CONFIG_WATCH_QUEUE, CONFIG_KEY_NOTIFICATIONS). Every keyring change
 * below posts a record through post_watch_notification(), which walks the
 * keyring's watchers under rcu_read_lock() and writes into the pipe under
 * the watch queue's spinlock; removing the watch posts through
 * remove_watch_from_object(). A kernel that sleeps there (a mutex taken
 * on that path) prints DEBUG_ATOMIC_SLEEP's splat while this runs, and
 * the host gives the test the "crash" verdict.
 *
 * It checks: a reader blocked in read() on the pipe is woken by the first
 * notification; link, unlink and clear records arrive in order with the
 * right key ids; a queue smaller than a burst reports the loss; the
 * watch removal record arrives last.
 */
#define _GNU_SOURCE
#include <linux/keyctl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "autosel_test.h"

/*
 * The UAPI of <linux/watch_queue.h>, written out: that header pulls in
 * <linux/fcntl.h>, whose struct flock clashes with the C library's.
 */
#define O_NOTIFICATION_PIPE O_EXCL
#define IOC_WATCH_QUEUE_SET_SIZE _IO('W', 0x60)
#define WATCH_INFO_LENGTH 0x0000007f
#define WATCH_TYPE_META 0
#define WATCH_TYPE_KEY_NOTIFY 1
#define WATCH_META_REMOVAL_NOTIFICATION 0
#define WATCH_META_LOSS_NOTIFICATION 1
#define NOTIFY_KEY_LINKED 2
#define NOTIFY_KEY_UNLINKED 3
#define NOTIFY_KEY_CLEARED 4

struct watch_notification {
	uint32_t type:24;
	uint32_t subtype:8;
	uint32_t info;
};

struct key_notification {
	struct watch_notification watch;
	uint32_t key_id;
	uint32_t aux;
};

typedef int32_t key_serial_t;

/* BURST key links overflow the queue. */
#define BURST 100

static long keyctl(int cmd, unsigned long a2, unsigned long a3, unsigned long a4)
{
	return syscall(SYS_keyctl, cmd, a2, a3, a4, 0UL);
}

static key_serial_t add_user_key(const char *desc, key_serial_t ring)
{
	return (key_serial_t)syscall(SYS_add_key, "user", desc, "autosel", 7, ring);
}

/* record is one notification as read from the pipe. */
struct record {
	int type, subtype;
	uint32_t key, aux;
	int len;
};

/*
 * read_records reads what the pipe holds (the pipe is non-blocking) into
 * recs, at most max; it returns the number read.
 */
static int read_records(int fd, struct record *recs, int max)
{
	unsigned char buf[4096];
	int n = 0;

	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf)), off = 0;

		if (got <= 0)
			return n;
		while (off + (ssize_t)sizeof(struct watch_notification) <= got && n < max) {
			struct watch_notification *w = (void *)(buf + off);
			int len = w->info & WATCH_INFO_LENGTH;

			if (len < (int)sizeof(*w) || off + len > got)
				emit_result("fail", "malformed notification record (length %d)", len);
			recs[n].type = w->type;
			recs[n].subtype = w->subtype;
			recs[n].len = len;
			recs[n].key = recs[n].aux = 0;
			if (w->type == WATCH_TYPE_KEY_NOTIFY && len >= (int)sizeof(struct key_notification)) {
				struct key_notification *k = (void *)w;

				recs[n].key = k->key_id;
				recs[n].aux = k->aux;
			}
			n++;
			off += len;
		}
	}
}

/*
 * blocked_reader forks a child that blocks in read() on fd until a key
 * notification arrives; it exits 0 if the record is one.
 */
static pid_t blocked_reader(int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct watch_notification *w;
		unsigned char buf[256];
		ssize_t got = read(fd, buf, sizeof(buf));

		w = (void *)buf;
		_exit(got >= (ssize_t)sizeof(*w) && w->type == WATCH_TYPE_KEY_NOTIFY ? 0 : 1);
	}
	return pid;
}

static void expect(const struct record *r, int type, int subtype, uint32_t key, uint32_t aux, const char *what)
{
	if (r->type != type || r->subtype != subtype)
		emit_result("fail", "%s: record type %d/%d, want %d/%d", what, r->type, r->subtype, type, subtype);
	if (type == WATCH_TYPE_KEY_NOTIFY && (r->key != key || r->aux != aux))
		emit_result("fail", "%s: key %u aux %u, want key %u aux %u", what, r->key, r->aux, key, aux);
}

int main(void)
{
	struct record recs[64];
	key_serial_t ring, k1, k2;
	int p[2], n, i, lost, bad, scale = time_scale();
	pid_t reader;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ring = (key_serial_t)keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0);
	if (ring < 0)
		emit_result("fail", "KEYCTL_JOIN_SESSION_KEYRING: %s (CONFIG_KEYS?)", strerror(errno));
	if (pipe2(p, O_NOTIFICATION_PIPE) < 0)
		emit_result("fail", "pipe2(O_NOTIFICATION_PIPE): %s (CONFIG_WATCH_QUEUE?)", strerror(errno));
	if (ioctl(p[0], IOC_WATCH_QUEUE_SET_SIZE, 8) < 0)
		emit_result("fail", "IOC_WATCH_QUEUE_SET_SIZE: %s", strerror(errno));
	if (keyctl(KEYCTL_WATCH_KEY, (unsigned long)ring, (unsigned long)p[0], 0x01) < 0)
		emit_result("fail", "KEYCTL_WATCH_KEY: %s (CONFIG_KEY_NOTIFICATIONS?)", strerror(errno));

	/* A reader asleep on the empty pipe is woken by the first record. */
	reader = blocked_reader(p[0]);
	if (reader < 0)
		emit_result("fail", "fork: %s", strerror(errno));
	if (!wait_sleeping(&reader, 1, 2000 * scale))
		emit_log("the reader did not block before the first key change");
	k1 = add_user_key("autosel:1", ring);
	if (k1 < 0)
		emit_result("fail", "add_key: %s", strerror(errno));
	if (reap_all(&reader, 1, 3000 * scale, &bad) != 1)
		emit_result("hang", "a reader blocked on the notification pipe was not woken by a key link");
	if (bad)
		emit_result("fail", "the woken reader did not read a key notification");

	fcntl(p[0], F_SETFL, O_NONBLOCK);
	k2 = add_user_key("autosel:2", ring);
	if (k2 < 0)
		emit_result("fail", "add_key: %s", strerror(errno));
	if (keyctl(KEYCTL_UNLINK, (unsigned long)k1, (unsigned long)ring, 0) < 0)
		emit_result("fail", "KEYCTL_UNLINK: %s", strerror(errno));
	if (keyctl(KEYCTL_CLEAR, (unsigned long)ring, 0, 0) < 0)
		emit_result("fail", "KEYCTL_CLEAR: %s", strerror(errno));
	n = read_records(p[0], recs, 64);
	if (n != 3)
		emit_result("fail", "%d records after link, unlink and clear, want 3", n);
	expect(&recs[0], WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_LINKED, (uint32_t)ring, (uint32_t)k2, "link");
	expect(&recs[1], WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_UNLINKED, (uint32_t)ring, (uint32_t)k1, "unlink");
	expect(&recs[2], WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_CLEARED, (uint32_t)ring, 0, "clear");

	/*
	 * A burst larger than the queue (8 notes ask for one page of 32):
	 * the overflow is lost and the reader is told.
	 */
	for (i = 0; i < BURST; i++) {
		char desc[32];

		snprintf(desc, sizeof(desc), "autosel:burst:%d", i);
		if (add_user_key(desc, ring) < 0)
			emit_result("fail", "add_key (burst %d): %s", i, strerror(errno));
	}
	n = read_records(p[0], recs, 64);
	lost = 0;
	for (i = 0; i < n; i++)
		if (recs[i].type == WATCH_TYPE_META && recs[i].subtype == WATCH_META_LOSS_NOTIFICATION)
			lost = 1;
	if (n == 0 || n > 33)
		emit_result("fail", "%d of %d burst records read from a queue of 32", n, BURST);
	if (!lost)
		emit_result("fail", "%d of %d burst records read and no loss reported", n, BURST);

	/* Removing the watch posts the removal record. */
	if (keyctl(KEYCTL_WATCH_KEY, (unsigned long)ring, (unsigned long)p[0], (unsigned long)-1) < 0)
		emit_result("fail", "KEYCTL_WATCH_KEY remove: %s", strerror(errno));
	n = read_records(p[0], recs, 64);
	if (n < 1)
		emit_result("fail", "no record after the watch was removed");
	expect(&recs[n - 1], WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, 0, 0, "removal");
	close(p[0]);
	close(p[1]);
	emit_result("pass", NULL);
	return 0;
}
