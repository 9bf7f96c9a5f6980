package index

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// assignVersion changes whenever ScanAssigns' output for the same input
// does.
const assignVersion = 2

// assignTable is the member-assignment table of one view.
type assignTable struct {
	byMember map[string][]Assign
	byFunc   map[string][]Assign
}

func newAssignTable() *assignTable {
	return &assignTable{byMember: map[string][]Assign{}, byFunc: map[string][]Assign{}}
}

func (t *assignTable) add(a Assign) {
	t.byMember[a.Member] = append(t.byMember[a.Member], a)
	t.byFunc[a.Func] = append(t.byFunc[a.Func], a)
}

// assignCache is the persisted form: content key -> the file's
// assignments (File left empty: a content key may be several paths).
type assignCache struct {
	Version int
	Files   map[string][]Assign
}

// AssignsTo returns every assignment of a function to member in the view
// (designated initializers and plain assignments), ordered by file.
func (ix *Index) AssignsTo(member string) []Assign {
	return ix.assignQuery(member, true)
}

// AssignsOf returns every assignment of function fn to a struct member in
// the view: the ops tables and callbacks fn is installed in.
func (ix *Index) AssignsOf(fn string) []Assign {
	return ix.assignQuery(fn, false)
}

func (ix *Index) assignQuery(key string, member bool) []Assign {
	b := ix.root()
	b.assignOnce.Do(b.buildAssigns)
	pick := func(t *assignTable) []Assign {
		if t == nil {
			return nil
		}
		if member {
			return t.byMember[key]
		}
		return t.byFunc[key]
	}
	if ix.base == nil {
		return pick(b.assigns)
	}
	ix.overAssignsOnce.Do(func() {
		t := newAssignTable()
		for p, src := range ix.src {
			if src == nil {
				continue
			}
			for _, a := range ScanAssigns(p, src) {
				t.add(a)
			}
		}
		ix.overAssigns = t
	})
	var out []Assign
	for _, a := range pick(b.assigns) {
		if _, ok := ix.over[a.File]; !ok {
			out = append(out, a)
		}
	}
	return append(out, pick(ix.overAssigns)...)
}

// buildAssigns scans (or loads from its cache file) the member assignments
// of every file of a base index.
func (ix *Index) buildAssigns() {
	t := newAssignTable()
	ix.assigns = t
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	cacheFile := ""
	if ix.Stats.CacheFile != "" {
		cacheFile = strings.TrimSuffix(ix.Stats.CacheFile, ".bin") + fmt.Sprintf(".assign%d.gob", assignVersion)
	}
	cache := &assignCache{Version: assignVersion, Files: map[string][]Assign{}}
	if cacheFile != "" {
		if unlock, err := flock.Lock(context.Background(), cacheFile+".lock"); err == nil {
			defer unlock()
		}
		if f, err := os.Open(cacheFile); err == nil {
			var c assignCache
			if gob.NewDecoder(bufio.NewReader(f)).Decode(&c) == nil && c.Version == assignVersion && c.Files != nil {
				cache = &c
			}
			f.Close()
		}
	}
	results := make([][]Assign, len(ix.entries))
	var missing []int
	for i, e := range ix.entries {
		if as, ok := cache.Files[e.key]; ok {
			results[i] = as
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		var wg sync.WaitGroup
		jobs := make(chan int)
		for w := 0; w < runtime.NumCPU(); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					src, err := os.ReadFile(filepath.Join(ix.Root, ix.entries[i].path))
					if err != nil {
						continue
					}
					as := ScanAssigns("", src)
					if as == nil {
						as = []Assign{}
					}
					results[i] = as
				}
			}()
		}
		for _, i := range missing {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
	}
	files := make(map[string][]Assign, len(ix.entries))
	for i, e := range ix.entries {
		files[e.key] = results[i]
		for _, a := range results[i] {
			a.File = e.path
			t.add(a)
		}
	}
	if cacheFile != "" && len(missing) > 0 {
		cache.Files = files
		if err := writeGob(cacheFile, cache); err != nil {
			ix.log.Warn("assignment cache not written", "file", cacheFile, "err", err)
		}
	}
}

func writeGob(path string, v any) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".assign-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := gob.NewEncoder(w).Encode(v); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
