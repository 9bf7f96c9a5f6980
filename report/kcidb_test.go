package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kcidbSchema compiles the KCIDB I/O v4 constraints kept in testdata (the
// kcidb-io Python package, whose validator the issue names, cannot be
// installed here: no PyPI access).
func kcidbSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/kcidb-io-v4.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("kcidb.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("kcidb.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestKCIDB(t *testing.T) {
	sch := kcidbSchema(t)
	vm := sampleReports()[0].VM
	vm.BaseCommit = "383708845c6008c606714ac2c1d47f444bbbb68c"
	vm.BaseRef = "v6.1"
	vm.Status = VMRegression
	vm.BuildSeconds = 312.5
	vm.Tests[1].Metrics = []VMMetric{{Name: "ctxsw/transfer", Unit: "1", Better: "lower",
		Baseline: MetricStat{Median: 1.02, Min: 1, Max: 1.1, N: 3}, Patched: MetricStat{Median: 1.01, Min: 1, Max: 1.05, N: 3}, Verdict: "noise"}}
	opts := KCIDBOptions{Patches: [][]byte{[]byte("a"), []byte("b")}, PatchNames: []string{"1.patch", "2.patch"},
		MessageID: "x@example.org", Start: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	failed := *vm
	failed.Status, failed.Build, failed.BuildErrors, failed.Tests = VMBuildFailed, "failed", []string{"fs/pipe.c:1: error: x"}, nil
	refused := *vm
	refused.Status, refused.Build, refused.Refusals, refused.Tests = VMRefused, "refused", []string{"touches Makefile"}, nil
	for name, v := range map[string]*VMReport{"regression": vm, "build failed": &failed, "refused": &refused} {
		var buf bytes.Buffer
		if err := WriteKCIDB(&buf, v, opts); err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: does not validate: %v\n%s", name, err, buf.String())
		}
	}
	d := KCIDB(vm, opts)
	if len(d.Checkouts) != 2 || len(d.Builds) != 2 || len(d.Tests) != 6 {
		t.Fatalf("%d checkouts, %d builds, %d tests", len(d.Checkouts), len(d.Builds), len(d.Tests))
	}
	// sha256("a") and sha256("b"), newline-ended, hashed again.
	// (printf '%s\n%s\n' $(sha256 a) $(sha256 b) | sha256sum, as the schema describes it)
	if want := "bf75fafab8e46555836b92f1b04106b795a9ed36bd39b351f103b28819895f33"; d.Checkouts[1].PatchsetHash != want || d.Checkouts[0].PatchsetHash != "" {
		t.Errorf("patchset hashes %q %q, want \"\" and %s", d.Checkouts[0].PatchsetHash, d.Checkouts[1].PatchsetHash, want)
	}
	var hang *KCIDBTest
	for i := range d.Tests {
		if d.Tests[i].BuildID == d.Builds[1].ID && d.Tests[i].Path == "autosel.pipe-two-readers" {
			hang = &d.Tests[i]
		}
	}
	if hang == nil || hang.Status != "FAIL" || hang.Misc["regression"] != true || !strings.Contains(hang.LogExcerpt, "blocked for more than") {
		t.Errorf("patched pipe-two-readers test %+v", hang)
	}
	// The validator is not a no-op: a null, a bad status and a bad origin fail.
	for _, bad := range []func(m map[string]any){
		func(m map[string]any) { m["tests"].([]any)[0].(map[string]any)["status"] = "HANG" },
		func(m map[string]any) { m["builds"].([]any)[0].(map[string]any)["origin"] = "Autosel Bot" },
		func(m map[string]any) { m["checkouts"].([]any)[0].(map[string]any)["comment"] = nil },
	} {
		var buf bytes.Buffer
		WriteKCIDB(&buf, vm, opts)
		var m map[string]any
		json.Unmarshal(buf.Bytes(), &m)
		bad(m)
		b, _ := json.Marshal(m)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if sch.Validate(doc) == nil {
			t.Errorf("broken document validates: %s", b)
		}
	}
}
