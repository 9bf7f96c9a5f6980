package report

import (
	"encoding/json"
	"io"
)

// SchemaID names the JSON format written by WriteJSON; it changes only
// when a field is removed or changes meaning (fields may be added).
const SchemaID = "autosel-bot/report/v1"

// jsonReport is one line of WriteJSON's output: the schema name, then the
// Report's fields (see schema.json and the doc comments of Report).
type jsonReport struct {
	Schema string `json:"schema"`
	*Report
}

// WriteJSON writes reports as JSON Lines: one JSON object per series, one
// per line, in order, each with "schema": SchemaID followed by the fields
// of Report. The field names and meanings are documented on the Go types
// and in report/schema.json (a JSON Schema kept in sync by the package's
// tests). Empty lists are written as [] for patches, files, funcs and
// findings, so consumers need not test for null. Findings without an id
// get one (AssignIDs).
func WriteJSON(w io.Writer, reports []*Report) error {
	ensureIDs(reports)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range reports {
		if err := enc.Encode(jsonReport{SchemaID, normalized(r)}); err != nil {
			return err
		}
	}
	return nil
}

// normalized returns r with nil lists that the schema marks as always
// present replaced by empty ones (a shallow copy; r is not modified).
func normalized(r *Report) *Report {
	c := *r
	if c.Patches == nil {
		c.Patches = []PatchReport{}
	}
	ps := make([]PatchReport, len(c.Patches))
	copy(ps, c.Patches)
	for i := range ps {
		if ps[i].Files == nil {
			ps[i].Files = []string{}
		}
		if ps[i].Funcs == nil {
			ps[i].Funcs = []string{}
		}
		if ps[i].Findings == nil {
			ps[i].Findings = []Finding{}
		}
	}
	c.Patches = ps
	return &c
}
