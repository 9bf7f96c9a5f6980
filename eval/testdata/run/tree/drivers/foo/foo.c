// SPDX-License-Identifier: GPL-2.0
#include <linux/spinlock.h>
#include <linux/mutex.h>

static DEFINE_SPINLOCK(foo_lock);
static DEFINE_MUTEX(foo_mutex);
static int foo_count;

void foo_update(int n)
{
	spin_lock(&foo_lock);
	foo_count += n;
	spin_unlock(&foo_lock);
}

void foo_reset(void)
{
	mutex_lock(&foo_mutex);
	foo_count = 0;
	mutex_unlock(&foo_mutex);
}

void foo_bar(void)
{
	spin_lock(&foo_lock);
	mutex_lock(&foo_mutex);
	foo_count++;
	mutex_unlock(&foo_mutex);
	spin_unlock(&foo_lock);
}
