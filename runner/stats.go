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

// minMetricChange is the smallest change of the median (percent) that is
// reported as better/worse even when the spreads do not overlap: three
// runs under an emulator rarely capture the whole run-to-run variance.
const minMetricChange = 10.0

// compareMetric compares baseline and patched samples. Overlapping
// spreads, or a median change under minMetricChange percent, are "noise";
// otherwise the direction of the median says "better" or "worse"
// according to better ("lower"/"higher").
func compareMetric(name, unit, better string, base, patched []float64) report.VMMetric {
	m := report.VMMetric{Name: name, Unit: unit, Better: better, Baseline: stat(base), Patched: stat(patched)}
	if m.Baseline.N == 0 || m.Patched.N == 0 {
		m.Verdict = "n/a"
		return m
	}
	if m.Baseline.Median != 0 {
		m.ChangePct = (m.Patched.Median - m.Baseline.Median) / m.Baseline.Median * 100
	}
	overlap := m.Patched.Min <= m.Baseline.Max && m.Baseline.Min <= m.Patched.Max
	switch {
	case overlap || m.Patched.Median == m.Baseline.Median || math.Abs(m.ChangePct) < minMetricChange:
		m.Verdict = "noise"
	case (m.Patched.Median < m.Baseline.Median) == (better == "lower"):
		m.Verdict = "better"
	default:
		m.Verdict = "worse"
	}
	return m
}
