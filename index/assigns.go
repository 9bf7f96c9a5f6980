package index

// assignVersion changes whenever ScanAssigns' output for the same input
// does (it is part of the store version).
const assignVersion = 5

// The member assignments of every file are part of the store (store.go),
// scanned with the file and queried by member or function name; an
// overlay's rescanned files have their own in-memory table.

// assignTable is the member-assignment table of an overlay's files.
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
	ck := "f:" + key
	if member {
		ck = "m:" + key
	}
	var base []Assign
	if v, ok := b.assignCache.Load(ck); ok {
		base = v.([]Assign)
	} else {
		as := b.st.assigns(key, !member)
		v, _ := b.assignCache.LoadOrStore(ck, as[:len(as):len(as)])
		base = v.([]Assign)
	}
	if ix.base == nil {
		return base
	}
	// An overlay's answers are cached in the overlay.
	if v, ok := ix.assignCache.Load(ck); ok {
		return v.([]Assign)
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
	own := ix.overAssigns.byFunc[key]
	if member {
		own = ix.overAssigns.byMember[key]
	}
	out := base
	for i, a := range base {
		if _, ok := ix.over[a.File]; ok {
			// Copy, leaving out the rescanned files.
			out = append([]Assign(nil), base[:i]...)
			for _, a := range base[i+1:] {
				if _, ok := ix.over[a.File]; !ok {
					out = append(out, a)
				}
			}
			break
		}
	}
	if len(own) > 0 {
		out = append(out[:len(out):len(out)], own...)
	}
	v, _ := ix.assignCache.LoadOrStore(ck, out[:len(out):len(out)])
	return v.([]Assign)
}
