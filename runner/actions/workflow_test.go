package actions

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

const workflowPath = "../../.github/workflows/autosel-vm.yml"

func lintWorkflow(t *testing.T, path string) []*actionlint.Error {
	t.Helper()
	sc, _ := exec.LookPath("shellcheck") // used when installed
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{Shellcheck: sc})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestWorkflowLint checks the shipped workflow with actionlint, and that a
// broken copy is caught (the check can fail).
func TestWorkflowLint(t *testing.T) {
	for _, e := range lintWorkflow(t, workflowPath) {
		t.Errorf("actionlint: %s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
	b, err := os.ReadFile(workflowPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".github", "workflows")
	os.MkdirAll(dir, 0o755)
	broken := filepath.Join(dir, "broken.yml")
	os.WriteFile(broken, []byte(strings.Replace(string(b), "name: autosel-results-${{ inputs.run_key }}", "name: autosel-results-${{ inputs.run_kye }}", 1)), 0o644)
	if errs := lintWorkflow(t, broken); len(errs) == 0 {
		t.Error("actionlint found nothing in a workflow using an undefined input")
	}
}

// TestWorkflowContract checks that the workflow takes what the backend
// dispatches and produces what it looks for.
func TestWorkflowContract(t *testing.T) {
	b, err := os.ReadFile(workflowPath)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		RunName string `yaml:"run-name"`
		On      struct {
			Dispatch struct {
				Inputs map[string]struct {
					Required bool   `yaml:"required"`
					Type     string `yaml:"type"`
				} `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				If   string            `yaml:"if"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(workflowPath) != "autosel-vm.yml" {
		t.Errorf("the backend dispatches autosel-vm.yml by default")
	}
	if wf.RunName != "autosel-vm ${{ inputs.run_key }}" {
		t.Errorf("run-name %q: the backend finds runs by \"autosel-vm <key>\"", wf.RunName)
	}
	for _, in := range []string{"run_key", "bundle_asset_id"} {
		if i, ok := wf.On.Dispatch.Inputs[in]; !ok || !i.Required || i.Type != "string" {
			t.Errorf("input %s: %+v", in, i)
		}
	}
	if len(wf.On.Dispatch.Inputs) != 2 {
		t.Errorf("inputs %v: the backend sends exactly run_key and bundle_asset_id", wf.On.Dispatch.Inputs)
	}
	var entry, upload bool
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "go run ./cmd/autosel-vm ") {
				entry = true
			}
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.With["name"] == "autosel-results-${{ inputs.run_key }}" && s.If == "always()" {
				upload = true
			}
		}
	}
	if !entry || !upload {
		t.Errorf("entry point step %v, results upload step %v", entry, upload)
	}
	if _, err := os.Stat("../../cmd/autosel-vm/main.go"); err != nil {
		t.Errorf("the workflow's entry point: %v", err)
	}
}
