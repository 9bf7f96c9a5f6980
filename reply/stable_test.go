package reply

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestWriteTreeRefused: a tree whose build the patch guard refused says
// so (not "Build OK" or "Build failed"), with the guard's reasons.
func TestWriteTreeRefused(t *testing.T) {
	var b strings.Builder
	writeTree(&b, report.TreeResult{Name: "v6.1.192", Applied: true, Build: "refused", BuildErrors: []string{
		"not built: the patch changes code that would run on the build host",
		"p: Makefile: changes code that runs on the host during the build (runner.deny_paths); allow it with runner.allow_paths",
	}})
	got := b.String()
	want := "v6.1.192: Applied OK, not built! The patch changes code that runs on the build host:\n" +
		"    p: Makefile: changes code that runs on the host during the build (runner.deny_paths); allow it with runner.allow_paths\n\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
