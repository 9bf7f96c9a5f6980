package reply

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable"
)

// TestSeed004CheckFlow follows what `autosel-bot check --format email`
// does with seed 004's mbox and a stable section configured: load, assemble
// series, run the pipeline (patch analysis, then the stable stage over the
// seed's trees), render the reply. Its stable-bot part must have the real
// reply's lines in the same order.
func TestSeed004CheckFlow(t *testing.T) {
	msgs, errs := mail.Load(context.Background(), []string{"../testdata/seeds/004-epoll-autoremove.mbox"}, nil)
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs[0])
	}
	patch := seed004(t)
	opts, _ := epollWorld(t, patch)
	var ser *series.Series
	for _, s := range series.Assemble(msgs, series.Options{}) {
		for _, p := range s.Patches {
			if p.Msg.MessageID == patch.MessageID {
				ser = s
			}
		}
	}
	if ser == nil {
		t.Fatal("the epoll patch is in no series")
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline.Pipeline{Stages: []pipeline.Stage{an, stable.NewStage(opts, nil)}}
	r, err := p.Run(context.Background(), ser)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Errors {
		if strings.HasPrefix(e.Source, "stage stable") {
			t.Fatalf("stable stage: %s", e.Err)
		}
	}
	var b strings.Builder
	if err := Render(&b, r, ser, sashaOptions()); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		t.Logf("reply:\n%s", b.String())
	}
	want, err := os.ReadFile("testdata/seed004-stable-bot.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := structure(b.String()), structure(string(want)); got != want {
		t.Errorf("structure differs from the real stable bot reply:\n--- got\n%s\n--- want\n%s\n--- full reply\n%s", got, want, b.String())
	}
}
