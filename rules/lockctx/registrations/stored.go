package registrations

// StoredRows is the content of the wrapper rows file Prepare stores beside
// the index (gob, by exported fields): the rows with the file a static
// wrapper's row is restricted to, and the index generation they hold for.
type StoredRows struct {
	Generation string
	Rows       []Callback
	Files      []string
}

// NewStoredRows returns the stored form of rows (Rows, DeriveRows).
func NewStoredRows(gen string, rows []Callback) StoredRows {
	f := StoredRows{Generation: gen, Rows: rows}
	for _, r := range rows {
		f.Files = append(f.Files, r.file)
	}
	return f
}

// Callbacks returns the rows, each restricted to its file again; the
// caller checks len(Files) == len(Rows) first.
func (f StoredRows) Callbacks() []Callback {
	out := append([]Callback(nil), f.Rows...)
	for i := range out {
		out[i].file = f.Files[i]
	}
	return out
}
