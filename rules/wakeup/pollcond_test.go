package wakeup

import (
	"reflect"
	"testing"
)

func TestStoredFields(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"\tusblp->present = 0;", []string{"present"}},
		{"\tx = dev->present;", nil},
		{"\tdev->flags |= dev->mask;", []string{"flags"}},
		{"\tif (dev->a != dev->b) dev->c = 1;", []string{"a", "b", "c"}},
		{"\tdev->count++;", []string{"count"}},
		{"\tWRITE_ONCE(dev->done, 1);", []string{"done"}},
		{"\tdev->v <<= 2;", []string{"v"}},
		{"\tif (dev->a <= 2) return;", []string{"a"}},
	} {
		if got := storedFields(tc.line); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("storedFields(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestMemberBase(t *testing.T) {
	for _, tc := range []struct{ line, member, want string }{
		{"\tif (!list->hidraw->exist)", "exist", "hidraw"},
		{"\thidraw->exist = 0;", "exist", "hidraw"},
		{"\tdevs[i].present = 0;", "present", "devs"},
		{"\tfoo(present);", "present", ""},
	} {
		if got := memberBase(tc.line, memberBaseRe(tc.member)); got != tc.want {
			t.Errorf("memberBase(%q, %q) = %q, want %q", tc.line, tc.member, got, tc.want)
		}
	}
}
