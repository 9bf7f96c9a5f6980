package runner

import (
	"reflect"
	"testing"
)

func TestMissingOptions(t *testing.T) {
	frag := []byte("# comment\nCONFIG_SMP=y\nCONFIG_HZ_1000=y\nCONFIG_DEFAULT_HUNG_TASK_TIMEOUT=10\n# CONFIG_MODULES is not set\nCONFIG_NOPE=y\n")
	dot := []byte("CONFIG_SMP=y\n# CONFIG_HZ_1000 is not set\nCONFIG_DEFAULT_HUNG_TASK_TIMEOUT=120\n# CONFIG_MODULES is not set\n")
	got := missingOptions(frag, dot)
	want := []string{"CONFIG_HZ_1000=y (got n)", "CONFIG_DEFAULT_HUNG_TASK_TIMEOUT=10 (got 120)", "CONFIG_NOPE=y (got n)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("missing = %q, want %q", got, want)
	}
}

// TestBaseFragment checks the shipped fragment has the options the issue
// asks for.
func TestBaseFragment(t *testing.T) {
	have := map[string]string{}
	for _, o := range parseKconfig(baseFragment) {
		have[o.Name] = o.Value
	}
	for _, n := range []string{"CONFIG_64BIT", "CONFIG_SMP", "CONFIG_PREEMPT", "CONFIG_SERIAL_8250_CONSOLE",
		"CONFIG_BLK_DEV_INITRD", "CONFIG_PROC_FS", "CONFIG_SYSFS", "CONFIG_DEVTMPFS", "CONFIG_EPOLL",
		"CONFIG_FUTEX", "CONFIG_EVENTFD", "CONFIG_DEBUG_ATOMIC_SLEEP", "CONFIG_PROVE_LOCKING",
		"CONFIG_PROVE_RCU", "CONFIG_DETECT_HUNG_TASK", "CONFIG_SOFTLOCKUP_DETECTOR"} {
		if have[n] != "y" {
			t.Errorf("%s=%q in kconfig/autosel.config, want y", n, have[n])
		}
	}
}
