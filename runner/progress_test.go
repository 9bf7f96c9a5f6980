package runner

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/vbauerster/mpb/v8"
)

func TestIsStepLine(t *testing.T) {
	for l, want := range map[string]bool{
		"  CC      fs/pipe.o":              true,
		"  LD      .tmp_vmlinux.kallsyms1": true,
		"  CC [M]  fs/x.o":                 true,
		"fs/pipe.c:1:1: error: x":          false,
		"make[1]: Entering directory":      false,
		"  ":                               false,
	} {
		if got := isStepLine(l); got != want {
			t.Errorf("isStepLine(%q) = %v", l, got)
		}
	}
}

func TestProgressDisplays(t *testing.T) {
	var buf bytes.Buffer
	b := newBarProgress(&buf, "patched kernel", 3, mpb.WithAutoRefresh())
	for i := 0; i < 5; i++ { // more steps than estimated: the total grows
		b.Step("  CC      fs/pipe.o")
	}
	b.Done(true)
	if !strings.Contains(buf.String(), "patched kernel") {
		t.Errorf("bar output %q", buf.String())
	}
	var logs bytes.Buffer
	p := newProgress(&bytes.Buffer{}, "kernel", 10, slog.New(slog.NewTextHandler(&logs, nil)))
	p.Step("  CC      fs/pipe.o")
	p.Done(false)
	if !strings.Contains(logs.String(), "build finished") || !strings.Contains(logs.String(), "ok=false") {
		t.Errorf("non-terminal progress logs %q", logs.String())
	}
}
