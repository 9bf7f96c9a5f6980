package web

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// chromiumPath returns Debian's chromium; without it the test skips,
// unless CI is set (.ci/packages.txt installs it), where it fails.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (CI is set; .ci/packages.txt lists it)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// artifactDir is where screenshots go: $AUTOSEL_TEST_ARTIFACTS/web when
// set, else the test's temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("AUTOSEL_TEST_ARTIFACTS"); d != "" {
		dir := filepath.Join(d, "web")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// browsed is what headless Chromium made of a page.
type browsed struct {
	// DOM is the document as serialised after loading.
	DOM string
	// Console are the page's console messages and uncaught errors.
	Console []string
}

// consoleRE matches Chromium's log line of a console message (its
// --enable-logging=stderr output); the message follows.
var consoleRE = regexp.MustCompile(`:CONSOLE(?:\(\d+\)|:\d+)?\]\s*(.*)`)

// browse loads url in headless Chromium, returns its DOM and console
// messages, and writes a screenshot of width x height to shot when not
// empty.
func browse(t *testing.T, chromium, url, shot string, width, height int) *browsed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--enable-logging=stderr", "--v=0", "--hide-scrollbars",
		fmt.Sprintf("--window-size=%d,%d", width, height)}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	cmd := chromiumCommand(ctx, t, chromium, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.String())
	}
	b := &browsed{DOM: stdout.String()}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if m := consoleRE.FindStringSubmatch(l); m != nil {
			b.Console = append(b.Console, m[1])
		} else if strings.Contains(l, "Uncaught") {
			b.Console = append(b.Console, l)
		}
	}
	return b
}

// checkShot checks that a screenshot is a PNG of the window's size with
// more than one colour (a page, not a blank).
func checkShot(t *testing.T, path string, width, height int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	bd := img.Bounds()
	if bd.Dx() != width || bd.Dy() != height {
		t.Errorf("screenshot %s is %dx%d, want %dx%d", path, bd.Dx(), bd.Dy(), width, height)
	}
	first := img.At(0, 0)
	for y := bd.Min.Y; y < bd.Max.Y; y += 4 {
		for x := bd.Min.X; x < bd.Max.X; x += 4 {
			if img.At(x, y) != first {
				return
			}
		}
	}
	t.Errorf("screenshot %s is blank", path)
}

// TestChromium renders the pages of the seeds and of an eval patch in
// headless Chromium: every page loads without console messages (the
// pages have no script; a violation of their Content-Security-Policy
// would be one), seed 002's chain picture holds its functions in order
// as the browser parsed it, and screenshots of the finding pages (wide
// and phone-sized) and the series list are written as artifacts. A page
// with a failing script is checked first, so the detector is known to
// see console errors.
func TestChromium(t *testing.T) {
	chromium := chromiumPath(t)
	dir := artifactDir(t)
	tree := seed002Tree(t)
	reports := append(append([]*report.Report(nil), seedReports(t)...), tree, evalReport(t))
	srv := serve(t, recordReports(t, reports))

	bad := browse(t, chromium, "data:text/html,<p>x</p><script>console.error('probe-error');undefinedFn()</script>", "", 800, 600)
	if !strings.Contains(strings.Join(bad.Console, "\n"), "probe-error") {
		t.Fatalf("the console detector does not see a page's errors: %q", bad.Console)
	}

	f002, fTree := withChain(seedReport(t, seed002)), withChain(tree)
	fEval := withTimeline(reports[len(reports)-1])
	if f002 == nil || fEval == nil {
		t.Fatal("seed 002 or the eval patch lost its finding")
	}
	pages := []string{"/"}
	for _, r := range reports {
		pages = append(pages, "/"+seriesPath(seriesKey(r)))
	}
	pages = append(pages, "/finding/"+f002.ID, "/finding/"+fTree.ID, "/finding/"+fEval.ID)
	for _, p := range pages {
		b := browse(t, chromium, srv.URL+p, "", 1280, 1000)
		if len(b.Console) > 0 {
			t.Errorf("%s: console messages: %q", p, b.Console)
		}
		if !strings.Contains(b.DOM, "autosel-bot") || !strings.Contains(b.DOM, "</main>") {
			t.Errorf("%s: no page in the DOM:\n%.500s", p, b.DOM)
		}
		if p == "/finding/"+f002.ID {
			got, want := svgFuncs(b.DOM), chainFuncs(f002)
			if len(want) < 2 || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("seed 002's picture in the browser: %v, chain %v", got, want)
			}
			if !strings.Contains(b.DOM, "<svg") || !strings.Contains(b.DOM, `class="step sleep"`) {
				t.Errorf("seed 002's picture lacks the svg or the sleeping call")
			}
		}
		if p == "/finding/"+fTree.ID {
			got, want := svgFuncs(b.DOM), chainFuncs(fTree)
			if len(want) != 5 || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("seed 002's tree chain in the browser: %v, chain %v", got, want)
			}
			if n := strings.Count(b.DOM, `class="step atomic"`); n != 2 {
				t.Errorf("%d atomic entries marked, want 2 (rcu_read_lock, spin_lock_bh)", n)
			}
			if n := strings.Count(b.DOM, `class="box in-atomic"`); n != 5 {
				t.Errorf("%d boxes in atomic context, want 5", n)
			}
		}
	}
	for _, s := range []struct {
		name, path    string
		width, height int
	}{
		{"seed002-finding.png", "/finding/" + f002.ID, 1280, 900},
		{"seed002-finding-phone.png", "/finding/" + f002.ID, 412, 915},
		{"seed002-tree-finding.png", "/finding/" + fTree.ID, 1280, 1100},
		{"eval-finding.png", "/finding/" + fEval.ID, 1280, 1400},
		{"series-list.png", "/", 1280, 700},
	} {
		shot := filepath.Join(dir, s.name)
		b := browse(t, chromium, srv.URL+s.path, shot, s.width, s.height)
		if len(b.Console) > 0 {
			t.Errorf("%s: console messages: %q", s.path, b.Console)
		}
		checkShot(t, shot, s.width, s.height)
		t.Logf("screenshot %s", shot)
	}
}
