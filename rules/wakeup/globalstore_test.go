package wakeup

import (
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
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
static int pz_hot __read_mostly;
static int pz_a, pz_b = 2;
static int pz_grid[4][4];
static unsigned long pz_aligned __attribute__((aligned(64))) = 1;
struct pz_fwd;
static void (*pz_hook)(void);
/* static int commented; */

static void pz_enter(void)
{
	int local = 0;
	static int counted;

	local = pz_count;
}
`
	got := fileVars(typing.NewLines(src))
	want := map[string]bool{"pz_state": true, "pz_count": true, "pz_bits": true, "pz_devs": true, "pz_ops": true,
		"pz_hot": true, "pz_a": true, "pz_b": true, "pz_grid": true, "pz_aligned": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fileVars = %v, want %v", got, want)
	}
}

func TestReadsField(t *testing.T) {
	for _, c := range []struct {
		text, field string
		want        bool
	}{
		{"d->state == 1", globalMark + "state", false},
		{"d.state == 1", globalMark + "state", false},
		{"d -> state == 1", globalMark + "state", false},
		{"state == 1", globalMark + "state", true},
		{"READ_ONCE(state) && d->state", globalMark + "state", true},
		{"pz_state == PZ_WAKE", globalMark + "state", false},
		{"d->state == 1", "state", true},
	} {
		if got := readsField(c.text, c.field); got != c.want {
			t.Errorf("readsField(%q, %q) = %v, want %v", c.text, c.field, got, c.want)
		}
	}
}

func FuzzDeclNames(f *testing.F) {
	for _, s := range []string{"static int a, b[4] = { 1, 2 };", "static struct ops x = {", "int x];", "void (*fp)(void);", "static int __read_mostly y;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range declNames(s) {
			if n == "" || strings.ContainsAny(n, " \t*[]();=,") {
				t.Fatalf("declNames(%q) gave %q", s, n)
			}
		}
	})
}
