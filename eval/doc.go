// Package eval measures the rules on a corpus of real kernel patches (see
// eval/README.md): bug cases (an upstream fix reversed, plus the fix), near
// misses (correct patches that look like bugs) and ordinary patches (real
// patches that are not bugs). Load reads and validates a corpus directory;
// Evaluator runs the analysis stage on every case and Results prints recall
// and false-alarm rates. It drives the analysis only through
// pipeline.Analysis, so it measures exactly what `autosel-bot check` runs.
package eval
