package lava

import (
	"fmt"
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/autosel-bot/autosel-bot/runner"
)

// Monitor markers: the test action starts at init's hello and ends at its
// done line (guest/init.c).
const (
	helloMarker = "@@AUTOSEL-HELLO"
	doneMarker  = "@@AUTOSEL-DONE"
)

// jobParams are the parts of one job that vary.
type jobParams struct {
	Name       string
	DeviceType string
	Priority   string
	Tags       []string
	KernelURL  string
	InitrdURL  string
	Spec       *runner.BootSpec
	// DeployTimeout bounds the download of the artifacts.
	DeployTimeout time.Duration
}

// timeouts of a job derived from the boot spec: the connection timeout is
// the local watchdog's silence limit (and the wait for init's hello), the
// test action's is the run's total, the job's adds deploy and slack.
type timeouts struct {
	Connection, Boot, Test, Job time.Duration
}

func jobTimeouts(p *jobParams) timeouts {
	s := p.Spec
	conn := max(s.Silence, s.Boot)
	boot := 2 * time.Minute // starting QEMU (no prompts: the monitor waits for init)
	return timeouts{Connection: conn, Boot: boot, Test: s.Total + s.Boot, Job: p.DeployTimeout + boot + s.Total + s.Boot + 2*time.Minute}
}

// secs renders a duration as LAVA's {seconds: N} (rounded up).
func secs(d time.Duration) map[string]int {
	return map[string]int{"seconds": int(math.Ceil(d.Seconds()))}
}

// guestCmdline is the spec's kernel command line with the results frames
// on the console (the only UART a LAVA job records).
func guestCmdline(spec *runner.BootSpec) string {
	return spec.Cmdline + " " + runner.ConsoleResultsArg
}

// definition renders the LAVA job definition (YAML) of one boot.
func definition(p *jobParams) (string, error) {
	s := p.Spec
	if strings.ContainsAny(s.Cmdline, "\"'\n") {
		return "", fmt.Errorf("lava: kernel command line %q has quotes", s.Cmdline)
	}
	t := jobTimeouts(p)
	extra := []string{fmt.Sprintf("-smp %d", s.CPUs), "-no-reboot"}
	if s.Accel == "tcg" {
		// The device dictionary (no_kvm) leaves the CPU model to us; the
		// local backend uses -cpu max under TCG.
		extra = append(extra, "-cpu max")
	}
	prio := p.Priority
	if prio == "" {
		prio = "medium"
	}
	job := map[string]any{
		"device_type": p.DeviceType,
		"job_name":    p.Name,
		"priority":    prio,
		"visibility":  "public",
		"timeouts": map[string]any{
			"job":        secs(t.Job),
			"connection": secs(t.Connection),
		},
		"context": map[string]any{
			"arch":          "amd64",
			"memory":        s.MemoryMB,
			"extra_options": extra,
		},
		"actions": []any{
			map[string]any{"deploy": map[string]any{
				"to":      "tmpfs",
				"timeout": secs(p.DeployTimeout),
				"images": map[string]any{
					"kernel": map[string]any{
						"url":       p.KernelURL,
						"image_arg": fmt.Sprintf("-kernel {kernel} -append \"%s\"", guestCmdline(s)),
					},
					"initrd": map[string]any{
						"url":       p.InitrdURL,
						"image_arg": "-initrd {initrd}",
					},
				},
			}},
			map[string]any{"boot": map[string]any{
				"method":  "qemu",
				"media":   "tmpfs",
				"timeout": secs(t.Boot),
			}},
			map[string]any{"test": map[string]any{
				"timeout": secs(t.Test),
				"monitors": []any{map[string]any{
					"name":  "autosel",
					"start": helloMarker,
					"end":   doneMarker,
					// Each test run that exited 0 is a LAVA test case; the
					// verdicts come from the frames, evaluated by the bot.
					"pattern":   `@@AUTOSEL-END (?P<test_case_id>[a-z0-9_]+) [0-9]+ exit=(?P<result>0) `,
					"fixupdict": map[string]string{"0": "pass"},
				}},
			}},
		},
	}
	if len(p.Tags) > 0 {
		job["tags"] = p.Tags
	}
	b, err := yaml.Marshal(job)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
