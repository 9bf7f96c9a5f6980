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
		{CheckOptions{Format: "text", FailOn: "risk"}, ""},
		{CheckOptions{Format: "sarif", FailOn: "note"}, ""},
		{CheckOptions{Format: "terse", FailOn: "risk"}, ""},
		{CheckOptions{Format: "xml", FailOn: "risk"}, `check.format "xml": want text, json, email, terse or sarif`},
		{CheckOptions{Format: "", FailOn: "risk"}, `check.format ""`},
		{CheckOptions{Format: "json", FailOn: "bad"}, `check.fail_on "bad": want note or risk`},
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
