package sumstore

import (
	"strings"
	"sync"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// Source is where a View reads stored records: the side file (Open), or
// the records of a Prepare in progress (a Builder).
type Source interface {
	get(ref index.Ref) []byte
	// memberRefs returns the functions whose stored summaries resolved
	// a call through member key (the keys lockctx notes; "*.m" stands for m of
	// every struct); ok is false when the member index cannot be read.
	memberRefs(key string) (refs []index.Ref, ok bool)
	// wrapperRows returns the callback rows with the registration
	// wrappers derived from the tree (package registrations); ok is false when
	// they cannot be read.
	wrapperRows() (rows []registrations.Callback, ok bool)
	// treeRegs returns the tree's registrations stored with the rows;
	// ok is false when they cannot be read.
	treeRegs() (*registrations.StoredRegs, bool)
	// eachRdep calls f with every function whose stored summary was
	// computed from ref's (its reverse deps).
	eachRdep(ref index.Ref, f func(index.Ref))
}

// sideSource reads a side file; recs caches the decoded records, shared
// by every view over the same index (they never change), within the
// index's page budget (index.Options.PageCache) by bytes. The member
// index is read from its own file on first use (membersPath).
type sideSource struct {
	f *index.SideFile
	// rd holds the reverse deps alone (rdepsKind), nil when missing: a
	// climb to the top of the tree reads a few MB there instead of most
	// of the side file.
	rd          *index.SideFile
	gen         string
	membersPath string
	mu          sync.Mutex
	recs        *recordCache
	members     map[string][]index.Ref
	rows        []registrations.Callback
	rowsRead    bool
	rowsOK      bool
	regs        *registrations.StoredRegs
	regsRead    bool
}

func (s *sideSource) treeRegs() (*registrations.StoredRegs, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.regsRead {
		s.regsRead = true
		var rs registrations.StoredRegs
		if err := readGob(regsPath(s.membersPath), &rs); err == nil && rs.Generation == s.gen {
			s.regs = &rs
		}
	}
	return s.regs, s.regs != nil
}

func (s *sideSource) wrapperRows() ([]registrations.Callback, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.rowsRead {
		s.rowsRead = true
		var rs registrations.StoredRows
		if err := readGob(rowsPath(s.membersPath), &rs); err == nil && rs.Generation == s.gen && len(rs.Files) == len(rs.Rows) {
			s.rows, s.rowsOK = rs.Callbacks(), true
		}
	}
	return s.rows, s.rowsOK
}

func (s *sideSource) memberRefs(key string) ([]index.Ref, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		m, err := readMembers(s.membersPath, s.gen)
		if err != nil {
			return nil, false
		}
		s.members = m
	}
	return lookupMember(s.members, key), true
}

// lookupMember answers memberRefs from a member index.
func lookupMember(m map[string][]index.Ref, key string) []index.Ref {
	suffix, wild := strings.CutPrefix(key, "*")
	if !wild {
		return m[key]
	}
	var out []index.Ref
	for k, refs := range m {
		if strings.HasSuffix(k, suffix) {
			out = append(out, refs...)
		}
	}
	return out
}

func (s *sideSource) get(ref index.Ref) []byte { return s.f.Get(ref) }

func (s *sideSource) eachRdep(ref index.Ref, f func(index.Ref)) {
	if s.rd != nil {
		if b := s.rd.Get(ref); len(b) > 0 {
			d := recDecoder{wire.Decoder{B: b}}
			d.eachRef(f)
			return
		}
	}
	eachRdep(s.f.Get(ref), f)
}

// decoded returns the cached decoded record of ref.
func (s *sideSource) decoded(ref index.Ref) (*record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs.get(ref)
}

func (s *sideSource) keep(ref index.Ref, rec *record) {
	s.mu.Lock()
	s.recs.put(ref, rec)
	s.mu.Unlock()
}

// storeHolder is a tree index's summary store of one model, opened on
// first use and looked for again while there is none (a Prepare in another
// process, or on another Index of the same tree, may write it).
type storeHolder struct {
	mu  sync.Mutex
	src Source
}

// Open returns the summary store of the model named id (lockctx's model
// id: its tables and target) over ix's tree; nil when there is none for
// the index's generation.
func Open(ix *index.Index, id string) Source {
	if ix == nil {
		return nil
	}
	root := ix.Underlying()
	h := root.Memo(memoKey(id), func() any { return &storeHolder{} }).(*storeHolder)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src != nil {
		return h.src
	}
	path := root.SideName(summaryKind(id))
	if path == "" {
		return nil
	}
	if f, err := root.OpenSide(path); err == nil {
		rd, _ := root.OpenSide(root.SideName(rdepsKind(id)))
		h.src = &sideSource{f: f, rd: rd, gen: root.Generation(), membersPath: membersPath(path), recs: newRecordCache(root.PageCache())}
	}
	return h.src
}
