package lava

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/autosel-bot/autosel-bot/runner"
)

func errorsIsInfra(err error) bool { return errors.Is(err, ErrInfra) }

func TestDefinition(t *testing.T) {
	spec := &runner.BootSpec{Accel: "tcg", Scale: 3, MemoryMB: 512, CPUs: 2, Cmdline: "console=ttyS0,115200 rdinit=/init panic=-1",
		Boot: 3 * time.Minute, Total: 10 * time.Minute, Silence: 2 * time.Minute}
	def, err := definition(&jobParams{Name: "autosel patched", DeviceType: "qemu", KernelURL: "http://h/k/bzImage",
		InitrdURL: "http://h/k/initramfs.cpio", Spec: spec, DeployTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		DeviceType string `yaml:"device_type"`
		Timeouts   map[string]map[string]int
		Context    struct {
			Arch   string   `yaml:"arch"`
			Memory int      `yaml:"memory"`
			Extra  []string `yaml:"extra_options"`
		}
		Actions []map[string]map[string]any
	}
	if err := yaml.Unmarshal([]byte(def), &job); err != nil {
		t.Fatalf("%v\n%s", err, def)
	}
	if job.DeviceType != "qemu" || job.Context.Arch != "amd64" || job.Context.Memory != 512 {
		t.Errorf("header: %+v", job)
	}
	if got := strings.Join(job.Context.Extra, " "); got != "-smp 2 -no-reboot -cpu max" {
		t.Errorf("extra options %q", got)
	}
	// The connection timeout is the silence watchdog (the longer of the
	// silence and boot limits); the job's covers deploy, boot and the run.
	if c := job.Timeouts["connection"]["seconds"]; c != 180 {
		t.Errorf("connection timeout %d s, want 180", c)
	}
	if j := job.Timeouts["job"]["seconds"]; j < 5*60+10*60+3*60 {
		t.Errorf("job timeout %d s too short", j)
	}
	if len(job.Actions) != 3 || job.Actions[0]["deploy"] == nil || job.Actions[1]["boot"] == nil || job.Actions[2]["test"] == nil {
		t.Fatalf("actions: %v", job.Actions)
	}
	images := job.Actions[0]["deploy"]["images"].(map[string]any)
	karg := images["kernel"].(map[string]any)["image_arg"].(string)
	if !strings.Contains(karg, "-append \"console=ttyS0,115200 rdinit=/init panic=-1 "+runner.ConsoleResultsArg+"\"") {
		t.Errorf("kernel image_arg %q", karg)
	}
	if job.Actions[1]["boot"]["method"] != "qemu" || job.Actions[1]["boot"]["media"] != "tmpfs" {
		t.Errorf("boot %v", job.Actions[1]["boot"])
	}
	// KVM devices: no CPU model of ours (the dictionary sets -cpu host).
	spec.Accel = "kvm"
	def, _ = definition(&jobParams{DeviceType: "qemu", Spec: spec, DeployTimeout: time.Minute})
	if strings.Contains(def, "-cpu max") {
		t.Error("kvm job has -cpu max")
	}
	spec.Cmdline = `console=ttyS0 "x"`
	if _, err := definition(&jobParams{Spec: spec}); err == nil {
		t.Error("a quoted command line was accepted")
	}
}
