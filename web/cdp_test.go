package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// cdp is a headless Chromium driven over --remote-debugging-pipe (the
// DevTools protocol: JSON messages ending in a NUL byte on fds 3 and 4),
// with the standard library only.
type cdp struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	r      *bufio.Reader
	nextID int
	// events are the events read while waiting for answers.
	events []cdpMessage
}

// cdpMessage is an answer (ID set) or an event (Method set).
type cdpMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startCDP starts chromium with the pipe; it ends with ctx.
func startCDP(ctx context.Context, t *testing.T, chromium string) *cdp {
	t.Helper()
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := chromiumCommand(ctx, t, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	c := &cdp{cmd: cmd, w: ourW, r: bufio.NewReader(ourR)}
	t.Cleanup(func() {
		ourW.Close()
		killGroup(cmd)
		cmd.Wait()
		ourR.Close()
	})
	return c
}

// call sends method and returns its result, keeping the events that
// arrive meanwhile.
func (c *cdp) call(session, method string, params any) (json.RawMessage, error) {
	c.nextID++
	msg := map[string]any{"id": c.nextID, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := c.read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID == c.nextID {
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return m.Result, nil
		}
		if m.Method != "" {
			c.events = append(c.events, m)
		}
	}
}

// waitEvent reads until the event method arrives.
func (c *cdp) waitEvent(method string) error {
	for _, e := range c.events {
		if e.Method == method {
			return nil
		}
	}
	for {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method != "" {
			c.events = append(c.events, m)
		}
		if m.Method == method {
			return nil
		}
	}
}

func (c *cdp) read() (cdpMessage, error) {
	var m cdpMessage
	b, err := c.r.ReadBytes(0)
	if err != nil {
		return m, err
	}
	err = json.Unmarshal(b[:len(b)-1], &m)
	return m, err
}

// consoleErrors are the console calls and exceptions among the events.
func (c *cdp) consoleErrors() []string {
	var out []string
	for _, e := range c.events {
		if e.Method == "Runtime.consoleAPICalled" || e.Method == "Runtime.exceptionThrown" || e.Method == "Log.entryAdded" {
			out = append(out, e.Method+": "+string(e.Params))
		}
	}
	return out
}

// phoneWidth is the viewport of the phone check (CSS pixels).
const phoneWidth = 412

// openPhone loads url in a new tab with a phone's viewport and returns
// the session of the tab once the page has loaded.
func (c *cdp) openPhone(url string) (string, error) {
	res, err := c.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return "", err
	}
	var target struct{ TargetID string }
	json.Unmarshal(res, &target)
	res, err = c.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})
	if err != nil {
		return "", err
	}
	var att struct{ SessionID string }
	json.Unmarshal(res, &att)
	s := att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := c.call(s, m, map[string]any{}); err != nil {
			return "", err
		}
	}
	if _, err := c.call(s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": phoneWidth, "height": 915,
		"deviceScaleFactor": 2, "mobile": true}); err != nil {
		return "", err
	}
	c.events = nil
	if _, err := c.call(s, "Page.navigate", map[string]any{"url": url}); err != nil {
		return "", err
	}
	return s, c.waitEvent("Page.loadEventFired")
}

// eval returns the value of a JavaScript expression in the session's page.
func (c *cdp) eval(session, expr string) (json.RawMessage, error) {
	res, err := c.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return r.Result.Value, nil
}

// TestPhoneLayout loads the pages in Chromium over the DevTools protocol
// with a phone's viewport: nothing is wider than the screen (wide
// pictures and tables scroll in their own box), no console messages and
// no exceptions; the SVG's function boxes, read from the live DOM, are
// in the chain's order.
func TestPhoneLayout(t *testing.T) {
	chromium := chromiumPath(t)
	tree, ev := seed002Tree(t), evalReport(t)
	srv := serve(t, recordReports(t, []*report.Report{seedReport(t, seed002), tree, ev}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := startCDP(ctx, t, chromium)
	fTree, fEval := withChain(tree), withTimeline(ev)
	pages := []string{"/", "/" + seriesPath(seriesKey(tree)), "/" + seriesPath(seriesKey(ev)), "/finding/" + fTree.ID, "/finding/" + fEval.ID}
	for _, p := range pages {
		s, err := c.openPhone(srv.URL + p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		v, err := c.eval(s, "[document.documentElement.scrollWidth, document.querySelectorAll('main').length]")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var got [2]int
		if err := json.Unmarshal(v, &got); err != nil {
			t.Fatalf("%s: %s: %v", p, v, err)
		}
		if got[1] != 1 || got[0] > phoneWidth {
			t.Errorf("%s: page %d px wide on a %d px screen (main elements: %d)", p, got[0], phoneWidth, got[1])
		}
		if p == "/finding/"+fTree.ID {
			v, err := c.eval(s, "Array.from(document.querySelectorAll('svg.chain text.fn')).map(e => e.textContent).join(' ')")
			if err != nil {
				t.Fatal(err)
			}
			var fns string
			json.Unmarshal(v, &fns)
			if want := strings.Join(chainFuncs(fTree), "() ") + "()"; fns != want {
				t.Errorf("live DOM boxes %q, want %q", fns, want)
			}
		}
		if errs := c.consoleErrors(); len(errs) > 0 {
			t.Errorf("%s: %q", p, errs)
		}
	}
	// The detector sees a page's errors.
	if _, err := c.openPhone("data:text/html,<p>x</p><script>console.error('probe-error');undefinedFn()</script>"); err != nil {
		t.Fatal(err)
	}
	if errs := strings.Join(c.consoleErrors(), "\n"); !strings.Contains(errs, "probe-error") || !strings.Contains(errs, "undefinedFn") {
		t.Errorf("console errors of a failing page not seen: %s", errs)
	}
}
