package sumstore

import (
	"math/rand"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
)

// TestRefSet checks the bit set against a map, refs in and out of range.
func TestRefSet(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s refSet
	want := map[index.Ref]bool{}
	for i := 0; i < 5000; i++ {
		r := index.MakeRef(rng.Intn(300), rng.Intn(200))
		if got := s.add(r); got == want[r] {
			t.Fatalf("add(%v) = %v with the ref in: %v", r, got, want[r])
		}
		want[r] = true
	}
	if s.len() != len(want) {
		t.Errorf("len %d, want %d", s.len(), len(want))
	}
	for i := 0; i < 5000; i++ {
		r := index.MakeRef(rng.Intn(400), rng.Intn(300))
		if s.has(r) != want[r] {
			t.Fatalf("has(%v) = %v, want %v", r, s.has(r), want[r])
		}
	}
}
