package lockctx

import "testing"

// TestScanMemberDocs reads struct member descriptions as Linux 6.1 writes
// them (include/net/mac80211.h, iwlwifi's iwl-op-mode.h).
func TestScanMemberDocs(t *testing.T) {
	d := sleepDocRules(t)
	src := `/**
 * struct ieee80211_ops - callbacks from mac80211 to the driver
 *
 * @tx: Handler that 802.11 module calls for each transmitted frame.
 *	skb contains the buffer starting from the IEEE 802.11 header.
 *	The low-level driver should send the frame out based on
 *	configuration in the TX control data. This handler should,
 *	preferably, never fail and stop queues appropriately.
 *	Must be atomic.
 *
 * @start: Called before the first netdevice attached to the hardware
 *	is enabled. This should turn on the hardware and must turn on
 *	frame reception (for possibly enabled monitor interfaces.)
 *	When the device is started it should not have a MAC address
 *	to avoid acknowledging frames before a non-monitor device
 *	is added.
 *	Must be implemented and can sleep.
 *
 * @nic_error: error notification. Must be atomic and must be called with BH
 *	disabled, unless the sync parameter is true.
 * @queue_full: notifies that a HW queue is full.
 *	Must be atomic and called with BH disabled.
 * @rx: Rx notification to the op_mode. rxb is the Rx buffer itself. Cmd is the
 *	HCMD this Rx responds to. Can't sleep.
 */
struct ieee80211_ops {
	void (*tx)(void);
	int (*start)(void);
	void (*nic_error)(bool sync);
	void (*queue_full)(void);
	void (*rx)(void);
};
`
	docs := scanMemberDocs(src, d)
	for member, want := range map[string]string{"tx": "preempt", "queue_full": "softirq", "rx": "preempt", "start": "", "nic_error": ""} {
		sec, ok := docs["ieee80211_ops"][member]
		got := ""
		if ok {
			got = d.classify(sec.text)
		}
		if got != want {
			t.Errorf("@%s: %q (%+v), want %q", member, got, sec, want)
		}
	}
	if sec := docs["ieee80211_ops"]["tx"]; sec.line != 9 || sec.text != "Must be atomic." {
		t.Errorf("@tx: %+v, want \"Must be atomic.\" on line 9", sec)
	}
}
