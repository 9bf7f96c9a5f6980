package lockctx

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sleepDocRules compiles the doc_context section of the sleep rule's
// table (rules/tables/sleep.yaml).
func sleepDocRules(t *testing.T) docRules {
	t.Helper()
	data, err := os.ReadFile("../tables/sleep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tb struct {
		Sleep struct {
			DocContext DocContext `yaml:"doc_context"`
		} `yaml:"sleep"`
	}
	if err := yaml.Unmarshal(data, &tb); err != nil {
		t.Fatal(err)
	}
	d, err := compileDoc(tb.Sleep.DocContext)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDocContextPhrases classifies "Context:" sections as Linux 6.1
// writes them.
func TestDocContextPhrases(t *testing.T) {
	d := sleepDocRules(t)
	for _, tt := range []struct{ text, want string }{
		{"Any context.", "preempt"},
		{"Any context.  Takes and releases the RCU lock.", "preempt"},
		{"any (usually from irq)", "preempt"},
		{"Can be invoked from any context.", "preempt"},
		{"Interrupt context. Takes and releases the VirtIO substream spinlock.", "hardirq"},
		{"May be called in process or interrupt context, but not in NMI", "hardirq"},
		{"should only be called within the dma irq handler", "hardirq"},
		{"softirq", "softirq"},
		{"Soft IRQ context", "softirq"},
		{"BHs disabled", "softirq"},
		{"IRQs must be disabled", "irq"},
		{"controller locked, IRQs blocked, endpoint selected", "irq"},
		{"atomic. The completion callback is invoked in caller's context.", "preempt"},
		{"can't sleep", "preempt"},
		{"non-blocking.", "preempt"},
		// Sleeping allowed, atomic callers kept out, or conditional.
		{"Any context that permits to sleep.", ""},
		{"Any context.  Takes and releases the xa_lock.  May sleep if the @gfp flags permit.", ""},
		{"Process context. May sleep.", ""},
		{"task context, might sleep", ""},
		{"Holds mutex lock, not suitable from atomic context.", ""},
		{"task; must not be run from IRQ or BH contexts", ""},
		{"!in_interrupt ()", ""},
		{"non-IRQ", ""},
		{"lru_lock must not be held, interrupts must be enabled.", ""},
		{"The function should not sleep in case is_atomic == true.", ""},
		{"potentially before irqs will work", ""},
		{"none.", ""},
		{"Do not call from interrupt context.", ""},
		{"Not for use in interrupt context.", ""},
		{"threaded irq handler", ""},
		{"Any context, but the last reference must not be dropped from atomic context.", ""},
		{"Any context. Expects mbox_mutex to be held.", ""},
	} {
		if got := d.classify(tt.text); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestScanDocContexts keys each "Context:" section by its comment's last
// line, with continuation lines and without the sections after it.
func TestScanDocContexts(t *testing.T) {
	src := `/**
 * f() - one.
 * @a: an argument.
 *
 * Context: Any context.  Takes and releases
 *	the xa_lock.
 * Return: 0.
 */
int f(int a)
{
	return 0;
}

/* Context: softirq */
static void
g(void)
{
}

/**
 * h() - no context.
 */
void h(void)
{
}

/* Context: Any context that
 * permits to sleep. */
void k(void)
{
}

/**
 * m() - a parameter section after the context.
 * Context: Any context the chain allows; callbacks on
 *	@nb may sleep.
 * @nb: the block.
 */
void m(void)
{
}
`
	got := scanDocContexts([]byte(src), docRules{})
	want := map[int]docSection{
		8:  {text: "Any context.  Takes and releases the xa_lock.", line: 5, heads: 1},
		14: {text: "softirq", line: 14, heads: 2},
		28: {text: "Any context that permits to sleep.", line: 27, heads: 1},
		38: {text: "Any context the chain allows; callbacks on @nb may sleep.", line: 35, heads: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("sections %+v, want %+v", got, want)
	}
	for end, w := range want {
		if got[end] != w {
			t.Errorf("comment ending on %d: %+v, want %+v", end, got[end], w)
		}
	}
}

// TestDocCallableSentences reads a kernel-doc comment without a
// "Context:" section by the first sentence of its body that says where
// its function may be called, as Linux 6.1 writes them.
func TestDocCallableSentences(t *testing.T) {
	d := sleepDocRules(t)
	src := `/**
 * usb_ep_queue - queues (submits) an I/O request to an endpoint.
 * @ep:the endpoint associated with the request
 *
 * This routine may be called in interrupt context.
 */
int usb_ep_queue(struct usb_ep *ep)
{
}

/**
 * usb_ep_enable - configure endpoint, making it usable
 *
 * This routine may sleep; it must not be called in interrupt context.
 */
int usb_ep_enable(struct usb_ep *ep)
{
}

/**
 * sbitmap_get - try to allocate a free bit.
 *
 * This can be called from atomic context only if @gfp allows it.
 */
int sbitmap_get(void)
{
}

/**
 * x() - a section wins.
 * May be called from interrupt context.
 * Context: Process context.
 */
void x(void)
{
}

/*
 * y() - not kernel-doc: this may be called in interrupt context.
 */
void y(void)
{
}

/**
 * klp_shadow_alloc() - allocate and add a new shadow variable
 *
 * The cost is that @ctor is called in atomic context under a spin lock.
 */
void *klp_shadow_alloc(void)
{
}
`
	got := scanDocContexts([]byte(src), d)
	sec, ok := got[6]
	if !ok || !sec.sentence || sec.line != 5 || sec.text != "This routine may be called in interrupt context." {
		t.Fatalf("usb_ep_queue: %+v (%v), want the sentence on line 5", sec, ok)
	}
	if k := d.classify(sec.text); k != "hardirq" {
		t.Errorf("usb_ep_queue: kind %q, want hardirq", k)
	}
	if sec, ok := got[15]; ok {
		t.Errorf("usb_ep_enable: %+v, want no context (it may sleep, not in interrupt context)", sec)
	}
	if sec, ok := got[24]; ok && d.classify(sec.text) != "" {
		t.Errorf("sbitmap_get: %+v classified %q, want lifted (conditional)", sec, d.classify(sec.text))
	}
	if sec := got[33]; sec.sentence || sec.text != "Process context." {
		t.Errorf("x: %+v, want its Context: section", sec)
	}
	if sec, ok := got[38]; ok {
		t.Errorf("y: %+v, want nothing from a plain comment", sec)
	}
	if sec, ok := got[49]; ok {
		t.Errorf("klp_shadow_alloc: %+v, want nothing: the sentence is about @ctor", sec)
	}
}

// TestDocSentenceSubjects: a sentence that starts with another
// function as its subject does not describe the one below it; one that
// names other functions elsewhere does.
func TestDocSentenceSubjects(t *testing.T) {
	for _, tt := range []struct{ sent, want string }{
		{"Remark: _HardResetHandler can be invoked from an interrupt thread (timer) or a non-interrupt thread.", "HardResetHandler"},
		{"foo_bar() may be called from any context.", "foo_bar"},
		{"We can not call set_cpus_allowed_ptr() here, this can be called from hard interrupt context.", ""},
		{"Like ieee80211_tx_status() but can be called in IRQ context.", ""},
		{"This routine may be called in interrupt context.", ""},
		{"It can be called from any context.", ""},
	} {
		if got := subjectName(tt.sent); got != tt.want {
			t.Errorf("subjectName(%q) = %q, want %q", tt.sent, got, tt.want)
		}
	}
	d := sleepDocRules(t)
	for _, text := range []string{
		"Remark: _HardResetHandler can be invoked from an interrupt thread (timer) or a non-interrupt thread.",
	} {
		if k := d.classify(text); k != "" {
			t.Errorf("classify(%q) = %q, want lifted", text, k)
		}
	}
}
