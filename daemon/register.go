package daemon

import "github.com/prometheus/client_golang/prometheus"

// Register adds collectors of other parts of the bot (the GitHub pull
// request watcher) to the daemon's /metrics.
func (d *Daemon) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := d.m.Registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}
