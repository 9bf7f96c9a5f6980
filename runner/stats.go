package runner

import (
	"math"
	"sort"

	"github.com/autosel-bot/autosel-bot/report"
)

// stat summarises values: median, min, max.
func stat(values []float64) report.MetricStat {
	if len(values) == 0 {
		return report.MetricStat{}
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return report.MetricStat{Median: med, Min: v[0], Max: v[len(v)-1], N: len(v)}
}

// Minimum median changes (percent) reported as better/worse: three runs
// rarely capture the whole run-to-run variance, and under TCG the guest's
// clock and speed follow the host's load.
const (
	minMetricChange    = 10.0
	minMetricChangeTCG = 30.0
)

// compareMetric compares baseline and patched samples. The change of the
// median is "noise" when the spreads overlap, or when it is smaller than
// minChange percent or than either side's own spread (max-min relative to
// its median); otherwise its direction says "better" or "worse" according
// to better ("lower"/"higher").
func compareMetric(name, unit, better string, base, patched []float64, minChange float64) report.VMMetric {
	m := report.VMMetric{Name: name, Unit: unit, Better: better, Baseline: stat(base), Patched: stat(patched)}
	if m.Baseline.N == 0 || m.Patched.N == 0 {
		m.Verdict = "n/a"
		return m
	}
	if m.Baseline.Median != 0 {
		m.ChangePct = (m.Patched.Median - m.Baseline.Median) / m.Baseline.Median * 100
	}
	overlap := m.Patched.Min <= m.Baseline.Max && m.Baseline.Min <= m.Patched.Max
	threshold := max(minChange, relSpread(m.Baseline), relSpread(m.Patched))
	switch {
	case overlap || m.Patched.Median == m.Baseline.Median || math.Abs(m.ChangePct) < threshold:
		m.Verdict = "noise"
	case (m.Patched.Median < m.Baseline.Median) == (better == "lower"):
		m.Verdict = "better"
	default:
		m.Verdict = "worse"
	}
	return m
}

// relSpread is (max-min)/median in percent.
func relSpread(s report.MetricStat) float64 {
	if s.Median == 0 {
		return 0
	}
	return math.Abs((s.Max - s.Min) / s.Median * 100)
}
