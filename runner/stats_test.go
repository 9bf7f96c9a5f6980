package runner

import "testing"

func TestCompareMetric(t *testing.T) {
	tests := []struct {
		name          string
		better        string
		base, patched []float64
		want          string
		median        float64
	}{
		{"overlap", "lower", []float64{1.0, 1.2, 1.1}, []float64{1.15, 1.3, 1.25}, "noise", 1.25},
		{"worse lower", "lower", []float64{1.0, 1.1, 1.05}, []float64{9, 11, 10}, "worse", 10},
		{"better lower", "lower", []float64{9, 11, 10}, []float64{1.0, 1.1, 1.05}, "better", 1.05},
		{"worse higher", "higher", []float64{100, 110, 105}, []float64{50, 55, 52}, "worse", 52},
		{"even count", "higher", []float64{1, 2}, []float64{1, 2, 3, 4}, "noise", 2.5},
		{"empty", "lower", nil, []float64{1}, "n/a", 1},
		{"tight but small", "lower", []float64{1.00, 1.01, 1.02}, []float64{1.05, 1.06, 1.07}, "noise", 1.06},
		{"within own spread", "higher", []float64{16.8, 19.1, 24.5}, []float64{14.0, 14.8, 15.8}, "noise", 14.8},
	}
	for _, tt := range tests {
		m := compareMetric("m", "u", tt.better, tt.base, tt.patched, minMetricChange)
		if m.Verdict != tt.want || m.Patched.Median != tt.median {
			t.Errorf("%s: verdict %s median %v, want %s %v", tt.name, m.Verdict, m.Patched.Median, tt.want, tt.median)
		}
	}
	m := compareMetric("m", "u", "lower", []float64{1, 1, 1}, []float64{2, 2, 2}, minMetricChangeTCG)
	if m.ChangePct != 100 || m.Verdict != "worse" {
		t.Errorf("change %v%%, want 100%%", m.ChangePct)
	}
}
