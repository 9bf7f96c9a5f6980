package actions

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/autosel-bot/autosel-bot/runner"
)

// Names inside the bundle (kernel + initramfs + spec) and the results
// (serial logs + outcome).
const (
	specFile    = "spec.json"
	kernelFile  = "bzImage"
	initrdFile  = "initramfs.cpio"
	consoleFile = "console.log"
	resultsFile = "results.log"
	outcomeFile = "outcome.json"
	// maxBundleFile bounds one file unpacked from a bundle or artifact.
	maxBundleFile = 512 << 20
)

// packBundle writes the bundle of spec (files as absolute paths) to
// path: a gzipped tar of spec.json, bzImage and initramfs.cpio, with the
// spec's file names made relative.
func packBundle(spec *runner.BootSpec, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	rel := *spec
	rel.Kernel, rel.Initrd = kernelFile, initrdFile
	js, err := json.MarshalIndent(&rel, "", "  ")
	if err != nil {
		return err
	}
	add := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := add(specFile, js); err != nil {
		return err
	}
	for name, src := range map[string]string{kernelFile: spec.Kernel, initrdFile: spec.Initrd} {
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		if err := add(name, b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Close()
}

// unpackBundle extracts a bundle into dir and returns its spec. Only the
// three known names are accepted.
func unpackBundle(r io.Reader, dir string) (*runner.BootSpec, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	tr := tar.NewReader(gz)
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		switch h.Name {
		case specFile, kernelFile, initrdFile:
		default:
			return nil, fmt.Errorf("bundle: unexpected entry %q", h.Name)
		}
		if h.Typeflag != tar.TypeReg || h.Size > maxBundleFile {
			return nil, fmt.Errorf("bundle: bad entry %q", h.Name)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxBundleFile))
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, h.Name), b, 0o644); err != nil {
			return nil, err
		}
		seen[h.Name] = true
	}
	if !seen[specFile] || !seen[kernelFile] || !seen[initrdFile] {
		return nil, errors.New("bundle: spec, kernel or initramfs missing")
	}
	var spec runner.BootSpec
	b, err := os.ReadFile(filepath.Join(dir, specFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", specFile, err)
	}
	if spec.Kernel != kernelFile || spec.Initrd != initrdFile {
		return nil, errors.New("bundle: the spec names other files than the bundle's")
	}
	return &spec, nil
}

// RunBundle is the workflow's entry point (cmd/autosel-vm): it unpacks the
// bundle at bundlePath, boots it with qemu under the runner's watchdog and
// QEMU command line, and leaves console.log, results.log and outcome.json
// in outDir. A boot that could not run at all (no usable /dev/kvm for a
// KVM boot, QEMU failing to start) is recorded in outcome.json as infra
// and returned as an error; every guest behaviour (hang, crash, panic) is
// a result.
func RunBundle(ctx context.Context, bundlePath, outDir, qemu string) (*runner.BootOutcome, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(bundlePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	work, err := os.MkdirTemp("", "autosel-vm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	spec, err := unpackBundle(f, work)
	if err != nil {
		return nil, writeOutcome(outDir, &runner.BootOutcome{Infra: err.Error()}, err)
	}
	if spec.Accel == "kvm" {
		if k, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
			err = fmt.Errorf("no usable /dev/kvm for a KVM boot: %w", err)
			return nil, writeOutcome(outDir, &runner.BootOutcome{Infra: err.Error()}, err)
		} else {
			k.Close()
		}
	}
	out, bootErr := runner.Boot(ctx, qemu, spec, work)
	if out == nil {
		return nil, bootErr // cancelled
	}
	for _, name := range []string{consoleFile, resultsFile} {
		b, _ := os.ReadFile(filepath.Join(work, name))
		if err := os.WriteFile(filepath.Join(outDir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	return out, writeOutcome(outDir, out, bootErr)
}

func writeOutcome(dir string, out *runner.BootOutcome, err error) error {
	b, jerr := json.MarshalIndent(out, "", "  ")
	if jerr != nil {
		return jerr
	}
	if werr := os.WriteFile(filepath.Join(dir, outcomeFile), b, 0o644); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// readResults reads the results artifact (a zip of the entry point's out
// directory).
func readResults(archive []byte) (out *runner.BootOutcome, console, results []byte, err error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("results artifact: %w", err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		name := filepath.Base(strings.TrimSuffix(f.Name, "/"))
		switch name {
		case consoleFile, resultsFile, outcomeFile:
		default:
			continue
		}
		if f.UncompressedSize64 > maxBundleFile {
			return nil, nil, nil, fmt.Errorf("results artifact: %s too large", name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("results artifact: %w", err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxBundleFile))
		rc.Close()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("results artifact: %w", err)
		}
		files[name] = b
	}
	js, ok := files[outcomeFile]
	if !ok {
		return nil, nil, nil, errors.New("results artifact: no outcome.json")
	}
	out = &runner.BootOutcome{}
	if err := json.Unmarshal(js, out); err != nil {
		return nil, nil, nil, fmt.Errorf("results artifact: outcome.json: %w", err)
	}
	return out, files[consoleFile], files[resultsFile], nil
}
