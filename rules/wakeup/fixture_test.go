package wakeup

// fooBase is a small character driver in kernel style: readers sleep on
// dev->wq until data arrives or the device goes away; writers produce
// data; release tears the device down.
const fooBase = `// SPDX-License-Identifier: GPL-2.0
#include <linux/fs.h>
#include <linux/wait.h>

struct foo_dev {
	wait_queue_head_t wq;
	int count;
	int writers;
	bool dead;
	struct completion done;
};

static ssize_t foo_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;
	int ret;

	ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);
	if (ret)
		return ret;
	dev->count--;
	return 1;
}

static ssize_t foo_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;

	dev->count++;
	wake_up_interruptible(&dev->wq);
	return len;
}

static int foo_release(struct inode *inode, struct file *file)
{
	struct foo_dev *dev = file->private_data;

	dev->dead = true;
	wake_up_interruptible(&dev->wq);
	complete_all(&dev->done);
	return 0;
}
`

const (
	fooKey     = "foo_dev.wq"
	waitPlain  = "ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);"
	waitExcl   = "ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || dev->dead);"
	relWake    = "\tdev->dead = true;\n\twake_up_interruptible(&dev->wq);"
	relWakeAll = "\tdev->dead = true;\n\twake_up_interruptible_all(&dev->wq);"
)
