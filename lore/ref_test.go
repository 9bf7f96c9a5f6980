package lore

import "testing"

func TestParseRef(t *testing.T) {
	tests := []struct {
		arg      string
		ok       bool
		id, base string
	}{
		{"20200214154854.6746-542-sashal@kernel.org", true, "20200214154854.6746-542-sashal@kernel.org", ""},
		{"<20200214154854.6746-542-sashal@kernel.org>", true, "20200214154854.6746-542-sashal@kernel.org", ""},
		{"id:abc@example.org", true, "abc@example.org", ""},
		{"https://lore.kernel.org/lkml/20200214154854.6746-542-sashal@kernel.org/", true, "20200214154854.6746-542-sashal@kernel.org", "https://lore.kernel.org/lkml/"},
		{"https://lore.kernel.org/lkml/20200214154854.6746-542-sashal@kernel.org/T/#u", true, "20200214154854.6746-542-sashal@kernel.org", "https://lore.kernel.org/lkml/"},
		{"https://lore.kernel.org/all/a%2Fb@x.org/t.mbox.gz", true, "a/b@x.org", "https://lore.kernel.org/all/"},
		{"https://lore.kernel.org/r/abc@example.org", true, "abc@example.org", "https://lore.kernel.org/all/"},
		{"http://127.0.0.1:8080/test-kernel/CANaxB-zj+G9@mail.gmail.com/raw", true, "CANaxB-zj+G9@mail.gmail.com", "http://127.0.0.1:8080/test-kernel/"},
		{"https://lore.kernel.org/lkml/", false, "", ""},
		{"testdata/seeds/000.mbox", false, "", ""},
		{"-", false, "", ""},
		{"--tree", false, "", ""},
		{"a b@c", false, "", ""},
		{"a@b@c", false, "", ""},
		{"@host", false, "", ""},
		{"user@", false, "", ""},
	}
	for _, tc := range tests {
		r, ok := ParseRef(tc.arg)
		if ok != tc.ok || r.MessageID != tc.id || r.Base != tc.base {
			t.Errorf("ParseRef(%q) = %+v, %v; want id %q base %q ok %v", tc.arg, r, ok, tc.id, tc.base, tc.ok)
		}
	}
}

func TestThreadURL(t *testing.T) {
	tests := []struct {
		client Client
		ref    Ref
		want   string
	}{
		{Client{}, Ref{MessageID: "a@b"}, "https://lore.kernel.org/all/a@b/t.mbox.gz"},
		{Client{BaseURL: "http://127.0.0.1:1/x"}, Ref{MessageID: "a/b@c"}, "http://127.0.0.1:1/x/a%2Fb@c/t.mbox.gz"},
		{Client{BaseURL: "http://127.0.0.1:1/x/"}, Ref{MessageID: "a@b", Base: "http://127.0.0.1:2/y/"}, "http://127.0.0.1:2/y/a@b/t.mbox.gz"},
	}
	for _, tc := range tests {
		if got := tc.client.ThreadURL(tc.ref); got != tc.want {
			t.Errorf("ThreadURL(%+v) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}
