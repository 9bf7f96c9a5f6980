package textfmt

import (
	"strings"
	"testing"
)

func TestPlural(t *testing.T) {
	tests := []struct {
		n         int
		one, many string
		want      string
	}{
		{0, "patch", "patches", "0 patches"},
		{1, "patch", "patches", "1 patch"},
		{2, "patch", "patches", "2 patches"},
		{11, "other file", "other files", "11 other files"},
		{-1, "risk", "risks", "-1 risks"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Plural(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want)
		}
	}
}

func TestWidth(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"pipe_read", 9},
		{"Grüße", 5},       // two-byte letters: one column each
		{"Gru\u0308ße", 5}, // a combining mark takes no column
		{"張宏辰", 6},         // wide characters: two columns each
		{"\tx", 1},         // a tab is not measured (callers expand tabs)
		{"ｈａｌｆ", 8},        // fullwidth Latin
		{"e\u200bx", 2},    // zero-width space
		{"résumé 履歴書", 13}, // mixed
	}
	for _, tt := range tests {
		if got := Width(tt.s); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestFill(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		width       int
		first, rest string
		want        []string
	}{
		{name: "fits", text: "a b c", width: 10, want: []string{"a b c"}},
		{name: "breaks", text: "aaa bbb ccc", width: 7, want: []string{"aaa bbb", "ccc"}},
		{name: "exact width", text: "aaaa bbbb", width: 9, want: []string{"aaaa bbbb"}},
		{name: "long word alone", text: "a verylongword b", width: 5, want: []string{"a", "verylongword", "b"}},
		{name: "indent counts", text: "aa bb cc", width: 8, first: "  * ", rest: "    ", want: []string{"  * aa", "    bb", "    cc"}},
		{name: "newlines are spaces", text: "aa\nbb\tcc", width: 20, want: []string{"aa bb cc"}},
		{name: "empty", text: "  ", width: 10, first: "> ", want: []string{"> "}},
		// Wide characters: 4 words of 2 columns each; bytes would count 6.
		{name: "display width", text: "張 宏 辰 張", width: 5, want: []string{"張 宏", "辰 張"}},
		{name: "umlauts fit", text: "Grüße Grüße", width: 11, want: []string{"Grüße Grüße"}},
	}
	for _, tt := range tests {
		got := Fill(tt.text, tt.width, tt.first, tt.rest)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: Fill = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{name: "paragraphs", text: "aa bb\ncc\n\ndd ee", width: 5, want: []string{"aa bb", "cc", "", "dd ee"}},
		{name: "blank runs", text: "\n\naa\n\n\n\nbb\n", width: 10, want: []string{"aa", "", "bb"}},
		{name: "empty", text: " \n ", width: 10, want: nil},
		{name: "wide", text: "張宏辰 張宏辰", width: 12, want: []string{"張宏辰", "張宏辰"}},
	}
	for _, tt := range tests {
		got := Wrap(tt.text, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("%s: Wrap = %q, want %q", tt.name, got, tt.want)
		}
	}
}
