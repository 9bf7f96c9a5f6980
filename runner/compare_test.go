package runner

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestBootFailureSummary: the summary of a patched kernel that did not
// boot says whether the baseline did.
func TestBootFailureSummary(t *testing.T) {
	failed := &KernelResult{Boot: string(BootFailure), BootDetail: "panic"}
	tests := []struct {
		name string
		base *KernelResult
		want string
	}{
		{"baseline booted", &KernelResult{Boot: "ok"}, "(baseline did)"},
		{"baseline did not boot", &KernelResult{Boot: string(BootFailure), BootDetail: "panic too"}, "(neither did the baseline)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vm := &report.VMReport{}
			compareKernels(vm, tt.base, failed)
			if vm.Status != report.VMBootFailure || !strings.HasSuffix(vm.Summary, tt.want) {
				t.Fatalf("status %q summary %q, want ...%s", vm.Status, vm.Summary, tt.want)
			}
		})
	}
}
