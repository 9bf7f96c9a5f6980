package sleep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestReverseSkipsCallersThatAlreadySleep: a function the patch makes
// sleep has 300 callers that already sleep (mutex_lock()) before they
// call it, each with a caller of its own, and one short chain to a
// spinlock three calls up. The reverse walk does not spend its callers
// (maxReverseCallers) above functions that already sleep, whose chains
// could only be notes (alreadySleeps): the chain to the spinlock is
// walked and reported. Walking the sleepers' callers first, it ran out
// before reaching the lock holder.
func TestReverseSkipsCallersThatAlreadySleep(t *testing.T) {
	const n = 300
	var src strings.Builder
	src.WriteString("#include <linux/delay.h>\n#include <linux/mutex.h>\n#include <linux/spinlock.h>\n\n")
	src.WriteString("static DEFINE_SPINLOCK(zb_lock);\nstatic DEFINE_MUTEX(zb_mutex);\n\n")
	src.WriteString("void zb_target(void)\n{\n}\n\n")
	src.WriteString("void zb_a(void)\n{\n\tzb_target();\n}\n\nvoid zb_b(void)\n{\n\tzb_a();\n}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "void zb_mid%d(void)\n{\n\tmutex_lock(&zb_mutex);\n\tmutex_unlock(&zb_mutex);\n\tzb_target();\n}\n\n", i)
		fmt.Fprintf(&src, "void zb_top%d(void)\n{\n\tzb_mid%d();\n}\n\n", i, i)
	}
	src.WriteString("void zb_c(void)\n{\n\tspin_lock(&zb_lock);\n\tzb_b();\n\tspin_unlock(&zb_lock);\n}\n")
	patch := `diff --git a/drivers/misc/zb.c b/drivers/misc/zb.c
--- a/drivers/misc/zb.c
+++ b/drivers/misc/zb.c
@@ -7,5 +7,6 @@ static DEFINE_MUTEX(zb_mutex);
 
 void zb_target(void)
 {
+	msleep(1);
 }
 
`
	text := "reverse walk past callers that already sleep\n" +
		"modes: tree\n" +
		"WANT risk sleep-in-atomic zb_target chain:msleep key:zb_lock\n" +
		"-- patch --\n" + patch +
		"-- drivers/misc/zb.c --\n" + src.String()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reverse-budget.txtar"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rulestest.RunCases(t, dir, New)
}
