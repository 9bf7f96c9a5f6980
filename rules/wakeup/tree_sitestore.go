package wakeup

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// The rule looks up the users of a wait queue among every call of a
// wait-queue primitive in the tree, indexed by the identifiers of their
// arguments (primSiteSet). Collecting them decodes every function that
// calls a primitive (about 0.2 s for Linux, a third of a one-shot check
// --tree of a small patch). Prepare collects them once per tree state and
// primitive tables, and stores, per identifier, which calls name it; a
// patch then decodes only the functions of the identifiers it asks for.

// siteVersion changes whenever what the site store holds does.
const siteVersion = 4

// siteRef names one primitive call: the calling function and the call's
// position among its calls.
type siteRef struct {
	Ref  index.Ref
	Call int32
}

// A site store file holds two gob values: the index generation it was
// computed for (read alone to tell whether the store is current), then
// the sites by identifier (map[string][]siteRef).

// sitesKind is the side file kind of the site store of tables p.
func sitesKind(p *prims) string {
	return fmt.Sprintf("wakeup-sites-v%d-%s", siteVersion, p.id)
}

// tablesID returns a digest of the tables, naming what a store was
// computed with.
func tablesID(t tables, lt *lockmodel.Table) string {
	b, err := json.Marshal(struct {
		T tables
		L *lockmodel.Table
	}{t, lt})
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// prepareSites stores the primitive calls of ix's tree by identifier,
// unless stored for its generation already. It does nothing for an index
// without a cache directory.
func prepareSites(ctx context.Context, p *prims, ix *index.Index, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root := ix.Underlying()
	if p.id == "" {
		return nil
	}
	path, gen := root.SideName(sitesKind(p)), root.Generation()
	if _, ok := readSites(path, gen, false); path == "" || ok {
		return nil
	}
	unlock, err := flock.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("wakeup sites %s: %w", path, err)
	}
	defer unlock()
	if _, ok := readSites(path, gen, false); ok {
		return nil // another process wrote it meanwhile
	}
	start := time.Now()
	words := map[string][]siteRef{}
	for _, s := range root.CallsTo(p.isPrimitive) {
		ref, ok := root.RefOf(s.Func)
		k := callIndex(s)
		if !ok || k < 0 {
			return fmt.Errorf("wakeup sites: %s: call %s at line %d not found in the index", s.Func.File, s.Call.Name, s.Call.Line)
		}
		for _, w := range siteWords(s.Call) {
			words[w] = append(words[w], siteRef{Ref: ref, Call: int32(k)})
		}
	}
	if err := writeSites(path, gen, words); err != nil {
		return fmt.Errorf("wakeup sites %s: %w", path, err)
	}
	if left, err := root.PruneOlderSides(sitesKind(p)); err != nil {
		log.Warn("old wakeup sites not removed", "files", left, "err", err)
	}
	h := holder(p, root)
	h.mu.Lock()
	h.loaded, h.words = true, words
	h.mu.Unlock()
	log.Info("wakeup sites stored", "file", path, "words", len(words), "took", time.Since(start))
	return nil
}

// writeSites writes the site store path of generation gen atomically.
func writeSites(path, gen string, words map[string][]siteRef) error {
	return index.WriteFile(path, func(w *bufio.Writer) error {
		e := gob.NewEncoder(w)
		if err := e.Encode(gen); err != nil {
			return err
		}
		return e.Encode(words)
	})
}

// readSites reads the site store path when it is of generation gen (ok),
// the sites too when words is set.
func readSites(path, gen string, words bool) (map[string][]siteRef, bool) {
	if path == "" {
		return nil, false
	}
	r, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	d := gob.NewDecoder(bufio.NewReader(r))
	var g string
	if err := d.Decode(&g); err != nil || g != gen {
		return nil, false
	}
	if !words {
		return nil, true
	}
	var m map[string][]siteRef
	if err := d.Decode(&m); err != nil {
		return nil, false
	}
	return m, true
}

// callIndex returns the position of s's call among its function's calls
// (-1 when absent).
func callIndex(s index.CallSite) int {
	for k, c := range s.Func.Calls {
		if c.Name == s.Call.Name && c.Line == s.Call.Line && slices.Equal(c.Args, s.Call.Args) {
			return k
		}
	}
	return -1
}

// siteWords returns the identifiers of a call's arguments, each once, in
// their order (what a call is indexed by, stored or not).
func siteWords(c cscan.Call) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range c.Args {
		for _, w := range identWords(a) {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// siteHolder holds the site store of one tree index, read on first use.
type siteHolder struct {
	mu     sync.Mutex
	loaded bool
	words  map[string][]siteRef
}

// holder returns tables p's site holder of tree index ix.
func holder(p *prims, ix *index.Index) *siteHolder {
	return ix.Memo("rules/wakeup:site-store:"+sitesKind(p), func() any { return &siteHolder{} }).(*siteHolder)
}

// loadSites returns the stored sites of tree index ix (not an overlay),
// nil when there are none for its generation.
func loadSites(p *prims, ix *index.Index) map[string][]siteRef {
	if p.id == "" {
		return nil
	}
	h := holder(p, ix)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loaded {
		return h.words
	}
	h.loaded = true
	h.words, _ = readSites(ix.SideName(sitesKind(p)), ix.Generation(), true)
	return h.words
}
