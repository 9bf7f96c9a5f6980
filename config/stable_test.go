package config

import (
	"testing"
	"time"
)

// TestStableAndReplyDefaults decodes the embedded stable: and reply:
// sections into their types.
func TestStableAndReplyDefaults(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Stable.Enabled || c.Stable.Upstream.Ref != "origin/master" || c.Stable.BuildTimeout != 30*time.Minute ||
		c.Stable.DepsOrder != "date" || c.Stable.MaxPrerequisites != 8 || !c.Stable.CCache {
		t.Errorf("stable defaults: %+v", c.Stable)
	}
	r := c.Reply
	if r.Greeting != "Hi" || r.Signature != "Thanks,\nautosel-bot" || !r.PerPatch || !r.SkipEmpty ||
		r.LoreURL != "https://lore.kernel.org/r/" || r.StableList != "stable@vger.kernel.org" {
		t.Errorf("reply defaults: %+v", r)
	}
}
