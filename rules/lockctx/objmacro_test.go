package lockctx

import (
	"maps"
	"testing"
)

func TestParseObjectMacros(t *testing.T) {
	src := "#define MEMO_GFP_FLAGS\tGFP_ATOMIC\n" +
		"# define  SPACED  (GFP_NOWAIT | __GFP_NOWARN) /* spaced */\n" +
		"#define CONT \\\n\t(GFP_KERNEL | \\\n\t __GFP_ZERO)\n" +
		"#define FUNC(x) kmalloc(x, GFP_KERNEL)\n" +
		"#define EMPTY\n" +
		"#define LINE GFP_NOIO // trailing\n" +
		"#define SAME GFP_NOWAIT\n#define SAME GFP_NOWAIT\n" +
		"#define MEMO_GFP_FLAGS GFP_KERNEL\n" +
		"#define UNDONE GFP_ATOMIC\n#undef UNDONE\n" +
		"#defined NOT_A_DEFINE 1\n"
	// MEMO_GFP_FLAGS is defined twice and UNDONE #undefined: left out.
	want := map[string]string{
		"SAME":   "GFP_NOWAIT",
		"SPACED": "(GFP_NOWAIT | __GFP_NOWARN)",
		"CONT":   "(GFP_KERNEL |  \t __GFP_ZERO)",
		"LINE":   "GFP_NOIO",
	}
	if got := parseObjectMacros(src); !maps.Equal(got, want) {
		t.Errorf("parseObjectMacros = %q, want %q", got, want)
	}
}
