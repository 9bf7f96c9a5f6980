package pipeline

import (
	"fmt"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// CheckOptions are the `check:` section of the configuration (mapstructure
// tags; config.yaml documents every key and its default): how the check
// command runs the pipeline over its inputs and reports. Its flags
// (--format, --fail-on, --tree, --workers) override them.
type CheckOptions struct {
	// Format is the output: text, json, email, terse or sarif.
	Format string `mapstructure:"format"`
	// FailOn is the severity at or above which check exits 1.
	FailOn string `mapstructure:"fail_on"`
	// Tree is a kernel checkout patches are applied onto (in memory) and
	// indexed; empty for patch-only analysis (AnalysisOptions.Tree).
	Tree string `mapstructure:"tree"`
	// LoreURL is the public-inbox inbox a Message-ID argument is fetched
	// from (<lore_url><Message-ID>/t.mbox.gz); check and test use it.
	LoreURL string `mapstructure:"lore_url"`
	// LoreTimeout bounds one thread download.
	LoreTimeout time.Duration `mapstructure:"lore_timeout"`
	// Workers bounds the series, and the patches of a series, analysed at
	// once (AnalysisOptions.Workers); the reports keep the input's order
	// and are those of one at a time.
	Workers int `mapstructure:"workers"`
	// Ignore lists rules (RULE) and categories (RULE/CATEGORY) whose
	// findings are suppressed: kept out of the findings, counted in the
	// summaries (AnalysisOptions.Ignore). check's --ignore adds to it;
	// watch and replay use it too.
	Ignore []string `mapstructure:"ignore"`
}

// DefaultCheckOptions are the documented defaults: config.yaml's check
// section (a test holds the two equal).
func DefaultCheckOptions() CheckOptions {
	return CheckOptions{
		Format:      "text",
		FailOn:      "risk",
		LoreURL:     "https://lore.kernel.org/all/",
		LoreTimeout: time.Minute,
		Workers:     2,
	}
}

// Validate checks the format, the severity and the workers.
func (o CheckOptions) Validate() error {
	if err := ValidateFormat(o.Format); err != nil {
		return fmt.Errorf("check.format %w", err)
	}
	if err := ValidateFailOn(o.FailOn); err != nil {
		return fmt.Errorf("check.fail_on %w", err)
	}
	if err := ValidateWorkers(o.Workers); err != nil {
		return fmt.Errorf("check.workers %w", err)
	}
	return nil
}

// ValidateWorkers checks a count of series analysed at once; the error
// quotes it.
func ValidateWorkers(n int) error {
	if n < 1 {
		return fmt.Errorf("%d: want 1 or more", n)
	}
	return nil
}

// ValidateFormat checks an output format of check; the error quotes it
// and names the valid ones.
func ValidateFormat(format string) error {
	switch format {
	case "text", "json", "email", "terse", "sarif":
		return nil
	}
	return fmt.Errorf("%q: want text, json, email, terse or sarif", format)
}

// ValidateFailOn checks a severity to fail on; the error quotes it and
// names the valid ones.
func ValidateFailOn(severity string) error {
	if report.Severity(severity).Rank() == 0 {
		return fmt.Errorf("%q: want note or risk", severity)
	}
	return nil
}
