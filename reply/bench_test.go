package reply

import (
	"testing"
)

// BenchmarkCompose composes the replies of a two-patch series with a cover
// letter, stable results for five trees, findings with call chains and VM
// results, and serialises them.
func BenchmarkCompose(b *testing.B) {
	s, _, _, _ := testSeries(b)
	r := testReport(s)
	opts := sashaOptions()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		mails, err := Compose(r, s, opts)
		if err != nil || len(mails) != 3 {
			b.Fatal(err)
		}
		for _, m := range mails {
			_ = m.Bytes()
		}
	}
}
