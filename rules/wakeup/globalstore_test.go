package wakeup

import (
	"reflect"
	"strings"
	"testing"
)

func TestFileVars(t *testing.T) {
	src := `// SPDX-License-Identifier: GPL-2.0
#include <linux/wait.h>
#define LIMIT 4

static DEFINE_RAW_SPINLOCK(pz_lock);
enum pz_states __read_mostly pz_state;
static int pz_count = 0;
static unsigned long pz_bits[2];
struct pz_dev *pz_devs[LIMIT] = { NULL };
static struct pz_ops pz_ops = {
	.run = pz_run,
};
int pz_run(struct pz_dev *d);
typedef int pz_t;
/* static int commented; */

static void pz_enter(void)
{
	int local = 0;
	static int counted;

	local = pz_count;
}
`
	got := fileVars(strings.Split(src, "\n"))
	want := map[string]bool{"pz_state": true, "pz_count": true, "pz_bits": true, "pz_devs": true, "pz_ops": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fileVars = %v, want %v", got, want)
	}
}
