# autosel-bot developer targets. `make test` is the README's test command and
# what CI (.ci/run) runs.
GO ?= go
export PATH := /usr/local/go/bin:$(PATH)

.PHONY: test build bench fuzz-seeds example eval

build:
	$(GO) build ./...

# Install test dependencies (Debian packages, kernel tree), then run every test
# (fuzz seed corpora included) with vet.
test:
	bash .ci/setup.sh
	$(GO) vet ./...
	CI=$${CI:-true} $(GO) test -count=1 -timeout 80m ./...

# Benchmarks (speed and memory targets live here, not in timed tests).
bench:
	bash scripts/bench.sh

# Measure the rules on the evaluation corpus (eval/README.md): recall, false
# alarms, per-case tables. EVAL_DIR=dir runs it on another corpus of the same
# format; AUTOSEL_KERNEL_SRC overrides the Linux 6.1 tree. A measurement, not
# a pass/fail test.
EVAL_DIR ?= eval
eval:
	$(GO) run ./eval/cmd/eval -dir "$(EVAL_DIR)"

# Run the bot's main job on the bundled example data.
example:
	$(GO) run ./cmd/autosel-bot replay testdata/seeds/*.mbox
