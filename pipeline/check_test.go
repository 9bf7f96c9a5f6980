package pipeline

import (
	"strings"
	"testing"
)

func TestCheckOptionsValidate(t *testing.T) {
	tests := []struct {
		o    CheckOptions
		want string // substring of the error; "": valid
	}{
		{CheckOptions{Format: "text", FailOn: "risk", Workers: 1}, ""},
		{CheckOptions{Format: "sarif", FailOn: "note", Workers: 2}, ""},
		{CheckOptions{Format: "terse", FailOn: "risk", Workers: 8}, ""},
		{CheckOptions{Format: "xml", FailOn: "risk", Workers: 2}, `check.format "xml": want text, json, email, terse or sarif`},
		{CheckOptions{Format: "", FailOn: "risk", Workers: 2}, `check.format ""`},
		{CheckOptions{Format: "json", FailOn: "bad", Workers: 2}, `check.fail_on "bad": want note or risk`},
		{CheckOptions{Format: "json", FailOn: "risk"}, `check.workers 0: want 1 or more`},
		{CheckOptions{Format: "json", FailOn: "risk", Workers: -3}, `check.workers -3: want 1 or more`},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.o, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: error %v, want %q", tt.o, err, tt.want)
		}
	}
}
