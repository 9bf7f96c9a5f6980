package lava

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestCollector(t *testing.T) {
	b := &Backend{m: newMetrics()}
	b.m.queued.Add(3)
	b.m.inFlight.Add(2)
	b.m.baselineHits.Add(1)
	b.m.submitted.Add(4)
	b.m.observe("result", 12*time.Second)
	b.m.observe("infra", 90*time.Second)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(b.Collector()); err != nil {
		t.Fatal(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	series := map[string]int{}
	for _, f := range fams {
		series[f.GetName()] = len(f.GetMetric())
		for _, m := range f.GetMetric() {
			switch {
			case m.GetGauge() != nil:
				got[f.GetName()] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				got[f.GetName()] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				got[f.GetName()] += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	want := map[string]float64{"autosel_lava_queue_depth": 3, "autosel_lava_jobs_in_flight": 2,
		"autosel_lava_baseline_cache_hits_total": 1, "autosel_lava_jobs_submitted_total": 4, "autosel_lava_job_seconds": 2}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
	if series["autosel_lava_job_seconds"] != 2 {
		t.Errorf("%d latency series, want 2 (result, infra)", series["autosel_lava_job_seconds"])
	}
}
