package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts the CPU profile --cpuprofile asks for.
func (a *app) startProfile() error {
	if a.cpuProfile == "" {
		return nil
	}
	f, err := os.Create(a.cpuProfile)
	if err != nil {
		return &exitError{2, fmt.Errorf("cpuprofile: %w", err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return &exitError{2, fmt.Errorf("cpuprofile: %w", err)}
	}
	a.stopProfile = func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}
	return nil
}

// endProfile stops the CPU profile, if one runs.
func (a *app) endProfile() error {
	if a.stopProfile == nil {
		return nil
	}
	stop := a.stopProfile
	a.stopProfile = nil
	if err := stop(); err != nil {
		return fmt.Errorf("cpuprofile: %w", err)
	}
	return nil
}
