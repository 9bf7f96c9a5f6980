package wakeup

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

func TestObjectLoop(t *testing.T) {
	for _, tc := range []struct {
		g    cscan.Guard
		want bool
	}{
		{cscan.Guard{Kind: "loop", Cond: "i = 0; i < n; i++"}, true},
		{cscan.Guard{Kind: "loop", Cond: "list_for_each_entry(b, &d->bufs, list)"}, true},
		{cscan.Guard{Kind: "loop", Cond: "f->pending"}, false},
		{cscan.Guard{Kind: "if", Cond: "i < n; x"}, false},
	} {
		if got := objectLoop(tc.g); got != tc.want {
			t.Errorf("objectLoop(%+v) = %v, want %v", tc.g, got, tc.want)
		}
	}
}
