package registrations

import (
	"slices"
	"testing"
)

func TestTableName(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"handlers[]", "handlers"},
		{"tbl[][]", "tbl"},
		{"il->handlers[]", ""},
		{"pp_handlers[PP_DISASSOC]", ""},
		{"handlers", ""},
		{"(*fn)", ""},
	} {
		if got := TableName(c.call); got != c.want {
			t.Errorf("TableName(%q) = %q, want %q", c.call, got, c.want)
		}
	}
}

func TestTablesOf(t *testing.T) {
	ix := openTree(t, map[string]string{
		"drivers/misc/cmd.c": `typedef int (*cmd_fn)(struct cdev *d);

static int cmd_nop(struct cdev *d)
{
	return 0;
}

static int cmd_reset(struct cdev *d)
{
	return 1;
}

static const cmd_fn cmds[] = {
	[CMD_NOP] = cmd_nop,
	[CMD_RESET] = cmd_reset,
};

static int (*ioctls[])(struct cdev *d) = {
	cmd_reset,
};

static const char *names[] = { "nop", "reset" };

int dev_cmd(struct cdev *d, int op)
{
	static const cmd_fn local[] = { cmd_nop };

	d->handlers[0] = cmd_nop;
	return cmds[op](d) + ioctls[0](d) + local[0](d);
}
`,
	})
	const file = "drivers/misc/cmd.c"
	for _, c := range []struct {
		fn   string
		want []string
	}{
		{"cmd_reset", []string{"cmds", "ioctls"}},
		{"cmd_nop", []string{"cmds"}},
		{"dev_cmd", nil},
	} {
		if got := TablesOf(ix, file, c.fn); !slices.Equal(got, c.want) {
			t.Errorf("TablesOf(%s) = %q, want %q", c.fn, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		want int
	}{{"cmds", 13}, {"ioctls", 18}, {"names", 0}, {"local", 0}} {
		if got := TableLine(ix, file, c.name); got != c.want {
			t.Errorf("TableLine(%s) = %d, want %d", c.name, got, c.want)
		}
	}
}
