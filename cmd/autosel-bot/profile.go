package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile starts the CPU profile --cpuprofile asks for, and arranges
// for the heap profile --memprofile asks for.
func (a *app) startProfile() error {
	if a.cpuProfile == "" {
		if a.memProfile != "" {
			a.stopProfile = a.writeHeap
		}
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
		if err := f.Close(); err != nil {
			return err
		}
		return a.writeHeap()
	}
	return nil
}

// writeHeap writes the heap profile --memprofile asks for: the live heap
// at the end (in use) and everything allocated (alloc).
func (a *app) writeHeap() error {
	if a.memProfile == "" {
		return nil
	}
	f, err := os.Create(a.memProfile)
	if err != nil {
		return err
	}
	// The profile shows the heap as of the last collection: collect now,
	// so in use is the live heap at the end, not at some point before.
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// endProfile stops the CPU profile and writes the heap profile, when
// asked for.
func (a *app) endProfile() error {
	if a.stopProfile == nil {
		return nil
	}
	stop := a.stopProfile
	a.stopProfile = nil
	if err := stop(); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}
