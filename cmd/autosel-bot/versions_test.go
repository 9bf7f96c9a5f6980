package main

import (
	"strings"
	"testing"
)

// fooV1 makes foo_a() take a mutex and foo_b() sleep under their spinlock;
// fooV2 is v2 of it, with foo_b() fixed.
const fooV1 = `From: Dev Eloper <dev@example.org>
Subject: [PATCH] foo: take the config mutex
Date: Mon, 2 Jan 2024 10:00:00 +0000
Message-ID: <v1.foo@example.org>

---
diff --git a/drivers/misc/foo.c b/drivers/misc/foo.c
--- a/drivers/misc/foo.c
+++ b/drivers/misc/foo.c
@@ -8,13 +8,16 @@ struct foo { spinlock_t lock; struct mutex cfg_mutex; int a, b; };
 static void foo_a(struct foo *f)
 {
 	spin_lock(&f->lock);
+	mutex_lock(&f->cfg_mutex);
 	f->a++;
+	mutex_unlock(&f->cfg_mutex);
 	spin_unlock(&f->lock);
 }
 
 static void foo_b(struct foo *f)
 {
 	spin_lock_irq(&f->lock);
+	msleep(10);
 	f->b++;
 	spin_unlock_irq(&f->lock);
 }
`

// TestCheckVersions: check given v1 and v2 of a series reports v2 against
// v1 (findings by id, patches by patch-id), with how to reproduce.
func TestCheckVersions(t *testing.T) {
	v2 := strings.NewReplacer("[PATCH]", "[PATCH v2]", "<v1.foo", "<v2.foo", "+\tmsleep(10);", "+\tudelay(10);", "10:00:00", "11:00:00").Replace(fooV1)
	in := writeFile(t, "foo.mbox", "From x Mon Jan  1 00:00:00 2024\n"+fooV1+"\nFrom x Mon Jan  1 00:00:00 2024\n"+v2)
	code, out, stderr := runCLI(t, "", "check", in)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"changes since v1 <v1.foo@example.org>: 1 fixed, 0 new, 1 unchanged\n",
		"  fixed: ",
		" sleep-in-atomic: drivers/misc/foo.c foo_b():",
		"  1:  ",
		" ! 1:  ",
		"reproduce:\n  base: no tree: the patches alone (patch-only analysis)\n",
		"  command: autosel-bot check " + in + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
