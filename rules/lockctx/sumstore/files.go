package sumstore

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"os"
	"strings"

	"github.com/autosel-bot/autosel-bot/index"
)

// The summary store: Prepare summarises every function of a tree once and
// writes the summaries beside the tree's index (an index side file, one
// per model, and its member index), so that a patch's analysis reads the
// summaries of the tree functions it reaches instead of recomputing the
// call graph below them. Each record also lists what its summary was
// computed from (the functions it looked up and summarised, its deps; the
// struct members it resolved calls through and the struct definitions
// it typed expressions with, structchanges.go) and the functions computed
// from it (reverse deps): invalidation.go decides, per patch, which stored
// summaries still hold. The members of a recursive component keep the
// summaries of the component's final round, entered where Prepare's walk
// entered it.

// sumVersion changes whenever what a summary holds or how it is computed
// does: a store of another version is not read.
const sumVersion = 93

// summaryKind is the side file kind of the summaries of the model named
// id.
func summaryKind(id string) string { return fmt.Sprintf("summaries-v%d-%s", sumVersion, id[:16]) }

// rdepsKind names the side file of the reverse deps alone.
func rdepsKind(id string) string { return summaryKind(id) + ".rdeps" }

// memoKey is the key of the model's storeHolder in the index's memo.
func memoKey(id string) string { return "lockctx.store." + id }

// membersPath is the member index file of the side file path.
func membersPath(side string) string { return strings.TrimSuffix(side, ".side") + ".members.gob" }

// memberIndex is the member index file's content.
type memberIndex struct {
	Generation string
	Members    map[string][]index.Ref
}

// writeMembers writes the member index of generation gen atomically.
func writeMembers(path, gen string, m map[string][]index.Ref) error {
	return index.WriteFile(path, func(w *bufio.Writer) error {
		return gob.NewEncoder(w).Encode(memberIndex{Generation: gen, Members: m})
	})
}

// readMembers reads the member index of generation gen.
func readMembers(path, gen string) (map[string][]index.Ref, error) {
	var mi memberIndex
	if err := readGob(path, &mi); err != nil {
		return nil, err
	}
	if mi.Generation != gen {
		return nil, fmt.Errorf("%s: %w", path, index.ErrStale)
	}
	if mi.Members == nil {
		mi.Members = map[string][]index.Ref{}
	}
	return mi.Members, nil
}

// rowsPath is the derived rows file beside the member index path.
func rowsPath(members string) string {
	return strings.TrimSuffix(members, ".members.gob") + ".rows.gob"
}

// regsPath is the tree registrations file beside the member index path.
func regsPath(members string) string {
	return strings.TrimSuffix(members, ".members.gob") + ".regs.gob"
}

// readGob decodes the gob file path into v.
func readGob(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
