package registrations

import (
	"reflect"
	"testing"
)

// TestArgHasRows: a row conditioned on another argument's text registers
// only through the calls that meet it (a CPU hotplug state named
// *_STARTING runs its callbacks with interrupts off, CPUHP_AP_ONLINE_DYN
// in a thread). A wrapper that passes its own callback on with a state
// meeting the condition registers its callers' functions; one passing a
// state that does not, or one it does not name (a parameter), registers
// nothing.
func TestArgHasRows(t *testing.T) {
	tree := map[string]string{
		"s.c": "static int s_start(unsigned int cpu)\n{\n\treturn 0;\n}\n\nstatic int s_online(unsigned int cpu)\n{\n\treturn 0;\n}\n\n" +
			"void init_s(void)\n{\n\tcpuhp_setup_state(CPUHP_AP_FOO_STARTING, \"foo:starting\", s_start, NULL);\n\tcpuhp_setup_state(CPUHP_AP_ONLINE_DYN, \"foo:online\", s_online, NULL);\n}\n",
		"w.c": "static int w_start(unsigned int cpu)\n{\n\treturn 0;\n}\n\nstatic int w_online(unsigned int cpu)\n{\n\treturn 0;\n}\n\nstatic int w_any(unsigned int cpu)\n{\n\treturn 0;\n}\n\n" +
			"int starting_reg(int (*fn)(unsigned int))\n{\n\treturn cpuhp_setup_state(CPUHP_AP_BAR_STARTING, \"bar\", fn, NULL);\n}\n\n" +
			"int online_reg(int (*fn)(unsigned int))\n{\n\treturn cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, \"bar\", fn, NULL);\n}\n\n" +
			"int any_reg(int state, int (*fn)(unsigned int))\n{\n\treturn cpuhp_setup_state(state, \"bar\", fn, NULL);\n}\n\n" +
			"void init_w(void)\n{\n\tstarting_reg(w_start);\n\tonline_reg(w_online);\n\tany_reg(CPUHP_AP_BAZ_STARTING, w_any);\n}\n",
	}
	cbs := []Callback{{Names: []string{"cpuhp_setup_state"}, Arg: 2, ArgHas: ArgText{Arg: 0, Any: []string{"_STARTING", "_DYING"}},
		Kind: "irq", Why: "a starting state's callback runs with interrupts off"}}
	tab := New(Config{Index: openTree(t, tree), ID: "test", Callbacks: cbs})
	var got []string
	for _, fn := range []string{"s_start", "s_online", "w_start", "w_online", "w_any"} {
		if len(tab.Of(fn)) > 0 {
			got = append(got, fn)
		}
	}
	if want := []string{"s_start", "w_start"}; !reflect.DeepEqual(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	for _, tc := range []struct {
		a    ArgText
		args []string
		want bool
	}{
		{ArgText{}, nil, true},
		{ArgText{Arg: 0, Any: []string{"_DYING"}}, []string{"CPUHP_AP_X_DYING", "n"}, true},
		{ArgText{Arg: 1, Any: []string{"_DYING"}}, []string{"CPUHP_AP_X_DYING"}, false},
		{ArgText{Arg: 0, Any: []string{"_DYING"}}, []string{"state"}, false},
	} {
		if got := tc.a.holds(tc.args); got != tc.want {
			t.Errorf("%+v holds %q: %v, want %v", tc.a, tc.args, got, tc.want)
		}
	}
}

// TestCallbackNames: the functions a registration's argument names,
// including each branch of a conditional choosing between two.
func TestCallbackNames(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want []string
	}{
		{"fn", []string{"fn"}},
		{"&fn", []string{"fn"}},
		{"(irq_handler_t)fn", []string{"fn"}},
		{"(hwp_active ?\n\t\t update_util_hwp :\n\t\t update_util)", []string{"update_util_hwp", "update_util"}},
		{"a ? (fa) : b ? fb : fc", []string{"fa", "fb", "fc"}},
		{"(a) ? fa : (fb)", []string{"fa", "fb"}},
		{"a ? fa : NULL", []string{"fa"}},
		{"a ? fa : 0", []string{"fa"}},
		{"a ? NULL : 0", nil},
		{"a ? b ? fa : fb : fc", []string{"fa", "fb", "fc"}},
		{"a ? (b ? fa : fb) : fc", []string{"fa", "fb", "fc"}},
		{"a ? get_fn(x) : fb", []string{"fb"}},
		{"NULL", nil},
		{"d->handler", nil},
		{"(a)", []string{"a"}},
	} {
		if got := CallbackNames(tc.arg); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CallbackNames(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}
